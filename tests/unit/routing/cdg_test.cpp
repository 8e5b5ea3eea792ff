// The channel dependency checker on hand-drawn cases: a ring routed clockwise has the
// ring of channels as a cycle, a tree has none, VLs separate dependencies, and min-hop
// routing really is cyclic on rings and tori (so the checker can fail).
#include "routing/cdg.hpp"

#include <gtest/gtest.h>

#include "tests/support/builders.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/switch_graph.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

using testsupport::to_routing;

PortNum port_to(const Switch& sw, std::uint32_t peer) {
  for (const Link& l : sw.links)
    if (l.kind == Link::Kind::kSwitch && l.peer == peer) return l.port;
  return kNoPath;
}

// Every switch of an n-ring sends whatever is not its own clockwise: shortest for half
// of the pairs, and the classic credit loop (Dally & Seitz 1987, fig. 1).
Routes clockwise(const Topology& t) {
  const auto n = static_cast<std::uint32_t>(t.switches.size());
  Lid max = 0;
  for (const Switch& s : t.switches)
    max = std::max(max, s.lid);
  for (const EndPort& e : t.end_ports)
    max = std::max(max, e.base_lid);
  Routes r;
  for (std::uint32_t s = 0; s < n; ++s) {
    Lft lft(max + 1U, port_to(t.switches[s], (s + 1) % n));
    lft[0] = kNoPath;
    lft[t.switches[s].lid] = 0;
    for (const EndPort& e : t.end_ports)
      if (e.sw == s) lft[e.base_lid] = e.sw_port;
    r.lfts.push_back(std::move(lft));
  }
  return r;
}

TEST(Cdg, ClockwiseRingHasTheRingAsCycle) {
  const Topology t = to_routing(test::switch_graph(4, test::ring_edges(4))).topo;
  const CdgReport rep = check_channel_dependencies(t, clockwise(t));
  EXPECT_EQ(rep.channels, 8U);
  ASSERT_EQ(rep.vls.size(), 1U);
  EXPECT_EQ(rep.vls[0].vl, 0);
  EXPECT_FALSE(rep.acyclic());
  // Only clockwise channels carry traffic, and each feeds the next: 4 dependencies.
  EXPECT_EQ(rep.vls[0].dependencies, 4U);
  ASSERT_EQ(rep.vls[0].cycle.size(), 4U);
  for (const CdgChannel& c : rep.vls[0].cycle)
    EXPECT_EQ(c.peer, (c.sw + 1) % 4);
  EXPECT_EQ(describe_cycle(t, rep.vls[0].cycle),
            "0x0000000000200000/2 -> 0x0000000000200001/3 -> 0x0000000000200002/3 -> "
            "0x0000000000200003/3 -> 0x0000000000200000/2");
}

TEST(Cdg, VlsSplitTheRingsDependencies) {
  // Sources on s0 and s1 use VL 0, those on s2 and s3 VL 1: each VL's paths stop before
  // closing the ring, so each CDG is acyclic although their union is not.
  const Topology t = to_routing(test::switch_graph(4, test::ring_edges(4))).topo;
  CdgOptions opt;
  opt.vl_of = [&](std::uint32_t src, Lid) -> std::uint8_t {
    return t.end_ports[src].sw < 2 ? 0 : 1;
  };
  const CdgReport rep = check_channel_dependencies(t, clockwise(t), opt);
  ASSERT_EQ(rep.vls.size(), 2U);
  EXPECT_EQ(rep.vls[0].vl, 0);
  EXPECT_EQ(rep.vls[1].vl, 1);
  EXPECT_TRUE(rep.vls[0].acyclic);
  EXPECT_TRUE(rep.vls[1].acyclic);
  EXPECT_EQ(rep.vls[0].dependencies, 3U);
  EXPECT_EQ(rep.vls[1].dependencies, 3U);
  // The same paths on one VL (any VL number) close the loop.
  opt.vl_of = [](std::uint32_t, Lid) -> std::uint8_t { return 3; };
  const CdgReport one = check_channel_dependencies(t, clockwise(t), opt);
  ASSERT_EQ(one.vls.size(), 1U);
  EXPECT_EQ(one.vls[0].vl, 3);
  EXPECT_FALSE(one.acyclic());
}

TEST(Cdg, TreeIsAcyclic) {
  const Topology t = to_routing(testsupport::kary_ntree(2, 3)).topo;
  const CdgReport rep = check_channel_dependencies(t, test::route_with(t, "minhop"));
  ASSERT_EQ(rep.vls.size(), 1U);
  EXPECT_GT(rep.vls[0].dependencies, 0U);
  EXPECT_TRUE(rep.acyclic());
  EXPECT_TRUE(rep.vls[0].cycle.empty());
}

TEST(Cdg, SwitchOriginatedTrafficClosesALoopOnMinhopTrees) {
  // End-port traffic on a 2-level tree only turns leaf->spine->leaf; spine-to-spine
  // management paths add spine->leaf->spine and with it a cycle. Hence the default scope.
  const Topology t = to_routing(testsupport::two_level_fat_tree(3, 2, 2)).topo;
  const Routes r = test::route_with(t, "minhop");
  EXPECT_TRUE(check_channel_dependencies(t, r).acyclic());
  CdgOptions opt;
  opt.include_switch_sources = true;
  EXPECT_FALSE(check_channel_dependencies(t, r, opt).acyclic());
}

TEST(Cdg, MinhopIsCyclicOnRingsAndTori) {
  const Topology ring = to_routing(test::switch_graph(6, test::ring_edges(6))).topo;
  EXPECT_FALSE(check_channel_dependencies(ring, test::route_with(ring, "minhop")).acyclic());
  const Topology torus = to_routing(testsupport::torus({4, 4, 1}, 1)).topo;
  EXPECT_FALSE(check_channel_dependencies(torus, test::route_with(torus, "minhop")).acyclic());
}

TEST(Cdg, ForwardingLoopIsACycle) {
  const Topology t = to_routing(test::switch_graph(2, {{0, 1}})).topo;
  Routes r = test::route_with(t, "minhop");
  // s0 sends s1's host back over the link it came from: s1 -> s0 -> s1 -> ...
  const Lid victim = t.end_ports[1].sw == 1 ? t.end_ports[1].base_lid : t.end_ports[0].base_lid;
  r.lfts[1][victim] = port_to(t.switches[1], 0);
  const CdgReport rep = check_channel_dependencies(t, r);
  EXPECT_FALSE(rep.acyclic());
  EXPECT_EQ(rep.vls[0].cycle.size(), 2U);
}

TEST(Cdg, NoSwitchesNoChannels) {
  const Topology t;
  const CdgReport rep = check_channel_dependencies(t, Routes{});
  EXPECT_EQ(rep.channels, 0U);
  EXPECT_TRUE(rep.acyclic());
}

}  // namespace
}  // namespace ibsm::routing
