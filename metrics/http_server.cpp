#include "metrics/http_server.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/status.hpp>
#include <deque>
#include <list>
#include <mutex>
#include <thread>

#include "common/log_limit.hpp"
#include "metrics/errors.hpp"

namespace ibsm::metrics {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using SteadyTime = std::chrono::steady_clock::time_point;

namespace {

// An answer is handed to the socket in slices of at most this size, each with its own
// stall timer: a client that stops reading holds at most one slice of the server's time.
constexpr std::size_t kSlice = 256 * 1024;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);
         });
}

std::string error_text(int status, std::string_view why) {
  return fmt::format("{} {}\n", status, why);
}

}  // namespace

std::string HttpRequest::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (iequals(k, name)) return v;
  return {};
}

HttpPiece HttpPiece::of(std::string s) {
  auto held = std::make_shared<const std::string>(std::move(s));
  return HttpPiece{held, std::string_view(*held)};
}

class HttpConnection;

struct HttpServer::Impl {
  Impl(HttpLimits l, HttpHandler h, Logger lg)
      : limits(l),
        handler(std::move(h)),
        log(std::move(lg)),
        pool(std::max<std::size_t>(limits.workers, 1)),
        shed_note(limits.log_interval, 1),
        refused_note(limits.log_interval, 1) {}

  void accept();
  void admit(tcp::socket socket);
  // Logs a dropped or refused connection or request, rate-limited per kind.
  void note_shed(std::string_view what, const std::string& peer);
  void note_refused(std::string_view what, const std::string& peer);

  HttpLimits limits;
  HttpHandler handler;
  Logger log;
  // Connections by age of the wait for their request head, oldest first; the io
  // thread's alone. Declared before io so that connections destroyed with io's
  // pending handlers still find it.
  std::list<HttpConnection*> conns;
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_retry{io};
  asio::thread_pool pool;
  std::thread thread;
  LogLimit shed_note, refused_note;  // one line per log_interval each
  mutable std::mutex counts_mu;
  HttpCounts counts;
  std::atomic<bool> stopped{false};  // set by stop(), read on the io thread
};

