// The endpoint against clients that try to starve it, on a loopback port: slowloris
// connections, an endless header line, more connections than the cap, a client that
// trickles its request past the deadline and one that never reads its answer. Each
// legitimate scrape must still be answered quickly. Waits are polls with deadlines;
// the only sleeps pace the attacking clients.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <sstream>
#include <thread>
#include <vector>

#include "metrics/endpoint.hpp"
#include "metrics/errors.hpp"
#include "metrics/exposition.hpp"
#include "tests/support/log_capture.hpp"

namespace ibsm::metrics {
namespace {

using Steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::shared_ptr<ops::OpsSnapshot> small_snapshot(std::size_t ports = 2) {
  auto s = std::make_shared<ops::OpsSnapshot>();
  s->version = "0.1.0";
  s->state = mad::SmState::kMaster;
  s->perfmgr_enabled = true;
  auto c = std::make_shared<perfmgr::CounterSnapshot>();
  for (std::size_t i = 0; i < ports; ++i) {
    perfmgr::PortCounterRow r;
    r.guid = 0x0008f10400411a08ull + i / 36;
    r.name = "leaf " + std::to_string(i / 36);
    r.is_switch = true;
    r.port = static_cast<std::uint8_t>(i % 36 + 1);
    c->ports.push_back(r);
  }
  s->perf_counters = c;
  return s;
}

// A client socket to 127.0.0.1:port, closed when it goes.
class Sock {
 public:
  explicit Sock(std::uint16_t port, int rcvbuf = 0) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
  }
  ~Sock() {
    if (fd_ >= 0) ::close(fd_);
  }
  Sock(const Sock&) = delete;
  Sock& operator=(const Sock&) = delete;
  bool connected() const { return connected_; }
  // Sends what the socket takes now; false once the peer has closed.
  bool send_some(const std::string& bytes) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    return n >= 0 || errno == EAGAIN || errno == EWOULDBLOCK;
  }
  // Reads what has come; true once the peer has closed (EOF or reset).
  bool drain(std::string* into = nullptr) {
    char buf[4096];
    for (int i = 0; i < 64; ++i) {
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0) return true;
      if (n < 0) return errno != EAGAIN && errno != EWOULDBLOCK;
      if (into) into->append(buf, static_cast<std::size_t>(n));
    }
    return false;
  }
  // The first n bytes come (or what came within `within`), left unread.
  std::string peek(std::size_t n, milliseconds within) {
    std::string got(n, '\0');
    const auto end = Steady::now() + within;
    ssize_t have = 0;
    while (Steady::now() < end) {
      pollfd p{fd_, POLLIN, 0};
      ::poll(&p, 1, 20);
      have = ::recv(fd_, got.data(), n, MSG_PEEK);
      if (have >= static_cast<ssize_t>(n) || have == 0) break;
    }
    got.resize(static_cast<std::size_t>(std::max<ssize_t>(have, 0)));
    return got;
  }
  // Waits up to `within` for the peer to close; what it sent meanwhile goes to `into`.
  bool closed_within(milliseconds within, std::string* into = nullptr) {
    const auto end = Steady::now() + within;
    while (Steady::now() < end) {
      pollfd p{fd_, POLLIN, 0};
      const auto left = std::chrono::duration_cast<milliseconds>(end - Steady::now()).count();
      ::poll(&p, 1, static_cast<int>(std::max<long>(left, 1)));
      if (drain(into)) return true;
    }
    return false;
  }

 private:
  int fd_;
  bool connected_ = false;
};

// Seconds a GET of `path` took to be answered 200, or a negative number on failure.
double timed_get(std::uint16_t port, const std::string& path) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(5, 0);
  c.set_read_timeout(5, 0);
  const auto t0 = Steady::now();
  auto r = c.Get(path.c_str());
  const double secs = std::chrono::duration<double>(Steady::now() - t0).count();
  if (!r || r->status != 200 || r->body.empty()) return -1;
  return secs;
}

