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
  EXPECT_EQ(pc.pairs, 12U);
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

}  // namespace
}  // namespace ibsm::routing
