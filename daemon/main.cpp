// ibsm: the subnet manager daemon, its composition root. Parses OpenSM's command line
// and opensm.conf, opens the local port, wires the SubnetManager (sm/) to the operator
// side (ctl/, metrics/) and runs it until SIGTERM/SIGINT. The pieces live beside this
// file: signals, pidfile, preflight (partitions.conf, the port), reload (SIGHUP) and
// operator_side (ctl and metrics).
#include <unistd.h>

#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/service_status.hpp"
#include "conf/invocation.hpp"
#include "conf/log_settings.hpp"
#include "daemon/operator_side.hpp"
#include "daemon/pidfile.hpp"
#include "daemon/preflight.hpp"
#include "daemon/reload.hpp"
#include "daemon/signals.hpp"
#include "qos_policy/check.hpp"
#include "sm/subnet_manager.hpp"

namespace {

// The error of a step that stops the start, to the log and stderr; exit status 1.
int stop_start(const ibsm::Logger& log, const ibsm::Error& error) {
  log->error("{}", ibsm::to_string(error));
  std::cerr << "ibsm: " << ibsm::to_string(error) << "\n";
  log->flush();
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ibsm;
  // ibsm --check-qos-policy FILE ...: a tool mode with its own arguments (docs/qos-policy.md).
  if (argc >= 2 && std::string_view(argv[1]) == "--check-qos-policy") {
    return qos_policy::run_check(std::vector<std::string>(argv + 2, argv + argc), std::cout,
                                 std::cerr);
  }
  auto inv = conf::parse_invocation(argc, argv, conf::Environment::from_process());
  if (!inv.ok()) {
    std::cerr << "ibsm: " << to_string(inv.error()) << "\n";
    return conf::kUsageExitCode;
  }
  if (const auto* exit_now = std::get_if<conf::ExitNow>(&*inv)) {
    return conf::perform(*exit_now);
  }
  const auto& run = std::get<conf::Run>(*inv);
  const conf::Options& options = run.options;

  Logger log;
  try {
    log = make_logger(conf::log_settings(options));
  } catch (const std::exception& e) {
    std::cerr << "ibsm: cannot open log file " << options.log_file << ": " << e.what() << "\n";
    return 1;
  }
  for (const auto& w : run.warnings)
    log->warn("{}: {}", format_error_id(w.id), w.message);
  log->info("ibsm {} starting", IBSM_VERSION);
  daemon::load_per_module_logging(log, options.per_module_logging_file);

  // A broken partitions.conf or a metrics_listen that is not ADDR:PORT stops the SM
  // before it touches the fabric.
  if (!daemon::partitions_config_ok(options, log)) return 1;
  auto metrics_at = daemon::metrics_listen_address(options);
  if (!metrics_at.ok()) return stop_start(log, metrics_at.error());

  if (options.daemon && ::daemon(0, 0) < 0) {
    log->error("cannot daemonize");
    return 1;
  }
  daemon::Pidfile pidfile(options.pidfile);
  if (auto st = pidfile.write(); !st.ok()) return stop_start(log, st.error());

  auto port = daemon::open_port(options, log);
  if (!port.transport) return port.exit_code;

  SteadyClock clock;
  sm::SubnetManager sm(*port.transport, clock, log, options);
  if (auto st = sm.validate_start(); !st.ok()) {
    log->error("{}", to_string(st.error()));
    std::cerr << "ibsm: " << to_string(st.error()) << "\n";
    return conf::kUsageExitCode;
  }
  // A node name map in error is logged; nodes then go by their NodeDescription.
  static_cast<void>(sm.reload_node_names());
  daemon::HangupReload hangup(run, log, sm);
  sm.set_hangup_handler([&hangup] { hangup(); });
  sm.set_status_handler([](const std::string& line) { notify_service_status(line); });
  sm.set_version(IBSM_VERSION);
  sm.publish_ops();

  daemon::OperatorSide operator_side(sm.ops(), log, options, *metrics_at);
  if (auto st = operator_side.start(); !st.ok()) return stop_start(log, st.error());
  sm::ControlFlags control;
  int rc = 0;
  {
    daemon::SignalRouting signals(control);
    rc = sm.run(control);
  }
  operator_side.stop();
  log->info("Exiting SM");
  log->flush();
  return rc;
}