class Hostile : public ::testing::Test {
 protected:
  void start(HttpLimits limits) {
    endpoint_ = std::make_unique<MetricsEndpoint>(
        publisher_, testsupport::capture_log(log_text_, "metrics", spdlog::level::info), limits);
    ASSERT_TRUE(endpoint_->start({"127.0.0.1", 0}).ok());
    port_ = endpoint_->port();
  }
  // The log, once the server has stopped writing it.
  std::string stopped_log() {
    endpoint_->stop();
    return log_text_.str();
  }
  // Polls the server's counts until `cond` holds, up to `within`.
  template <class Cond>
  bool counts_reach(Cond cond, milliseconds within) {
    const auto end = Steady::now() + within;
    while (!cond(endpoint_->counts()))
      if (Steady::now() >= end)
        return false;
      else
        std::this_thread::sleep_for(milliseconds(2));  // a poll, not a wait for a guess
    return true;
  }
  ops::OpsPublisher publisher_;
  std::ostringstream log_text_;
  std::unique_ptr<MetricsEndpoint> endpoint_;
  std::uint16_t port_ = 0;
};

// The attack: 50 slowloris clients that keep sending header lines and one that
// sends an endless header line. Both /metrics and / answer within 2 s, several times
// over while the attack goes on. (cpp-httplib 0.11's 2 threads took each slow client
// for up to 5 s: the scrape waited its read timeout and failed.)
TEST_F(Hostile, FiftySlowClientsAndAnEndlessHeaderDoNotStarveScrapes) {
  start({});
  publisher_.publish(small_snapshot());
  std::vector<std::unique_ptr<Sock>> slow;
  for (int i = 0; i < 50; ++i) {
    slow.push_back(std::make_unique<Sock>(port_));
    ASSERT_TRUE(slow.back()->connected());
    slow.back()->send_some("GET /metrics HTTP/1.1\r\nHost: x\r\n");
  }
  Sock endless(port_);
  ASSERT_TRUE(endless.connected());
  endless.send_some("GET / HTTP/1.1\r\nX-Endless: ");
  const std::string line(1024, 'a');
  for (int round = 0; round < 4; ++round) {
    // The attackers' next step: a header line from each slow client, 16 KiB more of
    // the endless one (it is refused after 8 KiB; sending then fails or is discarded).
    for (auto& s : slow)
      s->send_some("X-Slow: " + std::to_string(round) + "\r\n");
    for (int k = 0; k < 16; ++k)
      endless.send_some(line);
    const double metrics = timed_get(port_, "/metrics");
    const double page = timed_get(port_, "/");
    EXPECT_GE(metrics, 0) << "round " << round;
    EXPECT_LT(metrics, 2.0) << "round " << round;
    EXPECT_GE(page, 0) << "round " << round;
    EXPECT_LT(page, 2.0) << "round " << round;
    std::printf("round %d: /metrics %.3f s, / %.3f s\n", round, metrics, page);
  }
  std::string said;
  EXPECT_TRUE(endless.closed_within(milliseconds(2000), &said));
  if (!said.empty()) {
    EXPECT_EQ(said.rfind("HTTP/1.1 431 ", 0), 0u) << said;
  }
  EXPECT_GE(endpoint_->counts().too_large, 1u);
  EXPECT_NE(stopped_log().find("IBSM-8705"), std::string::npos);
}

// 8 KiB of request line and headers is the most: one byte less is served, more is
// answered 431 and closed, and the server goes on serving.
TEST_F(Hostile, HeaderBytesAreCapped) {
  start({});
  publisher_.publish(small_snapshot());
  const std::string head = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Pad: ";
  const auto request = [&](std::size_t total) {
    return head + std::string(total - head.size() - 4, 'p') + "\r\n\r\n";
  };
  std::string fits, over;
  {
    Sock s(port_);
    s.send_some(request(8000));
    s.closed_within(milliseconds(1500), &fits);
  }
  EXPECT_EQ(fits.rfind("HTTP/1.1 200 ", 0), 0u) << fits.substr(0, 200);
  {
    Sock s(port_);
    s.send_some(request(9000));
    EXPECT_TRUE(s.closed_within(milliseconds(2000), &over));
  }
  EXPECT_EQ(over.rfind("HTTP/1.1 431 ", 0), 0u) << over;
  EXPECT_GE(timed_get(port_, "/metrics"), 0);
}

