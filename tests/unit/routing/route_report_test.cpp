// The route report: its numbers agree with the analysis it is built from, and its two
// formats say what an operator needs (unreachable pairs, CDG acyclic or the cycle, EFI).
#include "routing/route_report.hpp"

#include <gtest/gtest.h>

#include "routing/analysis.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/switch_graph.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

using testsupport::to_routing;

TEST(RouteReport, FatTreeMinhop) {
  const Topology t = to_routing(testsupport::two_level_fat_tree(3, 2, 2)).topo;
  const Routes r = test::route_with(t, "minhop");
  const RouteReport rep = make_route_report(t, r);
  // 6 hosts to the 5 other hosts and to the 5 switches' port 0.
  EXPECT_EQ(rep.pairs, 6U * 5U + 6U * 5U);
  EXPECT_EQ(rep.ca_pairs, 6U * 5U);
  EXPECT_EQ(rep.switch_pairs, 6U * 5U);
  EXPECT_EQ(rep.unreachable, 0U);
  EXPECT_TRUE(rep.complete());
  EXPECT_TRUE(rep.acyclic());
  const ChannelLoads cl = channel_loads(t, r);
  EXPECT_EQ(rep.max_efi, cl.max);
  EXPECT_EQ(rep.channels, 12U);
  EXPECT_EQ(rep.vls_used, (std::vector<std::uint8_t>{0}));
  const std::string line = format_route_report_line(rep);
  EXPECT_EQ(line.rfind("pairs 60 unreachable 0 (CA 0 of 30, switch 0 of 30; loops 0), CDG "
                       "acyclic, EFI max " +
                           std::to_string(cl.max) + " mean ",
                       0),
            0U)
      << line;
  EXPECT_NE(line.find(" over 12 channels (0 unused), VLs 0"), std::string::npos) << line;
  const std::string text = format_route_report_text(t, rep, "minhop", 1.25);
  EXPECT_NE(text.find("engine: minhop\n"), std::string::npos);
  EXPECT_NE(text.find("routing_ms: 1.2"), std::string::npos);
  EXPECT_NE(text.find("cdg_acyclic: yes\n"), std::string::npos);
  EXPECT_NE(text.find("unreachable_pairs: 0\n"), std::string::npos);
  EXPECT_NE(text.find("ca_pairs: 30\nunreachable_ca_pairs: 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("switch_pairs: 30\nunreachable_switch_pairs: 0\n"), std::string::npos);
}

// A switch's port 0 that some hosts cannot reach is counted as a management pair, apart
// from the CA pairs, and makes the tables incomplete.
TEST(RouteReport, UnreachableSwitchLidsAreCountedApart) {
  const Topology t = to_routing(testsupport::two_level_fat_tree(3, 2, 2)).topo;
  Routes r = test::route_with(t, "minhop");
  // leaf0 (the switch of the first host) drops the LID of a spine: its 2 hosts lose it.
  std::uint32_t spine = 0;
  while (t.switches[spine].description.find("spine") == std::string::npos)
    ++spine;
  r.lfts[t.end_ports.front().sw][t.switches[spine].lid] = kNoPath;
  const RouteReport rep = make_route_report(t, r);
  EXPECT_EQ(rep.unreachable, 2U);
  EXPECT_EQ(rep.ca_unreachable, 0U);
  EXPECT_EQ(rep.switch_unreachable, 2U);
  EXPECT_FALSE(rep.complete());
  const std::string line = format_route_report_line(rep);
  EXPECT_NE(line.find("unreachable 2 (CA 0 of 30, switch 2 of 30; loops 0)"), std::string::npos)
      << line;
  EXPECT_NE(format_route_report_text(t, rep, "minhop", 0).find("unreachable_switch_pairs: 2\n"),
            std::string::npos);
}

TEST(RouteReport, CycleAndUnreachablePairsAreShown) {
  const Topology t = to_routing(test::switch_graph(6, test::ring_edges(6))).topo;
  Routes r = test::route_with(t, "minhop");
  // Drop s0's route towards s5's host: h0_0 and h1_0 (whose path crosses s0) lose it.
  const Lid victim = t.end_ports.back().base_lid;
  r.lfts[t.end_ports.front().sw][victim] = kNoPath;
  const RouteReport rep = make_route_report(t, r);
  EXPECT_EQ(rep.unreachable, 2U);
  EXPECT_FALSE(rep.acyclic());
  const std::string line = format_route_report_line(rep);
  EXPECT_NE(line.find("unreachable 2 (CA 2 of "), std::string::npos) << line;
  EXPECT_EQ(rep.ca_unreachable, 2U);
  EXPECT_EQ(rep.switch_unreachable, 0U);
  EXPECT_NE(line.find("CDG CYCLIC on VL 0"), std::string::npos) << line;
  const std::string text = format_route_report_text(t, rep, "minhop", 0);
  EXPECT_NE(text.find("cdg_acyclic: no\n"), std::string::npos);
  EXPECT_NE(text.find("  cycle: 0x"), std::string::npos) << text;
  EXPECT_NE(text.find("unreachable: h0_0 -> LID"), std::string::npos) << text;
}

TEST(RouteReport, UpdnOnTheSameRingIsAcyclic) {
  const Topology t = to_routing(test::switch_graph(6, test::ring_edges(6))).topo;
  const RouteReport rep = make_route_report(t, test::route_with(t, "updn"));
  EXPECT_EQ(rep.unreachable, 0U);
  EXPECT_TRUE(rep.acyclic());
}

}  // namespace
}  // namespace ibsm::routing