// One client connection; every member function runs on the io thread except the
// handler and stream calls it posts to the pool.
class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(HttpServer::Impl& server, tcp::socket socket)
      : s_(server),
        socket_(std::move(socket)),
        timer_(s_.io),
        buffer_(s_.limits.max_header_bytes + 1024) {
    beast::error_code ec;
    const auto ep = socket_.remote_endpoint(ec);
    peer_ = ec ? std::string("?")
               : (ep.address().is_v6() ? fmt::format("[{}]:{}", ep.address().to_string(), ep.port())
                                       : fmt::format("{}:{}", ep.address().to_string(), ep.port()));
    socket_.set_option(tcp::no_delay(true), ec);
    place_ = s_.conns.insert(s_.conns.end(), this);
  }
  ~HttpConnection() { close(); }

  // Whether the connection waits for a request head (and may be dropped for a new one).
  bool waiting() const { return waiting_ && !closed_; }
  SteadyTime waiting_since() const { return waiting_since_; }
  const std::string& peer() const { return peer_; }

  void read_request() {
    if (closed_) return;
    if (served_ >= s_.limits.max_requests) return close();
    waiting_ = true;
    waiting_since_ = std::chrono::steady_clock::now();
    // Back of the list: the newest wait.
    s_.conns.splice(s_.conns.end(), s_.conns, place_);
    arm(waiting_since_ + s_.limits.request_deadline, Phase::kRequest);
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(s_.limits.max_header_bytes));
    parser_->body_limit(0);
    bhttp::async_read_header(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_head(ec); });
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    waiting_ = false;
    beast::error_code ec;
    timer_.cancel();
    socket_.close(ec);
    s_.conns.erase(place_);
    const std::lock_guard lock(s_.counts_mu);
    --s_.counts.open;
  }

 private:
  enum class Phase { kRequest, kAnswer };

  void arm(SteadyTime deadline, Phase phase) {
    const std::uint64_t gen = ++timer_gen_;
    timer_.expires_at(deadline);
    timer_.async_wait([self = shared_from_this(), gen, phase](beast::error_code ec) {
      if (ec || gen != self->timer_gen_ || self->closed_) return;
      self->on_deadline(phase);
    });
  }

  void on_deadline(Phase phase) {
    {
      const std::lock_guard lock(s_.counts_mu);
      ++(phase == Phase::kRequest ? s_.counts.timed_out : s_.counts.slow_readers);
    }
    // An idle keep-alive connection that sent nothing more is not worth a log line.
    const bool idle = phase == Phase::kRequest && served_ > 0 && buffer_.size() == 0;
    if (!idle)
      s_.note_refused(phase == Phase::kRequest
                          ? fmt::format("request head not complete within {} ms",
                                        s_.limits.request_deadline.count())
                          : std::string("the answer was not taken in time"),
                      peer_);
    close();
  }

  void on_head(beast::error_code ec) {
    waiting_ = false;
    if (closed_) return;
    if (ec == bhttp::error::end_of_stream || ec == asio::error::eof ||
        ec == asio::error::connection_reset || ec == asio::error::operation_aborted)
      return close();
    if (ec == bhttp::error::header_limit || ec == bhttp::error::buffer_overflow) {
      {
        const std::lock_guard lock(s_.counts_mu);
        ++s_.counts.too_large;
      }
      s_.note_refused(fmt::format("request head over {} bytes (431)", s_.limits.max_header_bytes),
                      peer_);
      return send_error(431, "request header fields too large");
    }
    if (ec == bhttp::error::body_limit) return send_error(413, "no request body is accepted here");
    if (ec) return send_error(400, "bad request");
    const auto& msg = parser_->get();
    if (msg.chunked() ||
        (msg.has_content_length() && parser_->content_length() && *parser_->content_length() > 0))
      return send_error(413, "no request body is accepted here");
    HttpRequest req;
    req.method = std::string(msg.method_string());
    const std::string target(msg.target());
    req.path = target.substr(0, target.find('?'));
    for (const auto& f : msg)
      req.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
    keep_alive_ = msg.keep_alive() && served_ + 1 < s_.limits.max_requests;
    head_only_ = req.method == "HEAD";
    ++served_;
    arm(std::chrono::steady_clock::now() + s_.limits.answer_deadline, Phase::kAnswer);
    answer_end_ = std::chrono::steady_clock::now() + s_.limits.answer_deadline;
    asio::post(s_.pool, [self = shared_from_this(), req = std::move(req)]() mutable {
      HttpAnswer a;
      try {
        a = self->s_.handler(req);
      } catch (const std::exception& e) {
        a = HttpAnswer{};
        a.status = 500;
        a.headers = {{"Content-Type", "text/plain"}};
        a.body = error_text(500, e.what());
      } catch (...) {
        a = HttpAnswer{};
        a.status = 500;
        a.headers = {{"Content-Type", "text/plain"}};
        a.body = error_text(500, "internal error");
      }
      auto& io = self->s_.io;
      asio::post(
          io, [self = std::move(self), a = std::move(a)]() mutable { self->send(std::move(a)); });
    });
  }

  void send_error(int status, std::string_view why) {
    keep_alive_ = false;
    head_only_ = false;
    answer_end_ = std::chrono::steady_clock::now() + s_.limits.answer_deadline;
    HttpAnswer a;
    a.status = status;
    a.headers = {{"Content-Type", "text/plain"}};
    a.body = error_text(status, why);
    send(std::move(a));
  }

  void send(HttpAnswer a) {
    if (closed_) return;
    const bool chunked = a.stream && !a.length;
    std::string head =
        fmt::format("HTTP/1.1 {} {}\r\n", a.status,
                    std::string(bhttp::obsolete_reason(static_cast<bhttp::status>(a.status))));
    for (const auto& [k, v] : a.headers)
      head += fmt::format("{}: {}\r\n", k, v);
    if (chunked)
      head += "Transfer-Encoding: chunked\r\n";
    else
      head += fmt::format("Content-Length: {}\r\n", a.stream ? *a.length : a.body.size());
    head += keep_alive_ ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
    if (!head_only_ && !a.stream) head += a.body;
    chunked_ = chunked;
    stream_ = head_only_ ? nullptr : std::move(a.stream);
    out_.push_back(HttpPiece::of(std::move(head)));
    out_at_ = 0;
    write_slice();
  }

  // Writes what is left of out_, a slice at a time, then asks for the next piece.
  void write_slice() {
    if (closed_) return;
    while (!out_.empty() && out_at_ == out_.front().bytes.size()) {
      out_.pop_front();
      out_at_ = 0;
    }
    if (out_.empty()) return next_piece();
    const std::string_view bytes = out_.front().bytes;
    const std::size_t n = std::min(kSlice, bytes.size() - out_at_);
    arm(std::min(answer_end_, std::chrono::steady_clock::now() + s_.limits.write_stall),
        Phase::kAnswer);
    asio::async_write(socket_, asio::buffer(bytes.data() + out_at_, n),
                      [self = shared_from_this()](beast::error_code ec, std::size_t written) {
                        if (ec) return self->close();
                        self->out_at_ += written;
                        self->write_slice();
                      });
  }

  void next_piece() {
    if (!stream_) return finished();
    asio::post(s_.pool, [self = shared_from_this()]() mutable {
      std::optional<HttpPiece> piece;
      bool failed = false;
      try {
        piece = self->stream_();
      } catch (...) {
        failed = true;  // the body is cut short: closing says so, an end chunk would not
      }
      auto& io = self->s_.io;
      asio::post(io, [self = std::move(self), piece = std::move(piece), failed]() mutable {
        if (failed) return self->close();
        self->on_piece(std::move(piece));
      });
    });
  }

  void on_piece(std::optional<HttpPiece> piece) {
    if (closed_) return;
    if (!piece) {
      stream_ = nullptr;
      if (!chunked_) return finished();
      out_.push_back(HttpPiece::of("0\r\n\r\n"));
    } else if (chunked_) {
      if (piece->bytes.empty()) return next_piece();  // an empty chunk would end the body
      // The piece is sent as it is, between its chunk's size and end (no copy).
      out_.push_back(HttpPiece::of(fmt::format("{:x}\r\n", piece->bytes.size())));
      out_.push_back(std::move(*piece));
      out_.push_back(HttpPiece::of("\r\n"));
    } else {
      out_.push_back(std::move(*piece));
    }
    out_at_ = 0;
    write_slice();
  }

  void finished() {
    {
      const std::lock_guard lock(s_.counts_mu);
      ++s_.counts.answered;
    }
    out_.clear();
    if (!keep_alive_) {
      beast::error_code ec;
      socket_.shutdown(tcp::socket::shutdown_send, ec);
      return close();
    }
    read_request();
  }

  HttpServer::Impl& s_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  std::uint64_t timer_gen_ = 0;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::empty_body>> parser_;
  std::string peer_;
  std::list<HttpConnection*>::iterator place_;
  bool closed_ = false;
  bool waiting_ = false;
  SteadyTime waiting_since_{};
  SteadyTime answer_end_{};
  std::size_t served_ = 0;
  bool keep_alive_ = false;
  bool head_only_ = false;
  bool chunked_ = false;
  std::function<std::optional<HttpPiece>()> stream_;
  std::deque<HttpPiece> out_;  // what is still to be written, in order
  std::size_t out_at_ = 0;     // bytes of out_.front() written
};