// With the cap filled by clients that never finish their request, a new client still
// gets its answer: the connection that has waited longest is dropped for it, with a
// rate-limited IBSM-8704.
TEST_F(Hostile, OverTheCapTheOldestWaitingConnectionMakesRoom) {
  HttpLimits limits;
  limits.max_connections = 8;
  start(limits);
  publisher_.publish(small_snapshot());
  std::vector<std::unique_ptr<Sock>> slow;
  for (int i = 0; i < 8; ++i) {
    slow.push_back(std::make_unique<Sock>(port_));
    slow.back()->send_some("GET / HTTP/1.1\r\n");
    // Each one is waiting before the next comes, so their order is known.
    ASSERT_TRUE(counts_reach([&](const HttpCounts& c) { return c.accepted == std::size_t(i) + 1; },
                             milliseconds(2000)));
  }
  EXPECT_EQ(endpoint_->counts().open, 8u);
  const double t = timed_get(port_, "/metrics");
  EXPECT_GE(t, 0);
  EXPECT_LT(t, 2.0);
  EXPECT_TRUE(slow[0]->closed_within(milliseconds(2000))) << "the oldest was not dropped";
  EXPECT_FALSE(slow[7]->closed_within(milliseconds(50))) << "the newest was dropped";
  // Ten more legitimate scrapes, each with the cap filled again by a slow client.
  for (int i = 0; i < 10; ++i) {
    const std::uint64_t before = endpoint_->counts().accepted;
    slow.push_back(std::make_unique<Sock>(port_));
    slow.back()->send_some("GET / HTTP/1.1\r\n");
    ASSERT_TRUE(
        counts_reach([&](const HttpCounts& c) { return c.accepted > before; }, milliseconds(2000)));
    EXPECT_GE(timed_get(port_, "/"), 0) << i;
  }
  const HttpCounts c = endpoint_->counts();
  EXPECT_GE(c.dropped, 11u);
  EXPECT_LE(c.open, 8u);
  const std::string log = stopped_log();
  EXPECT_NE(log.find("IBSM-8704"), std::string::npos) << log;
  EXPECT_NE(log.find("peer 127.0.0.1"), std::string::npos) << log;
  // Rate-limited: 11 drops within 10 s make one line.
  std::size_t lines = 0;
  for (auto at = log.find("IBSM-8704"); at != std::string::npos; at = log.find("IBSM-8704", at + 1))
    ++lines;
  EXPECT_EQ(lines, 1u) << log;
}

// The deadline is for the whole request head: a client that sends a byte every 50 ms
// is closed at the deadline all the same (a per-read timeout would never fire).
TEST_F(Hostile, TheRequestDeadlineIsNotResetBySendingSlowly) {
  HttpLimits limits;
  limits.request_deadline = milliseconds(400);
  start(limits);
  publisher_.publish(small_snapshot());
  Sock s(port_);
  ASSERT_TRUE(s.connected());
  const auto t0 = Steady::now();
  const std::string head = "GET /metrics HTTP/1.1\r\nX-Slow: ";
  bool closed = false;
  // At most 100 bytes, 50 ms apart: 5 s if the server never closes.
  for (std::size_t i = 0; i < 100 && !closed; ++i) {
    s.send_some(std::string(1, i < head.size() ? head[i] : 'z'));
    closed = s.closed_within(milliseconds(50));
  }
  const double took = std::chrono::duration<double>(Steady::now() - t0).count();
  EXPECT_TRUE(closed);
  EXPECT_GE(took, 0.35);
  EXPECT_LT(took, 2.0);
  EXPECT_GE(endpoint_->counts().timed_out, 1u);
  EXPECT_NE(stopped_log().find("IBSM-8705"), std::string::npos);
}

