// ctl/: the control server serves clients side by side. A request held up on a worker
// (a PerfMgr dump being formatted, here a fake one that waits for the test) delays no
// other client's answer, while the same client's later lines wait their turn; the
// connection cap refuses with IBSM-8007 in the client's protocol; the idle timeout is
// the configured one, timed by the injected clock; a client that ends its input gets
// its answers before the close; an answer of many MiB reaches a client that takes it
// slowly, whole, while a client that stops taking its answer is cut off after
// ctl_idle_timeout on the injected clock.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include <spdlog/fmt/fmt.h>

#include "common/clock.hpp"
#include "ctl/server.hpp"
#include "ctl/worker_pool.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/ctl/socket_client.hpp"

namespace ibsm::ctl {
namespace {

using namespace std::chrono_literals;

// A FakeClock that the test thread may move while the server's thread reads it.
class SharedFakeClock final : public Clock {
 public:
  TimePoint now() const override { return TimePoint(Duration(ticks_.load())); }
  void sleep_for(Duration d) const override { ticks_ += d.count(); }
  void advance(Duration d) { ticks_ += d.count(); }

 private:
  mutable std::atomic<Duration::rep> ticks_{Duration(1000s).count()};
};

// Opened by the test; a request that waits on it is "slow" for as long as the test wants.
class Gate {
 public:
  // False if the gate stayed shut for 30 s (the test failed meanwhile).
  bool wait() {
    std::unique_lock lock(mu_);
    ++waiting_;
    cv_.notify_all();
    return cv_.wait_for(lock, 30s, [this] { return open_; });
  }
  void open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool wait_for_waiters(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 10s, [&] { return waiting_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int waiting_ = 0;
  bool open_ = false;
};

constexpr std::size_t kMiB = 1024 * 1024;
constexpr std::size_t kReportLine = 64;  // bytes, with its newline

// Line `i` of a big report, without its newline.
std::string big_report_line(std::size_t i) {
  std::string line = fmt::format("port {:08} counters", i);
  line.resize(kReportLine - 1, '-');
  return line;
}

// `mib` MiB of report lines, as the SM hands over a formatted dump: without its last
// newline, in a string with room for it (the SM trims the newlines it formatted).
std::string big_report(std::size_t mib) {
  std::string text;
  text.reserve(mib * kMiB);
  for (std::size_t i = 0; i < mib * kMiB / kReportLine; ++i)
    (text += big_report_line(i)) += '\n';
  text.pop_back();
  return text;
}

// The process's peak resident memory (VmHWM) and current (VmRSS), in bytes.
std::size_t proc_status_kib(std::string_view key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with(key)) return std::stoul(line.substr(key.size())) * 1024;
  return 0;
}

template <typename Pred>
bool eventually(Pred pred, std::chrono::seconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

class ConcurrentServer : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = std::make_shared<ops::OpsSnapshot>();
    s->version = "9.9";
    s->options = std::make_shared<conf::Options>();
    ops.snapshot.publish(s);
    // A stand-in for the SM's thread. `perfmgr print_counters slow...` leaves the
    // formatting to the server, as the real SM does with a big dump, and that
    // formatting waits for the gate.
    sm_thread = std::thread([this] {
      while (!done) {
        for (auto& r : ops.control.take()) {
          // `perfmgr print_counters big N`: N MiB to format, as a dump of a big fabric.
          if (const auto at = r.command.find("print_counters big "); at != std::string::npos) {
            ops::ControlReply later;
            later.finish = [mib = std::stoul(r.command.substr(at + 19))] {
              return ops::ControlReply{true, 0, big_report(mib)};
            };
            r.reply(std::move(later));
            continue;
          }
          if (r.command.find("print_counters slow") != std::string::npos) {
            ops::ControlReply later;
            later.finish = [this, cmd = r.command] {
              const bool opened = gate.wait();
              return ops::ControlReply{true, 0, (opened ? "formatted " : "gate shut ") + cmd};
            };
            r.reply(std::move(later));
            continue;
          }
          r.reply({true, 0, "done " + r.command});
        }
        std::this_thread::sleep_for(1ms);
      }
    });
  }
  void TearDown() override {
    gate.open();
    done = true;
    sm_thread.join();
    if (server) server->stop();
  }
  void start(ServerSettings st) {
    st.socket_path = path();
    server = std::make_unique<ControlServer>(ops, logger, st, clock);
    server->start();
  }
  std::string path() const { return dir.path() + "/ctl.sock"; }

