// The adaptive SMP window: the controller alone (slow start, additive increase,
// one halving per epoch, per-destination limits, OpenSM's stall escape), and
// SmpClient driving it against a simulated responder on a FakeClock: a slow
// responder, a lossy one, a bursty one, -n 0, an explicit -n 4, and a
// transport that blocks for good past its limit (umad2sim's -n 0 hang).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "mad/attr/node_info.hpp"
#include "mad/smp_client.hpp"
#include "mad/smp_window.hpp"

namespace ibsm::mad::smp_window_test {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using TimePoint = Clock::TimePoint;

constexpr SmpDestination kA = 1;
constexpr SmpDestination kB = 2;

SmpWindowSettings bounds(unsigned initial, unsigned cap) {
  SmpWindowSettings s;
  s.initial = initial;
  s.cap = cap;
  s.per_destination = 1000;  // out of the way unless a test is about it
  s.timeout = milliseconds(200);
  return s;
}

// Sends what the window allows to destinations round robin, answers all of
// them `rtt` later; returns the window after `rounds` round trips.
unsigned run_round_trips(SmpWindow& w, int rounds, Clock::Duration rtt, TimePoint& now) {
  for (int r = 0; r < rounds; ++r) {
    std::vector<SmpDestination> sent;
    for (SmpDestination d = 100; !w.full(); ++d) {
      w.on_sent(d, now);
      sent.push_back(d);
    }
    const TimePoint sent_at = now;
    now += rtt;
    for (auto d : sent)
      w.on_answer(d, sent_at, now);
  }
  return w.limit();
}

TEST(SmpWindow, SlowStartDoublesPerRoundTripThenGrowsByOne) {
  SmpWindow w(bounds(4, 1000));
  TimePoint now{};
  EXPECT_EQ(w.limit(), 4u);
  EXPECT_EQ(run_round_trips(w, 1, milliseconds(1), now), 8u);
  EXPECT_EQ(run_round_trips(w, 2, milliseconds(1), now), 32u);
  // A timeout from two destinations ends slow start with one halving.
  w.on_sent(kA, now);
  w.on_sent(kB, now);
  const TimePoint sent = now;
  now += milliseconds(200);
  w.on_timeout(kA, sent, now);
  w.on_timeout(kB, sent, now);
  EXPECT_EQ(w.limit(), 16u);
  EXPECT_EQ(w.decreases(), 1u);
  // Congestion avoidance: about +1 per window of answers.
  EXPECT_EQ(run_round_trips(w, 1, milliseconds(1), now), 17u);
  EXPECT_EQ(run_round_trips(w, 1, milliseconds(1), now), 18u);
}

// A phase that keeps only a few SMPs in flight (serial dependencies) must not
// grow the window on its answers alone: the next burst would go out at once
// into a window the fabric never showed it takes.
TEST(SmpWindow, GrowsOnlyToTwiceWhatWasUsed) {
  SmpWindow w(bounds(4, 1000));
  TimePoint now{};
  for (int i = 0; i < 1000; ++i) {
    w.on_sent(kA, now);
    w.on_sent(kB, now);
    now += milliseconds(1);
    w.on_answer(kA, now - milliseconds(1), now);
    w.on_answer(kB, now - milliseconds(1), now);
  }
  EXPECT_EQ(w.limit(), 5u) << "2 in flight at most: grows while limit <= 4";
}

TEST(SmpWindow, NeverAboveTheCap) {
  SmpWindow w(bounds(4, 20));
  TimePoint now{};
  EXPECT_EQ(run_round_trips(w, 10, milliseconds(1), now), 20u);
  EXPECT_EQ(w.peak_in_flight(), 20u);
  SmpWindow small(bounds(4, 4));
  EXPECT_EQ(run_round_trips(small, 10, milliseconds(1), now), 4u);
}

TEST(SmpWindow, ABurstOfTimeoutsHalvesOnceNotToNothing) {
  SmpWindow w(bounds(64, 64));
  TimePoint now{};
  std::vector<SmpDestination> sent;
  for (SmpDestination d = 100; !w.full(); ++d) {
    w.on_sent(d, now);
    sent.push_back(d);
  }
  const TimePoint sent_at = now;
  now += milliseconds(200);
  for (auto d : sent)
    w.on_timeout(d, sent_at, now);  // all 64 were sent before the first decrease
  EXPECT_EQ(w.limit(), 32u);
  EXPECT_EQ(w.decreases(), 1u);
  // The next epoch's timeouts count again.
  w.on_sent(kA, now);
  w.on_sent(kB, now);
  const TimePoint later = now;
  now += milliseconds(200);
  w.on_timeout(kA, later, now);
  w.on_timeout(kB, later, now);
  EXPECT_EQ(w.limit(), 16u);
}

TEST(SmpWindow, OneSlowDestinationOnlyLimitsItself) {
  SmpWindowSettings s = bounds(32, 64);
  s.per_destination = 16;
  SmpWindow w(s);
  TimePoint now{};
  for (int epoch = 0; epoch < 6; ++epoch) {
    w.on_sent(kA, now);
    const TimePoint sent = now;
    now += milliseconds(250);
    w.on_timeout(kA, sent, now);
  }
  EXPECT_EQ(w.destination_limit(kA), 1u);
  EXPECT_EQ(w.limit(), 32u) << "the global window does not pay for one slow responder";
  EXPECT_EQ(w.decreases(), 0u);
  w.on_sent(kA, now);
  EXPECT_FALSE(w.may_send(kA));
  EXPECT_TRUE(w.may_send(kB));
}

TEST(SmpWindow, LateAnswersAreCongestionBeforeAnyTimeout) {
  SmpWindow w(bounds(8, 64));
  TimePoint now{};
  w.on_sent(kA, now);
  w.on_sent(kB, now);
  const TimePoint sent = now;
  now += milliseconds(150);  // over half the 200 ms timeout
  w.on_answer(kA, sent, now);
  w.on_answer(kB, sent, now);
  EXPECT_EQ(w.limit(), 4u);
  EXPECT_STREQ(w.last_reason(), "late answers");
}

// max_wire_smps 4, max_wire_smps2 6, max_smps_timeout 50 ms: a full window
// with nothing completing lets one more out per 50 ms, up to 6; a completion
// takes the allowance back (OpenSM's vl15 poller).
TEST(SmpWindow, StallEscapeAsOpensm) {
  SmpWindowSettings s = bounds(4, 4);
  s.stall_cap = 6;
  s.stall_timeout = milliseconds(50);
  SmpWindow w(s);
  TimePoint now{};
  for (SmpDestination d = 10; d < 14; ++d)
    w.on_sent(d, now);
  EXPECT_TRUE(w.full());
  ASSERT_TRUE(w.stall_deadline().has_value());
  EXPECT_EQ(*w.stall_deadline(), now + milliseconds(50));
  w.tick(now + milliseconds(49));
  EXPECT_TRUE(w.full());
  now += milliseconds(50);
  w.tick(now);
  EXPECT_EQ(w.allowed(), 5u);
  w.on_sent(20, now);
  now += milliseconds(50);
  w.tick(now);
  EXPECT_EQ(w.allowed(), 6u);
  w.on_sent(21, now);
  EXPECT_FALSE(w.stall_deadline().has_value()) << "max_wire_smps2 reached";
  w.on_answer(10, TimePoint{}, now);
  EXPECT_EQ(w.allowed(), 4u);
}

TEST(SmpWindow, StallEscapeOffWhenWindow2NotAboveWindow) {
  SmpClientSettings c;
  c.window = 4;
  c.window2 = 4;
  EXPECT_EQ(window_settings(c).stall_cap, 0u);
  c.window2 = 8;
  EXPECT_EQ(window_settings(c).stall_cap, 8u);
}

TEST(SmpWindow, SettingsFromTheConfiguration) {
  SmpClientSettings c;
  c.window_given = false;
  EXPECT_EQ(window_settings(c).initial, SmpClientSettings::kAdaptiveInitial);
  EXPECT_EQ(window_settings(c).cap, SmpClientSettings::kAdaptiveCap);
  c.window_given = true;
  c.window = 4;
  EXPECT_EQ(window_settings(c).initial, 4u);
  EXPECT_EQ(window_settings(c).cap, 4u);
  c.window = 0;
  EXPECT_EQ(window_settings(c).cap, SmpClientSettings::kUnlimited);
  EXPECT_EQ(window_settings(c).initial, SmpClientSettings::kAdaptiveCap);
  EXPECT_EQ(window_settings(c, 20).cap, 20u) << "the transport's limit wins";
  EXPECT_EQ(window_settings(c, 20).initial, 20u);
}

TEST(SmpWindow, DestinationsOfTargets) {
  EXPECT_EQ(destination_of(Lid(5)), destination_of(Lid(5)));
  EXPECT_NE(destination_of(Lid(5)), destination_of(Lid(6)));
  const DrPath a = *DrPath{}.extended(1)->extended(3);
  const DrPath b = *DrPath{}.extended(1)->extended(4);
  EXPECT_NE(destination_of(a), destination_of(b));
  EXPECT_EQ(destination_of(a), destination_of(*DrPath{}.extended(1)->extended(3)));
  EXPECT_NE(destination_of(DrPath{}), destination_of(*DrPath{}.extended(1)));
}

// ---- SmpClient against a simulated responder ----

// Answers each request after a latency the test chooses (per destination LID
// and sequence number), or drops it; the clock moves only inside receive().
class SimulatedResponder final : public MadTransport {
 public:
  // nullopt: dropped.
  using Latency = std::function<std::optional<Clock::Duration>(Lid dest, std::size_t seq)>;

