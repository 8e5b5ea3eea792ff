// Route analysis on hand-written LFTs: delivery, loops, black holes, channel loads.
//
//   h0 --1[ s0 ]3====3[ s1 ]1-- h2        (s0 port 5 <-> s1 port 5 is a second cable)
//   h1 --2[    ]5----5[    ]2-- h3
#include <gtest/gtest.h>

#include "routing/analysis.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

constexpr std::string_view kNet = R"(Switch 8 "s0"
[1] "h0"[1]
[2] "h1"[1]
[3] "s1"[3]
[5] "s1"[5]

Switch 8 "s1"
[1] "h2"[1]
[2] "h3"[1]
[3] "s0"[3]
[5] "s0"[5]

Hca 1 "h0"
[1] "s0"[1]

Hca 1 "h1"
[1] "s0"[2]

Hca 1 "h2"
[1] "s1"[1]

Hca 1 "h3"
[1] "s1"[2]
)";

// LIDs: s0 = 1, s1 = 2, h0..h3 = 3..6.
class AnalysisTest : public ::testing::Test {
 protected:
  Topology topo = testsupport::to_routing(test::parse_or_fail(kNet)).topo;
  // Everything to the other switch over port 3; port 5 unused.
  Routes good{{{kNoPath, 0, 3, 1, 2, 3, 3}, {kNoPath, 3, 0, 3, 3, 1, 2}}};
};

TEST_F(AnalysisTest, GoodTablesDeliverEveryPair) {
  const PairCheck pc = check_all_pairs(topo, good);
  EXPECT_EQ(pc.pairs, 12U + 8U);  // 4 hosts to 3 hosts, and to 2 switches' port 0
  EXPECT_EQ(pc.switch_pairs, 8U);
  EXPECT_EQ(pc.end_port_pairs(), 12U);
  EXPECT_TRUE(pc.unreached.empty());
  EXPECT_TRUE(pc.all_delivered());
  EXPECT_EQ(pc.loops + pc.black_holes, 0U);
}

TEST_F(AnalysisTest, TraceListsSwitchesAndPorts) {
  const Trace t = trace_route(topo, good, 0, 5);  // h0 -> h2
  EXPECT_EQ(t.outcome, Delivery::kDelivered);
  ASSERT_EQ(t.hops.size(), 2U);
  EXPECT_EQ(t.hops[0].sw, 0U);
  EXPECT_EQ(t.hops[0].out_port, 3);
  EXPECT_EQ(t.hops[1].sw, 1U);
  EXPECT_EQ(t.hops[1].out_port, 1);
  EXPECT_EQ(trace_route(topo, good, 0, 2).outcome, Delivery::kDelivered);  // to switch s1
}

TEST_F(AnalysisTest, LoopIsDetected) {
  Routes r = good;
  r.lfts[1][5] = 3;  // s1 sends h2's LID back to s0, s0 sends it to s1 again
  EXPECT_EQ(trace_route(topo, r, 0, 5).outcome, Delivery::kLoop);
  const PairCheck pc = check_all_pairs(topo, r);
  EXPECT_EQ(pc.loops, 3U);  // h0, h1, h3 -> h2
  EXPECT_FALSE(pc.all_delivered());
  ASSERT_FALSE(pc.examples.empty());
  EXPECT_NE(pc.examples[0].find("loop"), std::string::npos);
}

TEST_F(AnalysisTest, SwitchLidsAreDestinationsToo) {
  Routes r = good;
  r.lfts[0][2] = kNoPath;  // s0 has no entry for s1's LID: h0 and h1 cannot read s1
  const PairCheck pc = check_all_pairs(topo, r);
  EXPECT_EQ(pc.switch_unreachable(), 2U);
  EXPECT_EQ(pc.end_port_unreachable(), 0U);
  EXPECT_EQ(pc.unreached, std::vector<Lid>{2});
}

TEST_F(AnalysisTest, BlackHolesAreDetected) {
  Routes r = good;
  r.lfts[0][6] = kNoPath;  // no entry
  r.lfts[1][5] = 4;        // a port without a cable
  r.lfts[1][4] = 1;        // delivered to the wrong host
  const PairCheck pc = check_all_pairs(topo, r);
  EXPECT_EQ(pc.black_holes, 2U + 3U + 2U);
  EXPECT_EQ(pc.loops, 0U);
  EXPECT_EQ(trace_route(topo, r, 2, 4).outcome, Delivery::kBlackHole);
}