void HttpServer::Impl::note_shed(std::string_view what, const std::string& peer) {
  if (shed_note.allow(std::chrono::steady_clock::now()))
    log->warn("{}: metrics endpoint: {} (peer {}); {} since the previous such line",
              format_error_id(kErrMetricsShed), what, peer, shed_note.suppressed() + 1);
}

void HttpServer::Impl::note_refused(std::string_view what, const std::string& peer) {
  if (refused_note.allow(std::chrono::steady_clock::now()))
    log->warn("{}: metrics endpoint: {} (peer {}); {} since the previous such line",
              format_error_id(kErrMetricsRequestRefused), what, peer,
              refused_note.suppressed() + 1);
}

void HttpServer::Impl::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (stopped || ec == asio::error::operation_aborted) return;
    if (ec) {
      // Out of descriptors (or the like): try again shortly rather than spin.
      accept_retry.expires_after(std::chrono::milliseconds(100));
      accept_retry.async_wait([this](beast::error_code e) {
        if (!e && !stopped) accept();
      });
      return;
    }
    admit(std::move(socket));
    accept();
  });
}

void HttpServer::Impl::admit(tcp::socket socket) {
  if (conns.size() >= limits.max_connections) {
    // The connection that has waited longest for its request head makes room.
    HttpConnection* oldest = nullptr;
    for (HttpConnection* c : conns)
      if (c->waiting() && (!oldest || c->waiting_since() < oldest->waiting_since())) oldest = c;
    if (oldest == nullptr) {
      beast::error_code ec;
      const auto ep = socket.remote_endpoint(ec);
      socket.close(ec);
      {
        const std::lock_guard lock(counts_mu);
        ++counts.refused;
      }
      note_shed(
          fmt::format("refused a connection: all {} are being answered", limits.max_connections),
          ec ? std::string("?") : ep.address().to_string());
      return;
    }
    {
      const std::lock_guard lock(counts_mu);
      ++counts.dropped;
    }
    note_shed(fmt::format("{} connections open: dropped the one waiting longest for its request",
                          limits.max_connections),
              oldest->peer());
    oldest->close();
  }
  {
    const std::lock_guard lock(counts_mu);
    ++counts.accepted;
    ++counts.open;
  }
  std::make_shared<HttpConnection>(*this, std::move(socket))->read_request();
}

