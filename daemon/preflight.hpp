// What the daemon checks and opens before the SM exists: partitions.conf (a broken
// file stops the SM before it touches the fabric) and the local port.
#pragma once

#include <memory>

#include "common/log.hpp"
#include "conf/options.hpp"
#include "mad/umad_transport.hpp"

namespace ibsm::daemon {

// Reads partitions.conf with the SM's reader; errors go to the log and stderr.
bool partitions_config_ok(const conf::Options& options, const Logger& log);

// The port named by the options, or the exit status when it cannot be opened: 1 lets
// systemd restart ibsm with back-off (a module loaded late, another SM stopped); a port
// that can never carry an SM is a configuration error, as status 2 says.
struct OpenedPort {
  std::unique_ptr<mad::UmadTransport> transport;
  int exit_code = 0;
};
OpenedPort open_port(const conf::Options& options, const Logger& log);

}  // namespace ibsm::daemon
