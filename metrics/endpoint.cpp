#include "metrics/endpoint.hpp"

#include <httplib.h>
#include <spdlog/fmt/fmt.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>

#include "metrics/errors.hpp"
#include "metrics/exposition.hpp"
#include "metrics/status_page.hpp"

namespace ibsm::metrics {

namespace {

// Bounds on what a client may send or take (hostile requests, slowloris).
constexpr std::size_t kThreads = 2;
constexpr std::size_t kMaxHeaderLength = 8192;  // request line and headers
constexpr std::size_t kMaxBody = 0;             // GET only: no body accepted
constexpr time_t kReadTimeoutS = 5;
constexpr time_t kWriteTimeoutS = 10;
constexpr time_t kKeepAliveS = 5;
constexpr const char* kExpositionType = "text/plain; version=0.0.4; charset=utf-8";
// The page loads nothing from anywhere: its own inline style and refresh script,
// fetches of itself.
constexpr const char* kPagePolicy =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'";

// The gzip answer: the SM's metrics compressed now, then the port counters as
// compressed in the background, as one member (gzip_join.hpp).
void serve_gzip(const std::shared_ptr<const sm::ops::OpsSnapshot>& snap,
                std::shared_ptr<const DeflatedPiece> counters, httplib::Response& res) {
  Exposition exposition(snap);
  Deflater deflater(Z_DEFAULT_COMPRESSION);
  deflater.add(exposition.part(0));
  struct Answer {
    std::string head;  // gzip header and the SM's metrics
    std::shared_ptr<const DeflatedPiece> counters;
    std::string trailer;
  };
  auto a = std::make_shared<Answer>();
  const DeflatedPiece sm_part = deflater.finish(counters == nullptr);
  a->head = gzip_header() + sm_part.bytes;
  a->trailer = gzip_trailer(sm_part, counters.get());
  a->counters = std::move(counters);
  const std::size_t middle = a->counters ? a->counters->bytes.size() : 0;
  const std::size_t total = a->head.size() + middle + a->trailer.size();
  res.set_header("Content-Encoding", "gzip");
  res.set_header("Vary", "Accept-Encoding");
  // A length-known provider: cpp-httplib does not compress those again.
  res.set_content_provider(
      total, kExpositionType,
      [a, middle](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
        constexpr std::size_t kSlice = 1 << 20;
        const std::size_t end = offset + std::min(length, kSlice);
        std::size_t at = offset;
        const auto put = [&](const std::string& part, std::size_t from) {
          if (at >= end || at < from || at >= from + part.size()) return true;
          const std::size_t n = std::min(end, from + part.size()) - at;
          if (!sink.write(part.data() + (at - from), n)) return false;
          at += n;
          return true;
        };
        const std::size_t body = a->head.size();
        return put(a->head, 0) && (!a->counters || put(a->counters->bytes, body)) &&
               put(a->trailer, body + middle);
      });
}

// cpp-httplib 0.11 gzips a body (set_content, or a chunked provider) whenever the
// request's Accept-Encoding contains "gzip", even "gzip;q=0", which refuses it (RFC 9110
// 12.5.3). A length-known provider it sends as it is: for such a client that is what
// carries the body.
bool gzip_refused_but_named(const httplib::Request& req) {
  const std::string accept = req.get_header_value("Accept-Encoding");
  return accept.find("gzip") != std::string::npos && !accepts_gzip(accept);
}

void set_body(const httplib::Request& req, httplib::Response& res, std::string body,
              const char* type) {
  if (!gzip_refused_but_named(req)) return res.set_content(std::move(body), type);
  auto held = std::make_shared<const std::string>(std::move(body));
  res.set_content_provider(
      held->size(), type, [held](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
        return sink.write(held->data() + offset, std::min(length, held->size() - offset));
      });
}

// The exposition uncompressed with a known length, for a client that refuses gzip
// but names it: one pass sums the parts' sizes, the provider makes them again one at a
// time as the writer reaches them (it asks for increasing offsets), so the text is
// never held whole.
void serve_plain_sized(const std::shared_ptr<const sm::ops::OpsSnapshot>& snap,
                       httplib::Response& res) {
  struct Stream {
    explicit Stream(std::shared_ptr<const sm::ops::OpsSnapshot> s) : exposition(std::move(s)) {}
    Exposition exposition;
    std::size_t next = 0;   // the part after `part`
    std::size_t start = 0;  // offset of `part` in the body
    std::string part;
  };
  auto st = std::make_shared<Stream>(snap);
  std::size_t total = 0;
  for (std::size_t i = 0; i < st->exposition.parts(); ++i)
    total += st->exposition.part(i).size();
  res.set_content_provider(total, kExpositionType,
                           [st](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                             while (offset >= st->start + st->part.size()) {
                               if (st->next == st->exposition.parts())
                                 return false;  // past the end
                               st->start += st->part.size();
                               st->part = st->exposition.part(st->next++);
                             }
                             if (offset < st->start)
                               return false;  // a step back: not how httplib writes
                             const std::size_t from = offset - st->start;
                             return sink.write(st->part.data() + from,
                                               std::min(length, st->part.size() - from));
                           });
}

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
    : snapshots_(snapshots), log_(std::move(log)), precomputed_(snapshots_, log_) {}

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
  s.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    const auto snap = snapshots_.current();  // an atomic load: never waits for the SM
    if (!snap) {
      res.status = 503;
      res.set_content("the SM has not published its state yet\n", "text/plain");
      return;
    }
    if (accepts_gzip(req.get_header_value("Accept-Encoding"))) {
      auto counters = precomputed_.counters_gzip(snap->perf_counters);
      if (counters || !snap->perf_counters) return serve_gzip(snap, std::move(counters), res);
      // Counters newer than the background's copy (just after a PerfMgr sweep): the
      // stream below, which cpp-httplib compresses as it goes.
    }
    if (gzip_refused_but_named(req)) return serve_plain_sized(snap, res);
    // Streamed one family at a time (chunked): a big fabric's text is never held whole.
    auto exposition = std::make_shared<Exposition>(snap);
    auto next = std::make_shared<std::size_t>(0);
    res.set_chunked_content_provider(kExpositionType,
                                     [exposition, next](std::size_t, httplib::DataSink& sink) {
                                       if (*next == exposition->parts()) {
                                         sink.done();
                                         return true;
                                       }
                                       const std::string part = exposition->part((*next)++);
                                       return sink.write(part.data(), part.size());
                                     });
  });
  const auto page = [this](const httplib::Request& req, httplib::Response& res) {
    res.set_header("Content-Security-Policy", kPagePolicy);
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Cache-Control", "no-store");
    const auto snap = snapshots_.current();
    if (!snap) {
      res.status = 503;
      res.set_content("the SM has not published its state yet\n", "text/plain");
      return;
    }
    const auto parts = precomputed_.status_parts(*snap);
    set_body(req, res, status_page(*snap, parts.get()), "text/html; charset=utf-8");
  };
  s.Get("/", page);
  s.Get("/index.html", page);
  s.Get("/topology.svg", [this](const httplib::Request& req, httplib::Response& res) {
    res.set_header("Content-Security-Policy", kPagePolicy);
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Cache-Control", "no-store");
    const auto snap = snapshots_.current();
    const auto parts = snap ? precomputed_.status_parts(*snap) : nullptr;
    if (!parts || parts->svg.empty()) {
      res.status = 503;
      res.set_content("no fabric yet\n", "text/plain");
      return;
    }
    set_body(req, res, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + parts->svg,
             "image/svg+xml");
  });
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty())
      res.set_content(
          fmt::format("{}: only GET /, /topology.svg and /metrics are served here\n", res.status),
          "text/plain");
  });
  // Port 0 (tests): any free port, reported by port().
  const int bound = at.port == 0 ? s.bind_to_any_port(at.host)
                                 : (s.bind_to_port(at.host, at.port) ? at.port : -1);
  if (bound <= 0)
    return fail(kErrMetricsBind,
                fmt::format("metrics_listen: cannot listen on {}:{}", at.host, at.port));
  port_ = static_cast<std::uint16_t>(bound);
  precomputed_.start();
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  const std::string base =
      fmt::format("http://{}{}{}:{}", at.host.find(':') != std::string::npos ? "[" : "", at.host,
                  at.host.find(':') != std::string::npos ? "]" : "", port_);
  log_->info("Prometheus metrics on {}/metrics, status page on {}/", base, base);
  return {};
}

void MetricsEndpoint::stop() {
  precomputed_.stop();
  if (!server_) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

}  // namespace ibsm::metrics