  SimulatedResponder(FakeClock& clock, Latency latency)
      : clock_(clock), latency_(std::move(latency)) {}

  Status send(const OutgoingMad& mad) override {
    auto req = Smp::parse(mad.bytes);
    if (!req.ok() || req->is_response()) return {};
    ++unanswered_;
    if (limit != 0 && unanswered_ > limit) {
      // What umad2sim does here is block forever; a test must not.
      over_limit = true;
      return fail(kErrSendFailed, "more unanswered than the transport takes");
    }
    max_unanswered = std::max(max_unanswered, unanswered_);
    const auto lat = latency_(mad.dlid, sent++);
    if (!lat) {
      --unanswered_;  // dropped: nothing will come back
      ++dropped;
      return {};
    }
    IncomingMad in;
    in.bytes = req->response(ConstPayload(std::array<std::uint8_t, kSmpDataSize>{})).bytes();
    in.length = kMadSize;
    in.slid = mad.dlid;  // a LID-routed answer comes from where the request went
    pending_.emplace(clock_.now() + *lat, in);
    return {};
  }

  std::optional<IncomingMad> receive(milliseconds max_wait) override {
    // The caller would sleep here until an answer or max_wait: one wake-up.
    if (max_wait.count() > 0 && (pending_.empty() || pending_.begin()->first > clock_.now()))
      ++blocking_waits;
    if (pending_.empty() || pending_.begin()->first > clock_.now() + max_wait) {
      clock_.advance(max_wait);
      return std::nullopt;
    }
    auto it = pending_.begin();
    if (it->first > clock_.now()) clock_.set(it->first);
    IncomingMad in = it->second;
    pending_.erase(it);
    --unanswered_;
    return in;
  }

