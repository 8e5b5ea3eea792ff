// Before the SM exists: partitions.conf and the port (daemon/preflight.hpp).
#include "daemon/preflight.hpp"

#include <iostream>
#include <string>
#include <vector>

#include "conf/invocation.hpp"
#include "mad/errors.hpp"
#include "sm/pkeys/pkey_manager.hpp"

namespace ibsm::daemon {

bool partitions_config_ok(const conf::Options& options, const Logger& log) {
  std::vector<std::string> errors;
  if (sm::read_partitions_config(options.partition_config_file, errors, nullptr)) return true;
  for (const auto& e : errors) {
    log->error("{}", e);
    std::cerr << "ibsm: " << e << "\n";
  }
  std::cerr << "ibsm: partition configuration " << options.partition_config_file
            << " in error; not starting\n";
  log->flush();
  return false;
}

OpenedPort open_port(const conf::Options& options, const Logger& log) {
  auto transport = mad::UmadTransport::open(options.guid);
  if (!transport.ok()) {
    // One line naming the step, device, port, errno and likely cause.
    log->error("{}", to_string(transport.error()));
    std::cerr << "ibsm: " << to_string(transport.error()) << "\n";
    log->flush();
    return {nullptr, transport.error().id == mad::kErrPortNotInfiniband ? conf::kUsageExitCode : 1};
  }
  const auto port = (*transport)->local_port();
  log->info("bound to {} port {} (GUID {}); {}", port.ca_name, port.port_num,
            mad::format_guid(port.port_guid), (*transport)->issm_status());
  log->info("{}", (*transport)->gsi_status());
  if ((*transport)->issm_refused()) log->warn("{}", (*transport)->issm_status());
  return {std::move(*transport), 0};
}

}  // namespace ibsm::daemon