  testsupport::TempDir dir;
  std::ostringstream log_text;
  Logger logger = testsupport::capture_log(log_text, "ctl", spdlog::level::info);
  ops::Ops ops;
  SharedFakeClock clock;
  Gate gate;
  std::unique_ptr<ControlServer> server;
  std::atomic<bool> done{false};
  std::thread sm_thread;
};

TEST_F(ConcurrentServer, ASlowRequestDelaysNoOtherClient) {
  ServerSettings st;
  st.workers = 1;  // the second worker has to be started on demand
  st.max_workers = 4;
  start(st);
  Client slow(path());
  Client other(path());
  Client reader(path());
  // The slow client asks for a dump and, on the same line of requests, its version.
  slow.send("perfmgr print_counters slow sw1\nversion\n");
  ASSERT_TRUE(gate.wait_for_waiters(1));  // its formatting runs, and waits
  // Meanwhile the others are answered: a read-only command, and another request that
  // went to the SM and back.
  other.send("version\n");
  EXPECT_EQ(other.answer(), "ibsm 9.9\n.ok\n");
  reader.send("--json perfmgr print_errors\n");
  EXPECT_EQ(reader.answer(),
            "{\"command\":\"perfmgr\",\"ok\":true,\"result\":{\"message\":\"done --json "
            "perfmgr print_errors\"}}\n.ok\n");
  other.send("status\n");
  EXPECT_NE(other.answer().find("SM State"), std::string::npos);
  // A second slow one runs beside the first.
  other.send("perfmgr print_counters slow sw2\n");
  ASSERT_TRUE(gate.wait_for_waiters(2));
  gate.open();
  EXPECT_EQ(other.answer(), "formatted perfmgr print_counters slow sw2\n.ok\n");
  // The slow client's answers come in the order it asked.
  EXPECT_EQ(slow.answer(), "formatted perfmgr print_counters slow sw1\n.ok\n");
  EXPECT_EQ(slow.answer(), "ibsm 9.9\n.ok\n");
  EXPECT_GE(server->workers(), 2u);
  EXPECT_LE(server->workers(), 4u);
}

TEST(WorkerPool, StartsThreadsOnlyWhenAllAreBusyAndNoMoreThanItsMaximum) {
  WorkerPool pool(2);
  EXPECT_EQ(pool.prestart(1), 1u);
  Gate gate;
  std::atomic<int> ran{0};
  for (int i = 0; i < 3; ++i) {
    const auto posted = pool.post([&] {
      gate.wait();
      ++ran;
    });
    EXPECT_TRUE(posted.queued);
  }
  ASSERT_TRUE(gate.wait_for_waiters(2));  // two run at once: the maximum
  EXPECT_EQ(pool.threads(), 2u);
  gate.open();
  EXPECT_TRUE(eventually([&] { return ran.load() == 3; }));
  EXPECT_EQ(pool.threads(), 2u);
  pool.stop();
  EXPECT_FALSE(pool.post([] {}).queued);  // stopped: nothing runs any more
}

TEST_F(ConcurrentServer, OverTheCapANewClientIsToldWhyAndClosed) {
  ServerSettings st;
  st.max_connections = 2;
  start(st);
  auto first = std::make_unique<Client>(path());
  Client second(path());
  ASSERT_TRUE(eventually([&] { return server->connections() == 2; }));
  Client third(path());
  ASSERT_TRUE(third.ok());  // the kernel accepts; ibsm answers and closes
  EXPECT_EQ(third.rest(),
            "IBSM-8007: too many control connections: ibsm serves 2 at once "
            "(ctl_max_connections); retry when one has closed\n.err\n");
  EXPECT_NE(log_text.str().find("IBSM-8007: refused 1 control connection(s)"), std::string::npos)
      << log_text.str();
  // The open ones are not affected, and a place that frees up is taken.
  second.send("version\n");
  EXPECT_EQ(second.answer(), "ibsm 9.9\n.ok\n");
  first.reset();
  ASSERT_TRUE(eventually([&] { return server->connections() == 1; }));
  Client fourth(path());
  fourth.send("version\n");
  EXPECT_EQ(fourth.answer(), "ibsm 9.9\n.ok\n");
}

TEST_F(ConcurrentServer, IdleTimeoutIsTheConfiguredOneOnTheInjectedClock) {
  ServerSettings st;
  st.idle_timeout = 45s;
  start(st);
  Client early(path());
  ASSERT_TRUE(eventually([&] { return server->connections() == 1; }));
  clock.advance(31s);  // past OpenSM-like 30 s, within the configured 45 s
  Client late(path());
  late.send("version\n");  // answered: the loop has looked at `early` since the advance
  EXPECT_EQ(late.answer(), "ibsm 9.9\n.ok\n");
  EXPECT_EQ(server->connections(), 2u);  // `early` is still open at 31 s
  clock.advance(15s);                    // early: 46 s without a line; late: 15 s
  EXPECT_EQ(early.rest(), "IBSM-8006: no request for 45 s (ctl_idle_timeout); closing\n.err\n");
  late.send("version\n");
  EXPECT_EQ(late.answer(), "ibsm 9.9\n.ok\n");
  clock.advance(46s);
  EXPECT_NE(late.rest().find("IBSM-8006"), std::string::npos);
  EXPECT_TRUE(eventually([&] { return server->connections() == 0; }));
}

TEST_F(ConcurrentServer, AClientThatEndsItsInputGetsItsAnswersFirst) {
  start({});
  Client c(path());
  // `printf 'version\nperfmgr print_errors\n' | nc -U SOCKET`: both answered, in order.
  c.send("version\nperfmgr print_errors\n");
  c.shutdown_write();
  EXPECT_EQ(c.rest(), "ibsm 9.9\n.ok\ndone perfmgr print_errors\n.ok\n");
  EXPECT_TRUE(eventually([&] { return server->connections() == 0; }));
}

// A killed `ibsm-ctl events --follow` on a quiet fabric: its place is freed at once,
// not at the next event.
TEST_F(ConcurrentServer, AFollowerThatEndsItsInputIsClosed) {
  start({});
  Client follower(path());
  follower.send("events --follow\n");
  ASSERT_TRUE(eventually([&] { return ops.events.stats().subscribers == 1; }));
  follower.shutdown_write();
  EXPECT_TRUE(eventually([&] { return server->connections() == 0; }));
  EXPECT_EQ(follower.rest(), "");
}

TEST_F(ConcurrentServer, AClientThatLeavesWhileServedCostsNothingButItsAnswer) {
  start({});
  {
    Client gone(path());
    gone.send("perfmgr print_counters slow sw1\n");
    ASSERT_TRUE(gate.wait_for_waiters(1));
  }  // closed while its dump is formatted
  Client c(path());
  c.send("version\n");
  EXPECT_EQ(c.answer(), "ibsm 9.9\n.ok\n");
  gate.open();
  EXPECT_TRUE(eventually([&] { return server->connections() == 1; }));
  c.send("version\n");
  EXPECT_EQ(c.answer(), "ibsm 9.9\n.ok\n");
}

// `perfmgr dump`, `routes` or `partitions` of a fabric of tens of thousands of nodes is
// many MiB. A client that takes it slowly (a second of the server's clock passes for
// every 64 KiB it takes: over two minutes in all, four times ctl_idle_timeout) gets it
// whole, because it keeps taking it; and its connection stays usable.
TEST_F(ConcurrentServer, AnAnswerOfManyMiBReachesASlowReaderWhole) {
  ServerSettings st;
  st.idle_timeout = 30s;
  start(st);
  Client c(path());
  const auto asked = clock.now();
  c.send("perfmgr print_counters big 8\n");
  std::string tail;  // the last bytes received
  std::size_t received = 0;
  while (!tail.ends_with("\n.ok\n") && !tail.ends_with("\n.err\n")) {
    const std::string got = c.read_some(16 * 1024);
    if (got.empty()) break;  // closed, or nothing for 10 s
    for (std::size_t i = 0; i < (received + got.size()) / (64 * 1024) - received / (64 * 1024); ++i)
      clock.advance(1s);
    received += got.size();
    tail = (tail + got).substr(tail.size() + got.size() > 256 ? tail.size() + got.size() - 256 : 0);
  }
  EXPECT_EQ(received, 8 * kMiB + 4);  // every line, then ".ok\n"
  const std::string last_line = big_report_line(8 * kMiB / kReportLine - 1);
  EXPECT_TRUE(tail.ends_with("\n" + last_line + "\n.ok\n")) << tail;
  EXPECT_GE(clock.now() - asked, 4 * 30s);
  c.send("version\n");
  EXPECT_EQ(c.answer(), "ibsm 9.9\n.ok\n");
  EXPECT_EQ(log_text.str().find("IBSM-8021"), std::string::npos) << log_text.str();
}

// `printf 'perfmgr print_counters ...\n' | nc -U SOCKET`: the input ends at once, and
// the big answer still comes whole before the close.
TEST_F(ConcurrentServer, AClientThatEndsItsInputGetsABigAnswerWhole) {
  start({});
  Client c(path());
  c.send("perfmgr print_counters big 4\nversion\n");
  c.shutdown_write();
  const std::string got = c.rest();
  EXPECT_EQ(got.size(), 4 * kMiB + 4 + 13);
  EXPECT_TRUE(
      got.ends_with(big_report_line(4 * kMiB / kReportLine - 1) + "\n.ok\nibsm 9.9\n.ok\n"));
  EXPECT_TRUE(eventually([&] { return server->connections() == 0; }));
}

// A client that asks for a big answer and stops reading is cut off once nothing of it
// could be written for ctl_idle_timeout (on the injected clock), and no earlier.
TEST_F(ConcurrentServer, AClientThatStopsReadingIsCutOffAfterTheIdleTimeout) {
  ServerSettings st;
  st.idle_timeout = 30s;
  start(st);
  Client stuck(path());
  stuck.send("perfmgr print_counters big 4\n");
  // Its answer waits: the socket took what it could, the rest is in the server.
  ASSERT_TRUE(eventually([&] { return server->output_waiting() > 2 * kMiB; }));
  clock.advance(29s);
  Client other(path());
  // Answered: the loop has judged `stuck` (an older connection) since the advance.
  other.send("version\n");
  EXPECT_EQ(other.answer(), "ibsm 9.9\n.ok\n");
  EXPECT_EQ(server->connections(), 2u);
  clock.advance(2s);  // 31 s without taking a byte
  EXPECT_TRUE(eventually([&] { return server->connections() == 1; }));
  EXPECT_TRUE(eventually([&] { return server->output_waiting() == 0; }));
  const std::string got = stuck.rest();  // what the socket held, then the close
  EXPECT_LT(got.size(), 4 * kMiB);
  EXPECT_FALSE(got.ends_with(".ok\n"));
  EXPECT_NE(log_text.str().find("IBSM-8021: control connection uid"), std::string::npos)
      << log_text.str();
  EXPECT_NE(log_text.str().find("none taken for 30 s, ctl_idle_timeout"), std::string::npos);
  other.send("version\n");  // the others are not affected
  EXPECT_EQ(other.answer(), "ibsm 9.9\n.ok\n");
}

// What the server holds for a 20 MiB answer beyond the answer itself (which the SM's
// formatting made): the answer is moved from the formatter to the socket, never copied.
// Measured as the process's peak resident memory (VmHWM, reset before the request)
// over the resident memory before it; the client counts the bytes and keeps none.
TEST_F(ConcurrentServer, ATwentyMiBAnswerCostsLittleBeyondItself) {
  if (!std::ofstream("/proc/self/clear_refs").good()) GTEST_SKIP() << "no /proc/self/clear_refs";
  start({});
  Client c(path());
  c.send("version\n");
  ASSERT_EQ(c.answer(), "ibsm 9.9\n.ok\n");
  const std::size_t before = proc_status_kib("VmRSS:");
  std::ofstream("/proc/self/clear_refs") << "5";  // VmHWM := VmRSS
  c.send("perfmgr print_counters big 20\n");
  std::string tail;
  std::size_t received = 0;
  while (!tail.ends_with("\n.ok\n")) {
    const std::string got = c.read_some(64 * 1024);
    if (got.empty()) break;
    received += got.size();
    tail = (tail + got).substr(tail.size() + got.size() > 256 ? tail.size() + got.size() - 256 : 0);
  }
  const std::size_t peak = proc_status_kib("VmHWM:");
  EXPECT_EQ(received, 20 * kMiB + 4);
  EXPECT_TRUE(tail.ends_with(big_report_line(20 * kMiB / kReportLine - 1) + "\n.ok\n"));
  const double extra_mib = (static_cast<double>(peak) - static_cast<double>(before)) / kMiB - 20;
  std::cout << "20 MiB answer: peak resident " << (peak - before) / kMiB << " MiB over the start, "
            << extra_mib << " MiB beyond the answer\n";
  RecordProperty("extra_mib", std::to_string(extra_mib));
  EXPECT_LT(extra_mib, 10);  // a copy of the answer would be 20 more
}

// The console on 127.0.0.1 is refused over the cap too, in plain text (no prompt).
TEST_F(ConcurrentServer, OverTheCapTheConsoleIsToldWhyInPlainText) {
  const std::uint16_t port = free_loopback_port();
  ASSERT_NE(port, 0);
  ServerSettings st;
  st.console = "loopback";
  st.console_port = port;
  st.max_connections = 1;
  start(st);
  Client unix_client(path());
  ASSERT_TRUE(eventually([&] { return server->connections() == 1; }));
  const int fd = connect_loopback(port);
  ASSERT_GE(fd, 0);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;)
    got.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  EXPECT_EQ(got,
            "IBSM-8007: too many control connections: ibsm serves 1 at once "
            "(ctl_max_connections); retry when one has closed\n");
}

}  // namespace
}  // namespace ibsm::ctl
