// The daemon's operator side: ctl and metrics wired to ops (daemon/operator_side.hpp).
#include "daemon/operator_side.hpp"

#include <sys/stat.h>

#include <cstdint>

#include "ctl/paths.hpp"

namespace ibsm::daemon {

Result<std::optional<metrics::ListenAddress>> metrics_listen_address(const conf::Options& options) {
  if (options.metrics_listen.empty()) return std::optional<metrics::ListenAddress>{};
  auto at = metrics::parse_listen(options.metrics_listen);
  if (!at.ok()) return fail(at.error());
  return std::optional<metrics::ListenAddress>{at.value()};
}

ctl::ServerSettings ctl_server_settings(const conf::Options& options, const Logger& log) {
  ctl::ServerSettings settings;
  if (options.ctl_socket != "none") {
    settings.socket_path = options.ctl_socket;
    if (settings.socket_path.empty()) {
      ::mkdir(ctl::kRuntimeDir, 0755);  // systemd's RuntimeDirectory makes it in service
      settings.socket_path = ctl::socket_path_for(ctl::default_instance(options.guid));
    }
  }
  settings.group = options.ctl_group;
  settings.console = options.daemon && options.console == "local" ? "off" : options.console;
  if (options.daemon && options.console == "local")
    log->warn("console local needs ibsm in the foreground; not started (-B)");
  settings.console_port = options.console_port;
  settings.console_token_path = options.console_token_file;
  settings.idle_timeout = std::chrono::seconds(options.ctl_idle_timeout);
  settings.max_connections = options.ctl_max_connections;
  return settings;
}

OperatorSide::OperatorSide(ops::Ops& ops, const Logger& log, const conf::Options& options,
                           std::optional<metrics::ListenAddress> metrics_at)
    : ops_(ops),
      log_(log),
      options_(options),
      metrics_at_(std::move(metrics_at)),
      metrics_endpoint_(ops.snapshot, log) {}

Status OperatorSide::start() {
  if (metrics_at_) {
    if (auto st = metrics_endpoint_.start(*metrics_at_); !st.ok()) return st;
  }
  ctl_server_.emplace(ops_, log_, ctl_server_settings(options_, log_));
  ctl_server_->start();
  events_file_.emplace(
      ops_.events, log_,
      ctl::EventFileSettings{options_.events_file, std::uint64_t{options_.events_file_max_mb} << 20,
                             options_.events_file_keep, 65536});
  events_file_->start();
  return {};
}

void OperatorSide::stop() {
  if (ctl_server_) ctl_server_->stop();
  if (events_file_) events_file_->stop();
  metrics_endpoint_.stop();
}

}  // namespace ibsm::daemon
