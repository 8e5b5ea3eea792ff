// ibsm: the subnet manager daemon. Parses OpenSM's command line and opensm.conf,
// opens the local port, and runs the SubnetManager until SIGTERM/SIGINT.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "common/service_status.hpp"
#include "conf/invocation.hpp"
#include "conf/log_settings.hpp"
#include "conf/reload.hpp"
#include "mad/errors.hpp"
#include "mad/umad_transport.hpp"
#include "sm/subnet_manager.hpp"

namespace {

// Signal handlers can only reach process-wide state; this pointer is the one
// place the daemon's ControlFlags are visible to them.
ibsm::sm::ControlFlags* g_control = nullptr;

extern "C" void on_signal(int sig) {
  if (g_control == nullptr) return;
  if (sig == SIGHUP) {
    g_control->heavy_sweep.store(true);
  } else if (sig == SIGUSR1) {
    g_control->reopen_log.store(true);
  } else if (sig == SIGUSR2) {
    g_control->handover.store(true);
  } else {
    g_control->stop.store(true);
  }
}

void install_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2})
    sigaction(sig, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

bool daemonize(const std::string& pidfile) {
  if (::daemon(0, 0) < 0) return false;
  if (!pidfile.empty()) {
    std::ofstream(pidfile) << ::getpid() << "\n";
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  auto inv = ibsm::conf::parse_invocation(argc, argv, ibsm::conf::Environment::from_process());
  if (!inv.ok()) {
    std::cerr << "ibsm: " << ibsm::to_string(inv.error()) << "\n";
    return ibsm::conf::kUsageExitCode;
  }
  if (const auto* exit_now = std::get_if<ibsm::conf::ExitNow>(&*inv)) {
    return ibsm::conf::perform(*exit_now);
  }
  const auto& run = std::get<ibsm::conf::Run>(*inv);
  const ibsm::conf::Options& options = run.options;

  ibsm::Logger log;
  try {
    log = ibsm::make_logger(ibsm::conf::log_settings(options));
  } catch (const std::exception& e) {
    std::cerr << "ibsm: cannot open log file " << options.log_file << ": " << e.what() << "\n";
    return 1;
  }
  for (const auto& w : run.warnings)
    log->warn("{}: {}", ibsm::format_error_id(w.id), w.message);
  log->info("ibsm {} starting", IBSM_VERSION);

  // A broken partitions.conf stops the SM before it touches the fabric.
  {
    std::vector<std::string> errors;
    if (!ibsm::sm::read_partitions_config(options.partition_config_file, errors, nullptr)) {
      for (const auto& e : errors) {
        log->error("{}", e);
        std::cerr << "ibsm: " << e << "\n";
      }
      std::cerr << "ibsm: partition configuration " << options.partition_config_file
                << " in error; not starting\n";
      log->flush();
      return 1;
    }
  }

  if (options.daemon && !daemonize(options.pidfile)) {
    log->error("cannot daemonize");
    return 1;
  }

  auto transport = ibsm::mad::UmadTransport::open(options.guid);
  if (!transport.ok()) {
    // One line naming the step, device, port, errno and likely cause. Status 1 lets
    // systemd restart ibsm with back-off (a module loaded late, another SM stopped);
    // a port that can never carry an SM is a configuration error, as status 2 says.
    log->error("{}", ibsm::to_string(transport.error()));
    std::cerr << "ibsm: " << ibsm::to_string(transport.error()) << "\n";
    log->flush();
    return transport.error().id == ibsm::mad::kErrPortNotInfiniband ? ibsm::conf::kUsageExitCode
                                                                    : 1;
  }
  const auto port = (*transport)->local_port();
  log->info("bound to {} port {} (GUID {}); {}", port.ca_name, port.port_num,
            ibsm::mad::format_guid(port.port_guid), (*transport)->issm_status());
  log->info("{}", (*transport)->gsi_status());
  if ((*transport)->issm_refused()) log->warn("{}", (*transport)->issm_status());

  ibsm::SteadyClock clock;
  ibsm::sm::SubnetManager sm(**transport, clock, log, options);
  if (auto st = sm.validate_start(); !st.ok()) {
    log->error("{}", ibsm::to_string(st.error()));
    std::cerr << "ibsm: " << ibsm::to_string(st.error()) << "\n";
    return ibsm::conf::kUsageExitCode;
  }
  // SIGHUP: re-read the configuration files with OpenSM's rules; a bad file
  // changes nothing and the SM keeps its last good configuration.
  ibsm::conf::Options running = options;
  ibsm::conf::Options file_values = run.file_values;
  sm.set_hangup_handler([&] {
    auto reloaded = ibsm::conf::reload_config(running, file_values, run.config_files);
    if (!reloaded.ok()) {
      log->error("configuration not reloaded, keeping the running one: {}",
                 ibsm::to_string(reloaded.error()));
      return;
    }
    for (const auto& w : reloaded->warnings)
      log->warn("{}: {}", ibsm::format_error_id(w.id), w.message);
    for (const auto& c : reloaded->changed)
      log->info("reloaded: {}", c);
    for (const auto& c : reloaded->need_restart)
      log->warn("changed in the file but needs a restart to take effect: {}", c);
    running = reloaded->options;
    file_values = reloaded->file_values;
    ibsm::update_log_settings(log, ibsm::conf::log_settings(running));
    sm.apply_options(running);
  });
  sm.set_status_handler([](const std::string& line) { ibsm::notify_service_status(line); });
  ibsm::sm::ControlFlags control;
  g_control = &control;
  install_signals();
  const int rc = sm.run(control);
  g_control = nullptr;
  log->info("Exiting SM");
  log->flush();
  return rc;
}
