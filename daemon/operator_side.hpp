// The operator side of the daemon, wired to the SM's operator seam (ops/): the
// Prometheus endpoint (metrics/), ibsm-ctl's socket with OpenSM's console, and the
// events file (ctl/). Each runs on threads of its own reading published snapshots,
// so none of them can hold up a sweep.
#pragma once

#include <optional>

#include "common/log.hpp"
#include "common/result.hpp"
#include "conf/options.hpp"
#include "ctl/event_file.hpp"
#include "ctl/server.hpp"
#include "metrics/endpoint.hpp"
#include "ops/ops.hpp"

namespace ibsm::daemon {

// metrics_listen as ADDR:PORT; none when the option is empty. Checked before the SM
// touches the fabric: an address in error stops the start.
Result<std::optional<metrics::ListenAddress>> metrics_listen_address(const conf::Options& options);

// ibsm-ctl's socket (the default one per port GUID unless ctl_socket names one or is
// "none") and the console settings. Logs that a local console needs the foreground.
ctl::ServerSettings ctl_server_settings(const conf::Options& options, const Logger& log);

class OperatorSide {
 public:
  OperatorSide(ops::Ops& ops, const Logger& log, const conf::Options& options,
               std::optional<metrics::ListenAddress> metrics_at);
  OperatorSide(const OperatorSide&) = delete;
  OperatorSide& operator=(const OperatorSide&) = delete;

  // Starts the metrics endpoint (when an address was given), then the control server
  // and the events file. An endpoint that cannot listen stops the start: its error is
  // returned and nothing else is started. The control server logs what it could not open.
  Status start();
  void stop();

 private:
  ops::Ops& ops_;
  Logger log_;
  const conf::Options& options_;
  std::optional<metrics::ListenAddress> metrics_at_;
  metrics::MetricsEndpoint metrics_endpoint_;
  std::optional<ctl::ControlServer> ctl_server_;
  std::optional<ctl::EventFileWriter> events_file_;
};

}  // namespace ibsm::daemon
