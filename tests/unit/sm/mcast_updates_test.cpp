// sm/mcast/mcast_updates alone (no SubnetManager), with a FakeClock and plain inputs:
// the pass over changed groups comes kQuiet after the last join, at least every
// kMaxWait during a storm, and the loop's poll never waits past it; the SA snapshot is
// amended once per batch of confirmed MFT changes, not while Sets are out, again when
// there was no snapshot to amend, and no more often than ten times the last
// amendment's cost; a full snapshot takes the pending changes with it.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "sm/mcast/mcast_updates.hpp"

namespace ibsm::sm::mcast {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

struct Rig {
  FakeClock clock;
  McastUpdates updates{clock};
  MulticastManager mcast{null_logger()};
  unsigned amended = 0;
  bool have_snapshot = true;
  // What the SM's amendment does, as far as this test can see it.
  McastUpdates::Amend amend = [this](const MulticastManager&) {
    if (!have_snapshot) return false;
    ++amended;
    return true;
  };
  // A GetResp changed what a switch holds (forget_all marks that as a new master does).
  void tables_changed() { mcast.forget_all(); }
};

TEST(McastPacing, ALoneJoinIsProgrammedAQuietPauseLater) {
  Rig rig;
  EXPECT_EQ(rig.updates.poll_wait(false, 0, 100ms), 100ms) << "nothing waits";
  EXPECT_EQ(rig.updates.poll_wait(true, 1, 100ms), McastPacing::kQuiet);
  EXPECT_FALSE(rig.updates.pass_due(true, 1));
  rig.clock.advance(McastPacing::kQuiet - 1ms);
  EXPECT_EQ(rig.updates.poll_wait(true, 1, 100ms), 1ms);
  EXPECT_FALSE(rig.updates.pass_due(true, 1));
  rig.clock.advance(1ms);
  EXPECT_TRUE(rig.updates.pass_due(true, 1));
  // Programmed: the store has nothing dirty any more.
  EXPECT_FALSE(rig.updates.pass_due(false, 1));
  EXPECT_EQ(rig.updates.poll_wait(false, 1, 20ms), 20ms);
}

TEST(McastPacing, AStormGetsAPassEveryMaxWait) {
  Rig rig;
  std::uint64_t changes = 0;
  std::vector<Clock::TimePoint> passes;
  const auto start = rig.clock.now();
  while (rig.clock.now() - start < 300ms) {
    ++changes;  // a join every 2 ms: never a quiet pause
    if (rig.updates.pass_due(true, changes)) passes.push_back(rig.clock.now());
    rig.clock.advance(2ms);
  }
  ASSERT_GE(passes.size(), 4u);
  EXPECT_EQ(passes[0] - start, McastPacing::kMaxWait);
  // The next wait starts with the first join after a pass (one 2 ms turn later).
  for (std::size_t i = 1; i < passes.size(); ++i)
    EXPECT_EQ(passes[i] - passes[i - 1], McastPacing::kMaxWait + 2ms) << i;
}

TEST(McastPublish, OncePerBatchOfConfirmedChanges) {
  Rig rig;
  EXPECT_FALSE(rig.updates.publish(rig.mcast, rig.amend));
  EXPECT_EQ(rig.amended, 0u) << "nothing changed";
  rig.tables_changed();
  EXPECT_TRUE(rig.updates.publish(rig.mcast, rig.amend));
  EXPECT_FALSE(rig.updates.publish(rig.mcast, rig.amend));
  EXPECT_EQ(rig.amended, 1u);
  EXPECT_FALSE(rig.updates.publish_pending());
}

TEST(McastPublish, WithoutASnapshotItStaysDue) {
  Rig rig;
  rig.have_snapshot = false;
  rig.tables_changed();
  EXPECT_FALSE(rig.updates.publish(rig.mcast, rig.amend));
  EXPECT_TRUE(rig.updates.publish_pending());
  rig.have_snapshot = true;
  EXPECT_TRUE(rig.updates.publish(rig.mcast, rig.amend));
  EXPECT_EQ(rig.amended, 1u);
}

TEST(McastPublish, AFullSnapshotTakesThePendingChanges) {
  Rig rig;
  rig.tables_changed();
  rig.updates.snapshot_published(rig.mcast);
  EXPECT_FALSE(rig.updates.publish(rig.mcast, rig.amend));
  EXPECT_EQ(rig.amended, 0u);
}

TEST(McastPublish, AmendmentsTakeAtMostATenthOfTheTime) {
  Rig rig;
  // An amendment that costs at least 2 ms of wall time (a big fabric's copy).
  McastUpdates::Amend slow = [&](const MulticastManager&) {
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < 2ms) {
    }
    ++rig.amended;
    return true;
  };
  rig.tables_changed();
  EXPECT_TRUE(rig.updates.publish(rig.mcast, slow));
  rig.tables_changed();
  rig.clock.advance(10ms);  // under ten times 2 ms
  EXPECT_FALSE(rig.updates.publish(rig.mcast, slow));
  EXPECT_TRUE(rig.updates.publish_pending());
  rig.clock.advance(1h);
  EXPECT_TRUE(rig.updates.publish(rig.mcast, slow));
  EXPECT_EQ(rig.amended, 2u);
}

}  // namespace
}  // namespace ibsm::sm::mcast