// A client that asks for a big answer and never reads it is closed when a slice is not
// taken in time; it holds no thread meanwhile (others are served).
TEST_F(Hostile, AClientThatDoesNotReadItsAnswerIsClosed) {
  HttpLimits limits;
  limits.write_stall = milliseconds(300);
  limits.answer_deadline = milliseconds(1500);
  start(limits);
  publisher_.publish(small_snapshot(3000));  // about 13 MB of text
  Sock s(port_, 4096);
  ASSERT_TRUE(s.connected());
  s.send_some("GET /metrics HTTP/1.1\r\nAccept-Encoding: identity\r\n\r\n");
  EXPECT_TRUE(
      counts_reach([](const HttpCounts& c) { return c.slow_readers >= 1; }, milliseconds(5000)));
  EXPECT_TRUE(s.closed_within(milliseconds(2000)));
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(2, 0);
  auto other = c.Get("/nothing");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);
}

// When every connection of the cap is being answered (here: to clients that do not
// read), a new one is refused at once rather than queued.
TEST_F(Hostile, OverTheCapWithEveryConnectionBusyTheNewOneIsRefused) {
  HttpLimits limits;
  limits.max_connections = 2;
  limits.write_stall = milliseconds(5000);
  start(limits);
  publisher_.publish(small_snapshot(3000));
  std::vector<std::unique_ptr<Sock>> busy;
  for (int i = 0; i < 2; ++i) {
    busy.push_back(std::make_unique<Sock>(port_, 4096));
    busy.back()->send_some("GET /metrics HTTP/1.1\r\nAccept-Encoding: identity\r\n\r\n");
  }
  // Both have their answer under way (their request heads are taken).
  ASSERT_TRUE(counts_reach([](const HttpCounts& c) { return c.accepted == 2 && c.open == 2; },
                           milliseconds(2000)));
  for (auto& b : busy)
    ASSERT_EQ(b->peek(13, milliseconds(2000)), "HTTP/1.1 200 ");
  Sock late(port_);
  EXPECT_TRUE(late.closed_within(milliseconds(2000)));
  EXPECT_TRUE(counts_reach([](const HttpCounts& c) { return c.refused == 1; }, milliseconds(2000)));
  EXPECT_NE(stopped_log().find("IBSM-8704"), std::string::npos);
}

// IPv6 as before: [::1] is served.
TEST_F(Hostile, ServesOnIpv6Loopback) {
  endpoint_ = std::make_unique<MetricsEndpoint>(
      publisher_, testsupport::capture_log(log_text_, "metrics", spdlog::level::info));
  if (!endpoint_->start({"::1", 0}).ok()) GTEST_SKIP() << "no IPv6 loopback here";
  publisher_.publish(small_snapshot());
  httplib::Client c("::1", endpoint_->port());
  c.set_read_timeout(2, 0);
  auto r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

// Keep-alive and HEAD as before: two requests on one connection, HEAD without a body.
TEST_F(Hostile, KeepAliveAndHead) {
  start({});
  publisher_.publish(small_snapshot());
  Sock s(port_);
  s.send_some(
      "HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n"
      "Connection: close\r\n\r\n");
  std::string got;
  EXPECT_TRUE(s.closed_within(milliseconds(3000), &got));
  ASSERT_EQ(got.rfind("HTTP/1.1 200 ", 0), 0u) << got.substr(0, 300);
  const auto second = got.find("HTTP/1.1 200 ", 1);
  ASSERT_NE(second, std::string::npos) << got.substr(0, 300);
  // The HEAD answer ends with its head: the next answer follows at once.
  EXPECT_EQ(got.substr(second - 4, 4), "\r\n\r\n");
  EXPECT_NE(got.find("Connection: keep-alive"), std::string::npos);
  EXPECT_NE(got.find("ibsm_perfmgr_enabled 1", second), std::string::npos);
}

}  // namespace
}  // namespace ibsm::metrics