  LocalPort local_port() const override { return {}; }
  unsigned max_unanswered_requests() const override { return limit; }

  unsigned limit = 0;
  bool over_limit = false;
  std::size_t sent = 0;
  std::size_t dropped = 0;
  unsigned max_unanswered = 0;
  std::size_t blocking_waits = 0;  // receive() calls that found nothing ready yet

 private:
  FakeClock& clock_;
  Latency latency_;
  unsigned unanswered_ = 0;
  std::multimap<TimePoint, IncomingMad> pending_;
};

struct Outcome {
  int ok = 0;
  int failed = 0;
  std::size_t max_outstanding = 0;
  unsigned max_window = 0;
  Clock::Duration elapsed{};
  SmpCounters counters;
};

// Submits `requests` Gets spread over `destinations` LIDs and polls until idle
// (each poll waits at most 10 ms of fake time).
Outcome drive(SimulatedResponder& fabric, FakeClock& clock, SmpClientSettings s, int requests,
              int destinations) {
  SmpClient client(fabric, clock, null_logger(), s);
  Outcome r;
  for (int i = 0; i < requests; ++i)
    client.submit(SmpRequest::get<NodeInfo>(Lid(1 + i % destinations), i),
                  [&](const SmpOutcome& o) { (o.ok() ? r.ok : r.failed)++; });
  const TimePoint start = clock.now();
  for (int guard = 0; guard < 1000000 && !client.idle(); ++guard) {
    client.poll(milliseconds(10));
    r.max_outstanding = std::max(r.max_outstanding, client.outstanding());
    r.max_window = std::max(r.max_window, client.window());
  }
  EXPECT_TRUE(client.idle()) << "outstanding " << client.outstanding() << " queued "
                             << client.queued() << " window " << client.window();
  r.elapsed = clock.now() - start;
  r.counters = client.counters();
  return r;
}

SmpClientSettings adaptive() {
  SmpClientSettings s;
  s.window_given = false;
  s.timeout = milliseconds(200);
  s.retries = 3;
  return s;
}

// Every answer `latency` after its request.
SimulatedResponder::Latency fixed_latency(Clock::Duration latency) {
  return [latency](Lid, std::size_t) -> std::optional<Clock::Duration> { return latency; };
}

// max_wire_smps given (0: no cap), as in opensm.conf.
SmpClientSettings max_wire_smps(unsigned n) {
  SmpClientSettings s = adaptive();
  s.window_given = true;
  s.window = n;
  return s;
}

// A responder that answers one SMP at a time in `service` each (a management
// processor or ibsim): latency grows with what waits in its queue.
SimulatedResponder::Latency serial_queue(FakeClock& clock, Clock::Duration service) {
  auto busy_until = std::make_shared<TimePoint>();
  return [&clock, service, busy_until](Lid, std::size_t) -> std::optional<Clock::Duration> {
    *busy_until = std::max(*busy_until, clock.now()) + service;
    return *busy_until - clock.now();
  };
}

TEST(SmpClientWindow, FixedLatencyNearTheTimeoutSettlesWithoutTimeouts) {
  FakeClock clock;
  SimulatedResponder fabric(clock, fixed_latency(milliseconds(180)));
  const Outcome r = drive(fabric, clock, adaptive(), 400, 8);
  EXPECT_EQ(r.ok, 400);
  EXPECT_EQ(r.counters.retries, 0u);
  EXPECT_EQ(r.counters.timeouts, 0u);
}

TEST(SmpClientWindow, SlowQueueingResponderDoesNotStormTimeouts) {
  // One management processor answering every 25 ms: 8 in its queue already
  // wait past the 200 ms timeout. The window must find that out once, not
  // retry its way into a storm.
  FakeClock clock;
  SimulatedResponder fabric(clock, serial_queue(clock, milliseconds(25)));
  const Outcome r = drive(fabric, clock, adaptive(), 300, 1);
  EXPECT_EQ(r.ok, 300);
  EXPECT_EQ(r.failed, 0);
  EXPECT_LE(r.counters.retries, 16u) << "timeouts must stop once the limit settled";
  // 300 answers need 7.5 s of its time; retries cost little on top.
  EXPECT_LT(r.elapsed, std::chrono::seconds(10));
}

TEST(SmpClientWindow, OneSlowSwitchDoesNotThrottleTheRest) {
  FakeClock clock;
  // LID 1 takes 180 ms, the other 31 answer in 1 ms.
  SimulatedResponder fabric(clock, [](Lid lid, std::size_t) -> std::optional<Clock::Duration> {
    return lid == 1 ? milliseconds(180) : milliseconds(1);
  });
  const Outcome r = drive(fabric, clock, adaptive(), 3200, 32);
  EXPECT_EQ(r.ok, 3200);
  EXPECT_EQ(r.counters.retries, 0u);
  EXPECT_EQ(r.counters.window_decreases, 0u);
  EXPECT_EQ(r.max_window, SmpClientSettings::kAdaptiveCap);
}

TEST(SmpClientWindow, LossyResponderKeepsProgressingWithinBounds) {
  FakeClock clock;
  std::mt19937 rng(14);
  SimulatedResponder fabric(clock, [&](Lid, std::size_t) -> std::optional<Clock::Duration> {
    if (std::uniform_int_distribution<int>(0, 99)(rng) < 20) return std::nullopt;
    return microseconds(std::uniform_int_distribution<int>(50, 2000)(rng));
  });
  const Outcome r = drive(fabric, clock, adaptive(), 2000, 64);
  EXPECT_EQ(r.ok + r.failed, 2000);
  EXPECT_GE(r.ok, 1990) << "20% loss and 3 retries: about 0.16% fail";
  EXPECT_GT(fabric.dropped, 300u);
  EXPECT_LE(r.max_outstanding, SmpClientSettings::kAdaptiveCap);
  EXPECT_GE(r.max_window, 4u);
  // Losses cost 200 ms each round, but the window keeps many in flight.
  EXPECT_LT(r.elapsed, std::chrono::seconds(20));
}

TEST(SmpClientWindow, BurstyResponderRecovers) {
  FakeClock clock;
  // Fast, with a 400 ms freeze every 2 s of fake time (a switch CPU busy with
  // something else): everything sent into a freeze times out once.
  SimulatedResponder fabric(clock, [&](Lid, std::size_t) -> std::optional<Clock::Duration> {
    const auto t = std::chrono::duration_cast<milliseconds>(clock.now().time_since_epoch()) %
                   std::chrono::seconds(2);
    if (t < milliseconds(400)) return milliseconds(400) - t + milliseconds(1);
    return milliseconds(1);
  });
  const Outcome r = drive(fabric, clock, adaptive(), 5000, 16);
  EXPECT_EQ(r.ok, 5000);
  EXPECT_LE(r.max_outstanding, SmpClientSettings::kAdaptiveCap);
  EXPECT_LT(r.elapsed, std::chrono::seconds(30));
}

TEST(SmpClientWindow, UnlimitedWindowCompletes) {
  // -n 0 against a responder with a queue (ibsim): all at once would put most
  // past the timeout; the window grows only while answers stay quick.
  FakeClock clock;
  SimulatedResponder fabric(clock, serial_queue(clock, microseconds(100)));
  const Outcome r = drive(fabric, clock, max_wire_smps(0), 20000, 500);
  EXPECT_EQ(r.ok, 20000);
  EXPECT_EQ(r.failed, 0);
  EXPECT_LE(r.counters.retries, 2000u);
}

TEST(SmpClientWindow, ExplicitFourNeverExceedsFour) {
  FakeClock clock;
  SimulatedResponder fabric(clock, fixed_latency(microseconds(100)));
  const Outcome r = drive(fabric, clock, max_wire_smps(4), 1000, 50);
  EXPECT_EQ(r.ok, 1000);
  EXPECT_EQ(r.max_outstanding, 4u);
  EXPECT_EQ(fabric.max_unanswered, 4u);
  EXPECT_EQ(r.max_window, 4u);
}

// The -n 0 hang under ibsim: umad2sim blocks in send() for good once more
// requests are unanswered than its sockets hold. Before the transport could
// say so, -n 0 put thousands on the wire at once.
TEST(SmpClientWindow, UnlimitedWindowStaysWithinTheTransportsLimit) {
  FakeClock clock;
  SimulatedResponder fabric(clock, serial_queue(clock, microseconds(30)));
  fabric.limit = 20;
  const Outcome r = drive(fabric, clock, max_wire_smps(0), 5000, 300);
  EXPECT_FALSE(fabric.over_limit);
  EXPECT_EQ(r.ok, 5000);
  EXPECT_EQ(fabric.max_unanswered, 20u);
}

// ---- receive batching (SmpClientSettings::batch_wait) ----

// ibsim, or a management processor, answering one SMP every 10 µs with the
// window at umad2sim's 20: without batching the client sleeps and wakes for
// every answer; with it, about once per batch_wait's worth of answers, and the
// responder is never left idle for it.
TEST(SmpClientBatching, AFastSerialResponderWakesTheClientPerBatchNotPerAnswer) {
  constexpr int kRequests = 4000;
  const auto service = microseconds(10);
  auto run = [&](microseconds batch_wait) {
    FakeClock clock;
    SimulatedResponder fabric(clock, serial_queue(clock, service));
    fabric.limit = 20;
    SmpClientSettings s = adaptive();
    s.batch_wait = batch_wait;
    const Outcome r = drive(fabric, clock, s, kRequests, 64);
    EXPECT_EQ(r.ok, kRequests);
    return std::make_pair(r, fabric.blocking_waits + r.counters.batch_waits);
  };
  const auto [unbatched, unbatched_sleeps] = run(microseconds(0));
  const auto [batched, batched_sleeps] = run(microseconds(50));
  EXPECT_GE(unbatched_sleeps, kRequests * 9 / 10) << "the baseline: one sleep per answer";
  EXPECT_LE(batched_sleeps, kRequests / 4) << "batches of about 5 answers";
  EXPECT_GT(batched.counters.batch_waits, 0u);
  // The responder's own time is the floor; batching adds at most 5 % to it.
  const auto floor = service * kRequests;
  EXPECT_LE(batched.elapsed, floor * 105 / 100);
  EXPECT_LE(batched.elapsed, unbatched.elapsed * 105 / 100);
}

TEST(SmpClientBatching, ALoneSmpIsNotHeldBack) {
  FakeClock clock;
  SimulatedResponder fabric(clock, fixed_latency(microseconds(700)));
  const Outcome r = drive(fabric, clock, adaptive(), 1, 1);
  EXPECT_EQ(r.ok, 1);
  EXPECT_EQ(r.counters.batch_waits, 0u);
  EXPECT_EQ(r.elapsed, microseconds(700)) << "answered the moment it arrived";
}

TEST(SmpClientBatching, AWindowBelowTheBatchMinimumNeverWaits) {
  // OpenSM's -n 4: four in flight are no batch worth waiting for.
  FakeClock clock;
  SimulatedResponder fabric(clock, serial_queue(clock, microseconds(10)));
  const Outcome r = drive(fabric, clock, max_wire_smps(4), 400, 8);
  EXPECT_EQ(r.ok, 400);
  EXPECT_EQ(r.counters.batch_waits, 0u);
  EXPECT_EQ(r.elapsed, microseconds(10) * 400) << "the responder was never idle";
}

}  // namespace
}  // namespace ibsm::mad::smp_window_test
