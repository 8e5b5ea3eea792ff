// The Prometheus endpoint: a small HTTP server (http_server.hpp: Boost.Beast on
// Asio, one thread for every socket, a small pool for the answers) that answers GET
// /metrics with the exposition of the SM's latest published OpsSnapshot, and GET /
// (and /topology.svg) with the live status page. It never locks or waits for the SM:
// it only loads the atomic snapshot pointer; what costs something on a big fabric is
// made once per snapshot by a thread of its own (precomputed.hpp). Read-only: no
// request changes anything. Hostile clients get an error or a closed connection and
// cannot starve the others: the time to send a request, its size, the number of
// connections and the time to take an answer are bounded (http_server.hpp,
// docs/metrics.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/result.hpp"
#include "metrics/http_server.hpp"
#include "metrics/precomputed.hpp"
#include "ops/ops_publisher.hpp"

namespace ibsm::metrics {

struct ListenAddress {
  std::string host;  // without IPv6 brackets
  std::uint16_t port = 0;
};
// "127.0.0.1:9683", "[::1]:9683", "localhost:9683".
Result<ListenAddress> parse_listen(const std::string& text);

class MetricsEndpoint {
 public:
  // `limits`: the server's bounds (tests make them small).
  MetricsEndpoint(const ops::OpsPublisher& snapshots, Logger log, HttpLimits limits = {});
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  // Binds and starts serving; an error (IBSM-8702) when the address cannot be bound.
  Status start(const ListenAddress& at);
  void stop();
  // The port bound (useful when started with port 0).
  std::uint16_t port() const { return port_; }
  // What the server has counted (accepted, dropped, timed out, ...).
  HttpCounts counts() const;
  // The answer to one request (on a worker thread of the server).
  HttpAnswer answer(const HttpRequest& req);

 private:
  const ops::OpsPublisher& snapshots_;
  Logger log_;
  HttpLimits limits_;
  Precomputed precomputed_;
  std::unique_ptr<HttpServer> server_;
  std::uint16_t port_ = 0;
};

}  // namespace ibsm::metrics