TEST_F(AnalysisTest, ChannelLoadsCountAllToAllRoutes) {
  const ChannelLoads cl = channel_loads(topo, good);
  ASSERT_EQ(cl.channels.size(), 4U);  // two cables, both directions
  EXPECT_EQ(cl.max, 4U);              // 2 sources x 2 destinations on port 3 each way
  EXPECT_EQ(cl.min, 0U);
  EXPECT_EQ(cl.unused, 2U);  // the port-5 cable
  EXPECT_DOUBLE_EQ(cl.mean, 2.0);
  for (const ChannelLoad& c : cl.channels)
    EXPECT_EQ(c.routes, c.port == 3 ? 4U : 0U);
}

TEST_F(AnalysisTest, UndeliveredRoutesDoNotLoadChannels) {
  Routes r = good;
  r.lfts[1][5] = 4;  // black hole for h2 at s1
  const ChannelLoads cl = channel_loads(topo, r);
  for (const ChannelLoad& c : cl.channels) {
    if (c.sw == 0 && c.port == 3) {
      EXPECT_EQ(c.routes, 2U);  // only h3 still reached via s1
    }
  }
}

// A full 2-level fat tree: two leaves with two hosts each, two spines.
//
//        spine0        spine1          leaf port 3 -> spine0, port 4 -> spine1;
//        1    2        1    2          spine port 1 -> leaf0, port 2 -> leaf1
//      leaf0   leaf1 (ports 1, 2: hosts)
//     h0  h1   h2  h3
constexpr std::string_view kTree = R"(Switch 4 "leaf0"
[1] "h0"[1]
[2] "h1"[1]
[3] "spine0"[1]
[4] "spine1"[1]

Switch 4 "leaf1"
[1] "h2"[1]
[2] "h3"[1]
[3] "spine0"[2]
[4] "spine1"[2]

Switch 2 "spine0"
[1] "leaf0"[3]
[2] "leaf1"[3]

Switch 2 "spine1"
[1] "leaf0"[4]
[2] "leaf1"[4]

Hca 1 "h0"
[1] "leaf0"[1]

Hca 1 "h1"
[1] "leaf0"[2]

Hca 1 "h2"
[1] "leaf1"[1]

Hca 1 "h3"
[1] "leaf1"[2]
)";

// LIDs: leaf0 = 1, leaf1 = 2, spine0 = 3, spine1 = 4, h0..h3 = 5..8.
class TreePatternTest : public ::testing::Test {
 protected:
  Topology topo = testsupport::to_routing(test::parse_or_fail(kTree)).topo;
  // Destination-mod-k (what ftree does on a full tree): the first host of a leaf is
  // reached over spine0, the second over spine1, so no two flows share an uplink unless
  // they go to the same host.
  Routes optimal{{{kNoPath, 0, 3, 3, 4, 1, 2, 3, 4},
                  {kNoPath, 3, 0, 3, 4, 3, 4, 1, 2},
                  {kNoPath, 1, 2, 0, 1, 1, 1, 2, 2},
                  {kNoPath, 1, 2, 1, 0, 1, 1, 2, 2}}};
  // Every host of the other leaf over spine0: the two flows leaving a leaf collide.
  Routes bad = [this] {
    Routes r = optimal;
    r.lfts[0][8] = 3;  // leaf0 -> h3 over spine0
    r.lfts[1][6] = 3;  // leaf1 -> h1 over spine0
    return r;
  }();
};

TEST_F(TreePatternTest, LeafMajorOrderFollowsSwitchThenPort) {
  EXPECT_EQ(leaf_major_order(topo), (std::vector<std::uint32_t>{0, 1, 2, 3}));
}

TEST_F(TreePatternTest, OptimalRoutingHasFullBisectionBandwidth) {
  const EbbResult ebb = effective_bisection_bandwidth(topo, optimal, {50, 7});
  EXPECT_EQ(ebb.patterns, 50U);
  EXPECT_EQ(ebb.flows, 200U);  // 4 flows per bisection
  EXPECT_EQ(ebb.undelivered, 0U);
  EXPECT_DOUBLE_EQ(ebb.mean, 1.0);
  EXPECT_DOUBLE_EQ(ebb.min, 1.0);
}

TEST_F(TreePatternTest, CollidingUplinksHalveCrossLeafBisections) {
  // A bisection pairs hosts across the leaves with probability 2/3; then both flows out
  // of each leaf share spine0 (congestion 2, bandwidth 1/2). Within-leaf pairings get 1.
  const EbbResult ebb = effective_bisection_bandwidth(topo, bad, {300, 7});
  EXPECT_DOUBLE_EQ(ebb.min, 0.5);
  EXPECT_DOUBLE_EQ(ebb.max, 1.0);
  EXPECT_NEAR(ebb.mean, 2.0 / 3.0, 0.06);
}

