#include "metrics/endpoint.hpp"

#include <spdlog/fmt/fmt.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>

#include "metrics/errors.hpp"
#include "metrics/exposition.hpp"
#include "metrics/status_page.hpp"

namespace ibsm::metrics {

namespace {

constexpr const char* kExpositionType = "text/plain; version=0.0.4; charset=utf-8";
// The page loads nothing from anywhere: its own inline style and refresh script,
// fetches of itself.
constexpr const char* kPagePolicy =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'";

HttpAnswer text_answer(int status, std::string text) {
  HttpAnswer a;
  a.status = status;
  a.headers = {{"Content-Type", "text/plain"}};
  a.body = std::move(text);
  return a;
}

HttpAnswer not_yet() {
  return text_answer(503, "the SM has not published its state yet\n");
}

// One gzip member of a whole text.
std::string gzip_whole(std::string_view text) {
  Deflater deflater(Z_DEFAULT_COMPRESSION);
  deflater.add(text);
  const DeflatedPiece piece = deflater.finish(true);
  return gzip_header() + piece.bytes + gzip_trailer(piece, nullptr);
}

// A page or picture, compressed when the client allows it (gzip;q=0 refuses it).
HttpAnswer document(const HttpRequest& req, std::string body, const char* type) {
  HttpAnswer a;
  a.headers = {{"Content-Type", type},
               {"Content-Security-Policy", kPagePolicy},
               {"X-Content-Type-Options", "nosniff"},
               {"Cache-Control", "no-store"}};
  if (accepts_gzip(req.header("Accept-Encoding"))) {
    a.headers.emplace_back("Content-Encoding", "gzip");
    a.headers.emplace_back("Vary", "Accept-Encoding");
    a.body = gzip_whole(body);
  } else {
    a.body = std::move(body);
  }
  return a;
}

// The gzip answer: the SM's metrics compressed now, then the port counters as
// compressed in the background, as one member (gzip_join.hpp), sent as three pieces
// without copying the counters.
HttpAnswer serve_gzip(const std::shared_ptr<const ops::OpsSnapshot>& snap,
                      std::shared_ptr<const DeflatedPiece> counters) {
  Exposition exposition(snap);
  Deflater deflater(Z_DEFAULT_COMPRESSION);
  deflater.add(exposition.part(0));
  const DeflatedPiece sm_part = deflater.finish(counters == nullptr);
  std::vector<HttpPiece> pieces;
  pieces.push_back(HttpPiece::of(gzip_header() + sm_part.bytes));
  if (counters) pieces.push_back(HttpPiece{counters, std::string_view(counters->bytes)});
  pieces.push_back(HttpPiece::of(gzip_trailer(sm_part, counters.get())));
  HttpAnswer a;
  a.headers = {
      {"Content-Type", kExpositionType}, {"Content-Encoding", "gzip"}, {"Vary", "Accept-Encoding"}};
  std::size_t total = 0;
  for (const auto& p : pieces)
    total += p.bytes.size();
  a.length = total;
  auto next = std::make_shared<std::size_t>(0);
  auto held = std::make_shared<std::vector<HttpPiece>>(std::move(pieces));
  a.stream = [held, next]() -> std::optional<HttpPiece> {
    if (*next == held->size()) return std::nullopt;
    return (*held)[(*next)++];
  };
  return a;
}

// The exposition uncompressed, one family at a time (chunked): a big fabric's text is
// never held whole.
HttpAnswer serve_plain(const std::shared_ptr<const ops::OpsSnapshot>& snap) {
  HttpAnswer a;
  a.headers = {{"Content-Type", kExpositionType}};
  auto exposition = std::make_shared<Exposition>(snap);
  auto next = std::make_shared<std::size_t>(0);
  a.stream = [exposition, next]() -> std::optional<HttpPiece> {
    if (*next == exposition->parts()) return std::nullopt;
    return HttpPiece::of(exposition->part((*next)++));
  };
  return a;
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

MetricsEndpoint::MetricsEndpoint(const ops::OpsPublisher& snapshots, Logger log, HttpLimits limits)
    : snapshots_(snapshots),
      log_(std::move(log)),
      limits_(limits),
      precomputed_(snapshots_, log_) {}

MetricsEndpoint::~MetricsEndpoint() {
  stop();
}

HttpAnswer MetricsEndpoint::answer(const HttpRequest& req) {
  if (req.method != "GET" && req.method != "HEAD") {
    HttpAnswer a = text_answer(405, "405: only GET and HEAD are served here\n");
    a.headers.emplace_back("Allow", "GET, HEAD");
    return a;
  }
  if (req.path == "/metrics") {
    const auto snap = snapshots_.current();  // an atomic load: never waits for the SM
    if (!snap) return not_yet();
    if (accepts_gzip(req.header("Accept-Encoding"))) {
      auto counters = precomputed_.counters_gzip(snap->perf_counters);
      if (counters || !snap->perf_counters) return serve_gzip(snap, std::move(counters));
      // Counters newer than the background's copy (just after a PerfMgr sweep): the
      // whole exposition compressed now, quickly (without Vary, as a sign for the tests).
      Exposition exposition(snap);
      Deflater deflater(kCountersGzipLevel);
      for (std::size_t i = 0; i < exposition.parts(); ++i)
        deflater.add(exposition.part(i));
      const DeflatedPiece piece = deflater.finish(true);
      HttpAnswer a;
      a.headers = {{"Content-Type", kExpositionType}, {"Content-Encoding", "gzip"}};
      a.body = gzip_header() + piece.bytes + gzip_trailer(piece, nullptr);
      return a;
    }
    return serve_plain(snap);
  }
  if (req.path == "/" || req.path == "/index.html") {
    const auto snap = snapshots_.current();
    if (!snap) return not_yet();
    const auto parts = precomputed_.status_parts(*snap);
    return document(req, status_page(*snap, parts.get()), "text/html; charset=utf-8");
  }
  if (req.path == "/topology.svg") {
    const auto snap = snapshots_.current();
    const auto parts = snap ? precomputed_.status_parts(*snap) : nullptr;
    if (!parts || parts->svg.empty()) return text_answer(503, "no fabric yet\n");
    return document(req, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + parts->svg,
                    "image/svg+xml");
  }
  return text_answer(404, "404: only GET /, /topology.svg and /metrics are served here\n");
}

Status MetricsEndpoint::start(const ListenAddress& at) {
  server_ = std::make_unique<HttpServer>(
      limits_, [this](const HttpRequest& req) { return answer(req); }, log_);
  auto bound = server_->start(at.host, at.port);
  if (!bound.ok()) {
    server_.reset();
    return fail(bound.error());
  }
  port_ = bound.value();
  precomputed_.start();
  const bool v6 = at.host.find(':') != std::string::npos;
  const std::string base =
      fmt::format("http://{}{}{}:{}", v6 ? "[" : "", at.host, v6 ? "]" : "", port_);
  log_->info("Prometheus metrics on {}/metrics, status page on {}/", base, base);
  return {};
}

void MetricsEndpoint::stop() {
  if (server_) server_->stop();
  precomputed_.stop();
  server_.reset();
}

HttpCounts MetricsEndpoint::counts() const {
  return server_ ? server_->counts() : HttpCounts{};
}

}  // namespace ibsm::metrics
