// SMP loss: the attempts formula, the estimate, and SmpClient on a fabric that drops a
// share of SMPs at random (every request must still succeed) next to a node that never
// answers (it must still fail, after a bounded number of attempts).
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "mad/attr/node_info.hpp"
#include "mad/smp_client.hpp"
#include "mad/smp_loss.hpp"

namespace ibsm::mad {
namespace {

using std::chrono::milliseconds;

TEST(AttemptsForLoss, CleanFabricKeepsTheConfiguredAttempts) {
  EXPECT_EQ(attempts_for_loss(0.0, 4, 16, 1e-6), 4u);
  EXPECT_EQ(attempts_for_loss(0.01, 4, 16, 1e-6), 4u);  // 0.01^3 already <= 1e-6
}

TEST(AttemptsForLoss, LossRaisesAttemptsUntilFailuresAreRare) {
  // 0.2^8 = 2.6e-6 > 1e-6 >= 0.2^9 = 5.1e-7
  EXPECT_EQ(attempts_for_loss(0.2, 4, 16, 1e-6), 9u);
  // 0.5^19 = 1.9e-6 > 1e-6 >= 0.5^20
  EXPECT_EQ(attempts_for_loss(0.5, 4, 32, 1e-6), 20u);
}

TEST(AttemptsForLoss, CappedAndNeverBelowConfigured) {
  EXPECT_EQ(attempts_for_loss(0.5, 4, 16, 1e-6), 16u);
  EXPECT_EQ(attempts_for_loss(1.0, 4, 16, 1e-6), 16u);
  EXPECT_EQ(attempts_for_loss(0.2, 12, 16, 1e-6), 12u);
  EXPECT_EQ(attempts_for_loss(0.9, 20, 16, 1e-6), 20u);  // configured above the cap wins
}

TEST(SmpLoss, LearnsFromAnsweredTransactionsOnly) {
  SmpLoss loss;
  for (int i = 0; i < 31; ++i)
    loss.on_answered(3);
  EXPECT_EQ(loss.loss(), 0.0) << "too few answers to act on";
  EXPECT_EQ(loss.attempts(4), 4u);
  loss.on_answered(3);
  EXPECT_NEAR(loss.loss(), 2.0 / 3.0, 1e-9);
  EXPECT_EQ(loss.attempts(4), SmpLoss::kMaxAttempts);
}

TEST(SmpLoss, ForgetsLossThatStopped) {
  SmpLoss loss;
  for (int i = 0; i < 1000; ++i)
    loss.on_answered(2);  // half the attempts lost
  EXPECT_GT(loss.attempts(4), 4u);
  for (int i = 0; i < 5000; ++i)
    loss.on_answered(1);
  EXPECT_LT(loss.loss(), 0.01);
  EXPECT_EQ(loss.attempts(4), 4u);
}

TEST(SmpLoss, LateAnswersMeanSlownessNotRandomLoss) {
  SmpLoss loss;
  for (int i = 0; i < 1000; ++i)
    loss.on_answered(i % 5 == 0 ? 2 : 1);
  EXPECT_NEAR(loss.random_loss(), loss.loss(), 1e-12);
  EXPECT_GT(loss.random_loss(), 0.1);
  loss.on_late_answer();
  EXPECT_EQ(loss.random_loss(), 0.0);
  for (int i = 0; i < 2000; ++i)
    loss.on_answered(i % 5 == 0 ? 2 : 1);
  EXPECT_GT(loss.random_loss(), 0.1) << "forgotten after a while";
}

TEST(SmpLoss, RandomLossIsCapped) {
  SmpLoss loss;
  for (int i = 0; i < 1000; ++i)
    loss.on_answered(5);
  EXPECT_NEAR(loss.loss(), 0.8, 1e-9);
  EXPECT_EQ(loss.random_loss(), SmpLoss::kMaxRandomLoss);
}

// Answers every request at once, except those it drops (seeded, a fixed share) and
// those to the dead node (attribute modifier kDeadMod), which never get an answer.
class LossyTransport final : public MadTransport {
 public:
  LossyTransport(FakeClock& clock, double drop) : clock_(clock), drop_(drop) {}

  Status send(const OutgoingMad& mad) override {
    ++sends;
    auto req = Smp::parse(mad.bytes);
    if (!req.ok() || req->is_response()) return {};
    if (req->attr_mod() == kDeadMod) {
      ++sends_to_dead;
      return {};
    }
    if (std::bernoulli_distribution(drop_)(rng_)) return {};
    std::array<std::uint8_t, kSmpDataSize> data{};
    IncomingMad in;
    in.bytes = req->response(ConstPayload(data)).bytes();
    in.length = kMadSize;
    in.slid = mad.dlid;  // a LID-routed answer comes from where the request went
    inbox_.push_back(in);
    return {};
  }

