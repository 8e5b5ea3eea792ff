#include "metrics/endpoint.hpp"

#include <httplib.h>
#include <spdlog/fmt/fmt.h>

#include <charconv>

#include "metrics/errors.hpp"
#include "metrics/exposition.hpp"

namespace ibsm::metrics {

namespace {

// Bounds on what a client may send or take (hostile requests, slowloris).
constexpr std::size_t kThreads = 2;
constexpr std::size_t kMaxHeaderLength = 8192;  // request line and headers
constexpr std::size_t kMaxBody = 0;             // GET only: no body accepted
constexpr time_t kReadTimeoutS = 5;
constexpr time_t kWriteTimeoutS = 10;
constexpr time_t kKeepAliveS = 5;

}  // namespace

Result<ListenAddress> parse_listen(const std::string& text) {
  const auto bad = [&](std::string_view why) {
    return fail(kErrMetricsListen, fmt::format("metrics_listen \"{}\": {}", text, why));
  };
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return bad("expected ADDR:PORT");
  std::string host = text.substr(0, colon);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return bad("unbalanced [ ] around the IPv6 address");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    return bad("write an IPv6 address in brackets: [::1]:9683");
  }
  const std::string port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() ||
      port == 0 || port > 65535)
    return bad("the port must be a number 1-65535");
  return ListenAddress{host, static_cast<std::uint16_t>(port)};
}

MetricsEndpoint::MetricsEndpoint(const sm::ops::OpsPublisher& snapshots, Logger log)
    : snapshots_(snapshots), log_(std::move(log)) {}

MetricsEndpoint::~MetricsEndpoint() {
  stop();
}

Status MetricsEndpoint::start(const ListenAddress& at) {
  server_ = std::make_unique<httplib::Server>();
  httplib::Server& s = *server_;
  s.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
  s.set_read_timeout(kReadTimeoutS, 0);
  s.set_write_timeout(kWriteTimeoutS, 0);
  s.set_keep_alive_timeout(kKeepAliveS);
  s.set_keep_alive_max_count(100);
  s.set_payload_max_length(kMaxBody);
  s.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    std::size_t header_bytes = req.method.size() + req.target.size();
    for (const auto& [k, v] : req.headers)
      header_bytes += k.size() + v.size() + 4;
    if (header_bytes > kMaxHeaderLength) {
      res.status = 431;
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    const auto snap = snapshots_.current();  // an atomic load: never waits for the SM
    if (!snap) {
      res.status = 503;
      res.set_content("the SM has not published its state yet\n", "text/plain");
      return;
    }
    // Streamed one family at a time (chunked): a big fabric's text is never held whole.
    auto exposition = std::make_shared<Exposition>(snap);
    auto next = std::make_shared<std::size_t>(0);
    res.set_chunked_content_provider("text/plain; version=0.0.4; charset=utf-8",
                                     [exposition, next](std::size_t, httplib::DataSink& sink) {
                                       if (*next == exposition->parts()) {
                                         sink.done();
                                         return true;
                                       }
                                       const std::string part = exposition->part((*next)++);
                                       return sink.write(part.data(), part.size());
                                     });
  });
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty())
      res.set_content(fmt::format("{}: only GET /metrics is served here\n", res.status),
                      "text/plain");
  });
  // Port 0 (tests): any free port, reported by port().
  const int bound = at.port == 0 ? s.bind_to_any_port(at.host)
                                 : (s.bind_to_port(at.host, at.port) ? at.port : -1);
  if (bound <= 0)
    return fail(kErrMetricsBind,
                fmt::format("metrics_listen: cannot listen on {}:{}", at.host, at.port));
  port_ = static_cast<std::uint16_t>(bound);
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  log_->info("Prometheus metrics on http://{}{}{}:{}/metrics",
             at.host.find(':') != std::string::npos ? "[" : "", at.host,
             at.host.find(':') != std::string::npos ? "]" : "", port_);
  return {};
}

void MetricsEndpoint::stop() {
  if (!server_) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

}  // namespace ibsm::metrics
