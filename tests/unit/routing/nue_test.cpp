// nue on small drawn fabrics and seeded random irregular ones: every pair delivered and
// every VL's channel dependency graph acyclic as routing/cdg.hpp grades it from the LFTs
// and SLs alone, with one VL (no SLs at all) and with several (an SL per destination),
// including the fabrics other engines cannot route within the budget (rings, tori on one
// VL), and golden tables for a ring of five.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "routing/analysis.hpp"
#include "routing/cdg.hpp"
#include "routing/lft_dump.hpp"
#include "routing/route_report.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/layered_helpers.hpp"
#include "tests/unit/routing/switch_graph.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

using testsupport::Fabric;
using testsupport::to_routing;

struct Routed {
  Topology topo;
  Result<Routes> routes = Routes{};
};

Routed route(const Fabric& f, unsigned vls = 1, std::uint8_t lmc = 0) {
  Routed r{to_routing(f, lmc).topo};
  EngineConfig config;
  config.max_vls = 8;
  config.nue_max_vls = vls;
  r.routes = make_engine("nue", config)->route(r.topo);
  return r;
}

// nue's contract on fabric f with `vls` layers.
Routed expect_sound(const Fabric& f, unsigned vls = 1, std::uint8_t lmc = 0) {
  Routed r = route(f, vls, lmc);
  EXPECT_TRUE(r.routes.ok());
  if (!r.routes.ok()) return r;
  const Routes& routes = *r.routes;
  const PairCheck pc = check_all_pairs(r.topo, routes);
  EXPECT_GT(pc.pairs, 0U);
  EXPECT_TRUE(pc.all_delivered()) << pc.loops << " loops, " << pc.black_holes
                                  << " black holes, e.g. "
                                  << (pc.examples.empty() ? "" : pc.examples[0]);
  if (vls == 1) {
    EXPECT_TRUE(routes.path_sl.empty()) << "one layer: SL 0, no SL2VL needed";
  } else {
    EXPECT_LE(routes.path_sl.sls, vls);
    for (std::uint8_t sl : routes.path_sl.table)
      EXPECT_LT(sl, vls);
    // The SL depends on the destination only.
    for (const EndPort& d : r.topo.end_ports)
      for (std::uint32_t s = 1; s < r.topo.switches.size(); ++s)
        EXPECT_EQ(routes.path_sl.sl(s, d.base_lid), routes.path_sl.sl(0, d.base_lid));
  }
  const CdgReport cdg = check_channel_dependencies(
      r.topo, routes, test::sl_as_vl(r.topo, routes, routes.path_sl.empty()));
  for (const CdgVl& v : cdg.vls)
    EXPECT_TRUE(v.acyclic) << "VL " << int{v.vl} << ": " << describe_cycle(r.topo, v.cycle);
  EXPECT_TRUE(make_route_report(r.topo, routes).acyclic());
  return r;
}

TEST(Nue, RegisteredAndDeadlockFree) {
  auto e = make_engine("nue");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name(), "nue");
  EXPECT_TRUE(e->deadlock_free());
  const auto names = engine_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "nue"), names.end());
}

TEST(Nue, RingsOnOneVl) {
  // dfsssp and lash need 2 layers here (their shortest paths close the ring); nue routes
  // within one, taking a detour for the turn it must not make.
  for (unsigned n = 3; n <= 8; ++n)
    expect_sound(test::switch_graph(n, test::ring_edges(n), 2), 1);
}

TEST(Nue, TorusOnOneVlAndOnSeveral) {
  for (unsigned vls : {1U, 2U, 4U, 8U}) {
    expect_sound(testsupport::torus({3, 3, 1}, 1), vls);
    expect_sound(testsupport::torus({4, 4, 1}, 2), vls);
  }
  expect_sound(testsupport::torus({4, 4, 4}, 1), 1);
  expect_sound(testsupport::torus({4, 4, 1}, 1), 2, 1);  // LMC 1: every LID routed
}