  std::optional<IncomingMad> receive(milliseconds max_wait) override {
    if (inbox_.empty()) {
      clock_.advance(max_wait);
      return std::nullopt;
    }
    IncomingMad in = inbox_.front();
    inbox_.pop_front();
    return in;
  }

  LocalPort local_port() const override { return {}; }

  static constexpr std::uint32_t kDeadMod = 0xdead;
  unsigned sends = 0;
  unsigned sends_to_dead = 0;

 private:
  FakeClock& clock_;
  double drop_;
  std::mt19937 rng_{20261124};
  std::deque<IncomingMad> inbox_;
};

struct Tally {
  unsigned ok = 0;
  unsigned failed = 0;
};

void run(SmpClient& client, Tally& tally, unsigned requests, std::uint32_t mod) {
  for (unsigned i = 0; i < requests; ++i) {
    // Spread over 64 destinations: one takes at most kPerDestination at a time.
    const SmpTarget target = Lid(1 + i % 64);
    client.submit(SmpRequest::get<NodeInfo>(target, mod), [&tally](const SmpOutcome& o) {
      if (o.ok())
        ++tally.ok;
      else
        ++tally.failed;
    });
  }
  for (int i = 0; i < 1000000 && !client.idle(); ++i)
    client.poll(milliseconds(1000));
  ASSERT_TRUE(client.idle());
}

SmpClientSettings defaults() {
  SmpClientSettings s;
  s.timeout = milliseconds(200);
  s.retries = 3;
  s.window_given = false;
  return s;
}

TEST(SmpClientUnderLoss, EveryRequestSucceedsAtThirtyPercentLoss) {
  FakeClock clock;
  LossyTransport transport(clock, 0.30);
  SmpClient client(transport, clock, null_logger(), defaults());
  Tally tally;
  run(client, tally, 4000, 1);
  // With a fixed 4 attempts 0.3^4 = 0.8 % would fail: about 32 of 4000.
  EXPECT_EQ(tally.failed, 0u);
  EXPECT_EQ(tally.ok, 4000u);
  EXPECT_NEAR(client.loss(), 0.30, 0.05);
  EXPECT_GT(client.counters().loss_retries, 0u);
  // 0.3^11 = 1.8e-6 > 1e-6 >= 0.3^12; the estimate wanders a little around 0.3
  EXPECT_GE(client.attempts_allowed(), 11u);
  EXPECT_LE(client.attempts_allowed(), 14u);
}

TEST(SmpClientUnderLoss, RandomLossDoesNotCollapseTheWindow) {
  // TCP's lesson: a window that halves on every loss starves on a lossy link. Only
  // timeouts beyond what the learnt loss explains count as congestion.
  FakeClock clock;
  LossyTransport transport(clock, 0.20);
  SmpClient client(transport, clock, null_logger(), defaults());
  Tally tally;
  run(client, tally, 20000, 1);
  EXPECT_EQ(tally.failed, 0u);
  EXPECT_GT(client.counters().loss_timeouts, 3000u);
  // Halving on every loss: 538 decreases and a window of 3 at the end.
  EXPECT_LE(client.counters().window_decreases, 30u);
  EXPECT_GE(client.window(), 32u);
  EXPECT_EQ(client.counters().peak_window, SmpClientSettings::kAdaptiveCap);
}

TEST(SmpClientUnderLoss, DeadNodeStillFailsOnACleanFabric) {
  FakeClock clock;
  LossyTransport transport(clock, 0.0);
  SmpClient client(transport, clock, null_logger(), defaults());
  Tally tally;
  run(client, tally, 500, 1);
  ASSERT_EQ(tally.ok, 500u);
  run(client, tally, 1, LossyTransport::kDeadMod);
  EXPECT_EQ(tally.failed, 1u);
  EXPECT_EQ(transport.sends_to_dead, 4u) << "a clean fabric keeps transaction_retries";
  EXPECT_EQ(client.counters().loss_retries, 0u);
}

TEST(SmpClientUnderLoss, DeadNodeOnALossyFabricFailsAfterBoundedAttempts) {
  FakeClock clock;
  LossyTransport transport(clock, 0.5);
  SmpClient client(transport, clock, null_logger(), defaults());
  Tally tally;
  run(client, tally, 2000, 1);
  EXPECT_EQ(tally.failed, 0u);
  const auto t0 = clock.now();
  run(client, tally, 1, LossyTransport::kDeadMod);
  EXPECT_EQ(tally.failed, 1u);
  EXPECT_EQ(transport.sends_to_dead, SmpLoss::kMaxAttempts);
  EXPECT_LE(clock.now() - t0, SmpLoss::kMaxAttempts * milliseconds(200) + milliseconds(16));
}

}  // namespace
}  // namespace ibsm::mad