TEST_F(TreePatternTest, SameSeedSameBisections) {
  const EbbResult a = effective_bisection_bandwidth(topo, bad, {20, 3});
  const EbbResult b = effective_bisection_bandwidth(topo, bad, {20, 3});
  EXPECT_DOUBLE_EQ(a.mean, b.mean);
}

TEST_F(TreePatternTest, OptimalRoutingShiftsAreCongestionFree) {
  const ShiftResult sh = shift_congestion(topo, optimal);
  EXPECT_EQ(sh.shifts, 3U);
  EXPECT_EQ(sh.worst, 1U);
  EXPECT_DOUBLE_EQ(sh.mean, 1.0);
  EXPECT_EQ(sh.undelivered, 0U);
}

TEST_F(TreePatternTest, BadRoutingCongestsTheCrossLeafShift) {
  // k = 2 sends h0 -> h2 and h1 -> h3: both over leaf0 -> spine0. k = 1 and 3 cross one
  // flow per direction.
  const ShiftResult sh = shift_congestion(topo, bad);
  EXPECT_EQ(sh.worst, 2U);
  EXPECT_EQ(sh.worst_shift, 2U);
  EXPECT_DOUBLE_EQ(sh.mean, 4.0 / 3.0);
}

TEST_F(TreePatternTest, ShiftsCanBeSampledAndReordered) {
  ShiftOptions one;
  one.max_shifts = 1;  // k = 1 only
  EXPECT_EQ(shift_congestion(topo, bad, one).worst, 1U);
  ShiftOptions interleaved;
  interleaved.order = {0, 2, 1, 3};  // h0 h2 h1 h3: now k = 1 pairs h0 -> h2 and h1 -> h3
  interleaved.max_shifts = 1;
  EXPECT_EQ(shift_congestion(topo, bad, interleaved).worst, 2U);
}

TEST_F(TreePatternTest, PathStatsCountInterSwitchHops) {
  const PathStats ps = path_stats(topo, optimal);
  EXPECT_EQ(ps.paths, 12U);
  EXPECT_DOUBLE_EQ(ps.mean_hops, 16.0 / 12.0);  // 8 cross-leaf pairs x 2 hops, 4 local
  EXPECT_EQ(ps.max_hops, 2U);
  EXPECT_EQ(ps.non_minimal, 0U);
}

TEST_F(TreePatternTest, UndeliveredFlowsGetNoBandwidth) {
  Routes r = optimal;
  r.lfts[0][7] = kNoPath;  // leaf0 drops everything for h2
  const EbbResult ebb = effective_bisection_bandwidth(topo, r, {50, 7});
  EXPECT_GT(ebb.undelivered, 0U);
  EXPECT_LT(ebb.mean, 1.0);
  EXPECT_EQ(path_stats(topo, r).paths, 10U);
}

// Three switches in a ring, one host each: s0 -> h2 the long way round is a detour.
constexpr std::string_view kRing = R"(Switch 3 "s0"
[1] "h0"[1]
[2] "s1"[3]
[3] "s2"[2]

Switch 3 "s1"
[1] "h1"[1]
[2] "s2"[3]
[3] "s0"[2]

Switch 3 "s2"
[1] "h2"[1]
[2] "s0"[3]
[3] "s1"[2]

Hca 1 "h0"
[1] "s0"[1]

Hca 1 "h1"
[1] "s1"[1]

Hca 1 "h2"
[1] "s2"[1]
)";

TEST(PathStatsTest, DetoursAreNonMinimal) {
  const Topology topo = testsupport::to_routing(test::parse_or_fail(kRing)).topo;
  // LIDs: s0..s2 = 1..3, h0..h2 = 4..6. Shortest paths everywhere except s0 -> h2 via s1.
  const Routes r{
      {{kNoPath, 0, 2, 3, 1, 2, 2}, {kNoPath, 3, 0, 2, 3, 1, 2}, {kNoPath, 2, 3, 0, 2, 3, 1}}};
  const PathStats ps = path_stats(topo, r);
  EXPECT_EQ(ps.paths, 6U);
  EXPECT_EQ(ps.non_minimal, 1U);
  EXPECT_EQ(ps.max_hops, 2U);
  EXPECT_DOUBLE_EQ(ps.mean_hops, 7.0 / 6.0);
}

}  // namespace
}  // namespace ibsm::routing