TEST(Nue, DrawnIrregularFabrics) {
  expect_sound(test::switch_graph(10, test::petersen_edges(), 1), 1);
  expect_sound(test::switch_graph(10, test::petersen_edges(), 1), 3);
  expect_sound(test::tree_with_cross_link(), 1);
  expect_sound(test::tree_with_dead_link(), 1);
}

TEST(Nue, FatTreeKeepsShortestBalancedPaths) {
  // A fat tree's shortest paths are acyclic on one VL: nue must not detour there, and
  // its load balance should match min-hop's.
  const Fabric f = testsupport::kary_ntree(4, 3);
  const Routed r = expect_sound(f, 1);
  ASSERT_TRUE(r.routes.ok());
  const Routes m = test::route_with(r.topo, "minhop");
  for (std::uint32_t src = 0; src < r.topo.end_ports.size(); ++src)
    for (const EndPort& d : r.topo.end_ports)
      ASSERT_EQ(trace_route(r.topo, *r.routes, src, d.base_lid).hops.size(),
                trace_route(r.topo, m, src, d.base_lid).hops.size());
  EXPECT_LE(channel_loads(r.topo, *r.routes).max, channel_loads(r.topo, m).max);
}

// Ring s0-s1-s2-s3-s4-s0, host on port 1; s0 reaches s1 on port 2 and s4 on port 3,
// every other s<i> reaches s<i-1> on port 2 and s<i+1> on port 3. On one VL the ten 2-hop
// paths would close the ring both ways; nue breaks each direction once with a detour:
// s1 -> h3 goes s1-s0-s4-s3 (port 2) and s4 -> h2 goes s4-s0-s1-s2 (port 3). Every other
// path is shortest. Rows: switch; columns: the LFT port towards each switch's host.
constexpr std::string_view kGoldenRing5 =
    "12233\n"
    "21322\n"
    "22133\n"
    "32213\n"
    "33321\n";

TEST(Nue, GoldenTablesOfARingOfFive) {
  const Fabric f = test::switch_graph(5, test::ring_edges(5), 1);
  const Routed r = expect_sound(f, 1);
  ASSERT_TRUE(r.routes.ok());
  EXPECT_EQ(test::per_switch_table(
                r.topo, [&](std::uint32_t s, Lid d) { return unsigned{r.routes->lfts[s][d]}; }),
            kGoldenRing5);
}

class NueRandom : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(NueRandom, IrregularFabricIsCompleteAndAcyclicOnOneVlAndFour) {
  const std::uint32_t seed = GetParam();
  const unsigned n = 6 + seed % 25;
  const Fabric f = test::switch_graph(n, test::random_edges(n, n, 6, seed), 1 + seed % 2);
  expect_sound(f, 1);
  expect_sound(f, 4);
}

// The relief (nue.hpp) on three of those fabrics: the busiest channel after it (golden,
// 2026-11-26) and, in the comment, where the Dijkstra pass alone left it. Not an upper
// bound the engine promises, but a change that loses the relief shows here.
TEST(Nue, ReliefLowersTheBusiestChannelOfIrregularFabrics) {
  struct Case {
    std::uint32_t seed;
    unsigned vls;
    std::uint64_t efi;
  };
  for (const Case& c : {Case{9, 1, 56},      // 66 without the relief
                        Case{13, 4, 74},     // 94
                        Case{22, 1, 46},     // 72
                        Case{22, 4, 41}}) {  // 48
    const unsigned n = 6 + c.seed % 25;
    const Fabric f = test::switch_graph(n, test::random_edges(n, n, 6, c.seed), 1 + c.seed % 2);
    const Routed r = expect_sound(f, c.vls);
    ASSERT_TRUE(r.routes.ok());
    EXPECT_LE(channel_loads(r.topo, *r.routes).max, c.efi)
        << "seed " << c.seed << ", " << c.vls << " VLs";
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, NueRandom, ::testing::Range<std::uint32_t>(1, 31));

}  // namespace
}  // namespace ibsm::routing