HttpServer::HttpServer(HttpLimits limits, HttpHandler handler, Logger log)
    : impl_(std::make_unique<Impl>(limits, std::move(handler), std::move(log))) {}

HttpServer::~HttpServer() {
  stop();
}

Result<std::uint16_t> HttpServer::start(const std::string& host, std::uint16_t port) {
  Impl& s = *impl_;
  const auto cannot = [&](const std::string& why) {
    return fail(kErrMetricsBind,
                fmt::format("metrics_listen: cannot listen on {}:{}: {}", host, port, why));
  };
  beast::error_code ec;
  tcp::resolver resolver(s.io);
  const auto found = resolver.resolve(host, std::to_string(port),
                                      tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || found.empty()) return cannot(ec ? ec.message() : "no address");
  const tcp::endpoint at = found.begin()->endpoint();
  s.acceptor.open(at.protocol(), ec);
  if (!ec) s.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(at, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    beast::error_code ignored;
    s.acceptor.close(ignored);
    return cannot(ec.message());
  }
  const std::uint16_t bound = s.acceptor.local_endpoint(ec).port();
  s.accept();
  s.thread = std::thread([&s] {
    for (;;) {
      try {
        s.io.run();
        return;
      } catch (const std::exception& e) {  // a bug; the endpoint keeps serving
        s.log->error("metrics endpoint: {}", e.what());
      }
    }
  });
  return bound;
}

void HttpServer::stop() {
  Impl& s = *impl_;
  if (s.stopped) return;
  s.stopped = true;
  if (s.thread.joinable()) {
    asio::post(s.io, [&s] {
      beast::error_code ec;
      s.acceptor.close(ec);
      s.accept_retry.cancel();
      // Closing may free a connection, which takes it off the list.
      while (!s.conns.empty())
        s.conns.front()->close();
      s.io.stop();
    });
    s.thread.join();
  }
  s.pool.stop();
  s.pool.join();
}

HttpCounts HttpServer::counts() const {
  const std::lock_guard lock(impl_->counts_mu);
  return impl_->counts;
}

}  // namespace ibsm::metrics
