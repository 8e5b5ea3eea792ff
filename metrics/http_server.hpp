// The endpoint's HTTP/1.1 server (Boost.Beast's parser on Boost.Asio, Debian's
// libboost-dev, header only): one thread does every socket read, write and timer,
// so a client that holds a connection open costs a socket and a few KiB, never a
// thread; answers are made on a small worker pool. Built so that no client can
// starve another (docs/metrics.md, "Security stance"):
//   - every request head must arrive whole within `request_deadline` of the moment
//     the server starts waiting for it (not reset per byte: a slowloris client that
//     sends a header line every second is closed at the deadline);
//   - request line and headers are at most `max_header_bytes` (431, then closed);
//   - at most `max_connections` are open; a new one over the cap takes the place of the
//     connection that has waited longest for its request head (a slow or idle one),
//     and only when every open connection is being answered is the new one refused;
//   - an answer is written in slices, each of which the client must take within
//     `write_stall`, and the whole answer within `answer_deadline`;
//   - no request body is read (413), and a connection serves at most
//     `max_requests` requests.
// Refused and dropped connections are logged (IBSM-8704, IBSM-8705) at most once per
// `log_interval` each, with a count and the last peer's address.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/log.hpp"
#include "common/result.hpp"

namespace ibsm::metrics {

struct HttpLimits {
  std::size_t max_connections = 256;
  std::size_t max_header_bytes = 8192;  // request line and headers
  std::chrono::milliseconds request_deadline{10000};
  std::chrono::milliseconds write_stall{10000};  // per slice of the answer
  std::chrono::milliseconds answer_deadline{120000};
  std::size_t max_requests = 100;  // per connection (keep-alive)
  std::size_t workers = 2;         // threads that make answers
  std::chrono::milliseconds log_interval{10000};
};

struct HttpRequest {
  std::string method;  // "GET", "HEAD", ...
  std::string path;    // the target without its query
  std::vector<std::pair<std::string, std::string>> headers;
  std::string header(std::string_view name) const;  // "" when absent; case-insensitive
};

// Bytes of an answer and whatever keeps them alive.
struct HttpPiece {
  std::shared_ptr<const void> owner;
  std::string_view bytes;
  static HttpPiece of(std::string s);
};

struct HttpAnswer {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;  // Content-Type among them
  std::string body;
  // When set, the body instead: pieces until nullopt, called on a worker thread as the
  // client takes them. Sent with Content-Length when `length` is known, else chunked.
  std::function<std::optional<HttpPiece>()> stream;
  std::optional<std::size_t> length;
};

// Made on a worker thread for each request; must not throw (an exception gets 500).
using HttpHandler = std::function<HttpAnswer(const HttpRequest&)>;

// What the server counts (tests, and the reasons behind IBSM-8704/8705).
struct HttpCounts {
  std::uint64_t accepted = 0;
  std::uint64_t refused = 0;       // over the cap with nothing to drop
  std::uint64_t dropped = 0;       // closed to make room for a new connection
  std::uint64_t timed_out = 0;     // request head not whole by its deadline
  std::uint64_t too_large = 0;     // head over max_header_bytes
  std::uint64_t slow_readers = 0;  // answer not taken in time
  std::uint64_t answered = 0;
  std::size_t open = 0;
};

class HttpServer {
 public:
  HttpServer(HttpLimits limits, HttpHandler handler, Logger log);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds host:port (port 0: any free port) and starts serving; the port bound, or
  // the reason it could not bind.
  Result<std::uint16_t> start(const std::string& host, std::uint16_t port);
  void stop();
  HttpCounts counts() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibsm::metrics
