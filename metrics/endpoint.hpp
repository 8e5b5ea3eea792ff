// The Prometheus endpoint: a small HTTP server (cpp-httplib, Debian's
// libcpp-httplib-dev) on threads of its own that answers GET /metrics with the
// exposition of the SM's latest published OpsSnapshot, and GET / (and
// /topology.svg) with the live status page. It never locks or waits for the SM: it
// only loads the atomic snapshot pointer; what costs something on a big fabric is
// made once per snapshot by a thread of its own (precomputed.hpp). Read-only: no
// request changes anything. Hostile requests get an error or a closed connection: header size and
// count, request body and the time a client may take are bounded, and so is the
// number of server threads (docs/metrics.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/result.hpp"
#include "metrics/precomputed.hpp"
#include "sm/ops/ops_publisher.hpp"

namespace httplib {
class Server;
}

namespace ibsm::metrics {

struct ListenAddress {
  std::string host;  // without IPv6 brackets
  std::uint16_t port = 0;
};
// "127.0.0.1:9683", "[::1]:9683", "localhost:9683".
Result<ListenAddress> parse_listen(const std::string& text);

class MetricsEndpoint {
 public:
  MetricsEndpoint(const sm::ops::OpsPublisher& snapshots, Logger log);
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  // Binds and starts serving; an error (IBSM-8702) when the address cannot be bound.
  Status start(const ListenAddress& at);
  void stop();
  // The port bound (useful when started with port 0).
  std::uint16_t port() const { return port_; }

 private:
  const sm::ops::OpsPublisher& snapshots_;
  Logger log_;
  Precomputed precomputed_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::uint16_t port_ = 0;
};

}  // namespace ibsm::metrics
