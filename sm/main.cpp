// ibsm: the subnet manager daemon. Parses OpenSM's command line and opensm.conf,
// opens the local port, and runs the SubnetManager until SIGTERM/SIGINT.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <string_view>

#include "common/service_status.hpp"
#include "conf/errors.hpp"
#include "conf/invocation.hpp"
#include "conf/log_settings.hpp"
#include "conf/per_module_logging.hpp"
#include "conf/reload.hpp"
#include "ctl/event_file.hpp"
#include "ctl/paths.hpp"
#include "ctl/server.hpp"
#include "mad/errors.hpp"
#include "mad/umad_transport.hpp"
#include "metrics/endpoint.hpp"
#include "qos_policy/check.hpp"
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

// -J FILE, as OpenSM's main.c: an old file of that name is removed first, a file
// that cannot be written stops the start, and the file is removed on exit. (OpenSM
// writes it only with -B; ibsm in the foreground too, where a service manager may
// want it as well.)
class Pidfile {
 public:
  explicit Pidfile(std::string path) : path_(std::move(path)) {}
  Pidfile(const Pidfile&) = delete;
  Pidfile& operator=(const Pidfile&) = delete;
  ~Pidfile() {
    if (written_) ::unlink(path_.c_str());
  }
  ibsm::Status write() {
    if (path_.empty()) return {};
    ::unlink(path_.c_str());
    std::ofstream out(path_, std::ios::trunc);
    out << ::getpid() << "\n";
    if (!out.flush()) {
      const int err = errno;
      return ibsm::fail(ibsm::conf::kPidfileUnwritable,
                        "cannot write pid file " + path_ + ": " + std::strerror(err));
    }
    written_ = true;
    return {};
  }

 private:
  std::string path_;
  bool written_ = false;
};

// per_module_logging_file: a file in error is logged with file:line and the levels
// in force stay.
void load_per_module_logging(const ibsm::Logger& log, const std::string& path) {
  auto levels = ibsm::conf::reload_per_module_logging(log, path);
  if (!levels) {
    log->error("{}", ibsm::to_string(levels.error()));
    return;
  }
  for (const auto& w : levels->warnings)
    log->warn("{}: {}", ibsm::format_error_id(w.id), w.message);
}

}  // namespace

int main(int argc, char** argv) {
  // ibsm --check-qos-policy FILE ...: a tool mode with its own arguments (docs/qos-policy.md).
  if (argc >= 2 && std::string_view(argv[1]) == "--check-qos-policy") {
    return ibsm::qos_policy::run_check(std::vector<std::string>(argv + 2, argv + argc), std::cout,
                                       std::cerr);
  }
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
  load_per_module_logging(log, options.per_module_logging_file);

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

  // A metrics_listen that is not ADDR:PORT stops the SM before it touches the fabric.
  std::optional<ibsm::metrics::ListenAddress> metrics_at;
  if (!options.metrics_listen.empty()) {
    auto at = ibsm::metrics::parse_listen(options.metrics_listen);
    if (!at.ok()) {
      log->error("{}", ibsm::to_string(at.error()));
      std::cerr << "ibsm: " << ibsm::to_string(at.error()) << "\n";
      log->flush();
      return 1;
    }
    metrics_at = at.value();
  }

  if (options.daemon && ::daemon(0, 0) < 0) {
    log->error("cannot daemonize");
    return 1;
  }
  Pidfile pidfile(options.pidfile);
  if (auto st = pidfile.write(); !st.ok()) {
    log->error("{}", ibsm::to_string(st.error()));
    std::cerr << "ibsm: " << ibsm::to_string(st.error()) << "\n";
    log->flush();
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
  // A node name map in error is logged; nodes then go by their NodeDescription.
  static_cast<void>(sm.reload_node_names());
  // SIGHUP: re-read the configuration files with OpenSM's rules; a bad file
  // changes nothing and the SM keeps its last good configuration.
  ibsm::conf::Options running = options;
  ibsm::conf::Options file_values = run.file_values;
  std::function<void()> hangup_config = [&] {
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
  };
  // Re-read on every SIGHUP, whether the configuration reloaded or not, as OpenSM does
  // with its per-module logging file; each keeps what is in force when in error.
  auto hangup = [&, reload = std::move(hangup_config)] {
    reload();
    load_per_module_logging(log, running.per_module_logging_file);
    static_cast<void>(sm.reload_node_names());
  };
  sm.set_hangup_handler(hangup);
  sm.set_status_handler([](const std::string& line) { ibsm::notify_service_status(line); });
  sm.set_version(IBSM_VERSION);
  sm.publish_ops();
  // The Prometheus endpoint (metrics/): its own threads, reading published snapshots.
  ibsm::metrics::MetricsEndpoint metrics_endpoint(sm.ops().snapshot, log);
  if (metrics_at) {
    if (auto st = metrics_endpoint.start(*metrics_at); !st.ok()) {
      log->error("{}", ibsm::to_string(st.error()));
      std::cerr << "ibsm: " << ibsm::to_string(st.error()) << "\n";
      log->flush();
      return 1;
    }
  }
  // The operator side (ctl/): ibsm-ctl's socket, OpenSM's console and the events file,
  // each on a thread of its own reading sm.ops(); none of them can hold up a sweep.
  ibsm::ctl::ServerSettings ctl_settings;
  if (options.ctl_socket != "none") {
    ctl_settings.socket_path = options.ctl_socket;
    if (ctl_settings.socket_path.empty()) {
      ::mkdir(ibsm::ctl::kRuntimeDir, 0755);  // systemd's RuntimeDirectory makes it in service
      ctl_settings.socket_path =
          ibsm::ctl::socket_path_for(ibsm::ctl::default_instance(options.guid));
    }
  }
  ctl_settings.group = options.ctl_group;
  ctl_settings.console = options.daemon && options.console == "local" ? "off" : options.console;
  if (options.daemon && options.console == "local")
    log->warn("console local needs ibsm in the foreground; not started (-B)");
  ctl_settings.console_port = options.console_port;
  ctl_settings.console_token_path = options.console_token_file;
  ctl_settings.idle_timeout = std::chrono::seconds(options.ctl_idle_timeout);
  ctl_settings.max_connections = options.ctl_max_connections;
  ibsm::ctl::ControlServer ctl_server(sm.ops(), log, ctl_settings);
  ctl_server.start();
  ibsm::ctl::EventFileWriter events_file(
      sm.ops().events, log,
      {options.events_file, std::uint64_t{options.events_file_max_mb} << 20,
       options.events_file_keep, 65536});
  events_file.start();
  ibsm::sm::ControlFlags control;
  g_control = &control;
  install_signals();
  const int rc = sm.run(control);
  g_control = nullptr;
  ctl_server.stop();
  events_file.stop();
  metrics_endpoint.stop();
  log->info("Exiting SM");
  log->flush();
  return rc;
}
