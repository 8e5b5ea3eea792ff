// lash on small drawn fabrics and seeded random irregular ones: every pair delivered,
// each VL's channel dependency graph acyclic as routing/cdg.hpp grades it from the LFTs
// and the exported SLs alone, both directions of a switch pair on one SL, SLs within
// lash_start_vl .. max_vls - 1, the layer budget refused with IBSM-3070, and golden SLs
// for a ring of five.
#include <gtest/gtest.h>

#include <algorithm>

#include "routing/analysis.hpp"
#include "routing/cdg.hpp"
#include "routing/errors.hpp"
#include "routing/lash/lash.hpp"
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

Routed route(const Fabric& f, unsigned max_vls = 8, unsigned start = 0, std::uint8_t lmc = 0) {
  Routed r{to_routing(f, lmc).topo};
  EngineConfig config;
  config.max_vls = max_vls;
  config.lash_start_vl = start;
  r.routes = make_engine("lash", config)->route(r.topo);
  return r;
}

// lash's contract on fabric f.
void expect_sound(const Fabric& f, unsigned max_vls = 8, unsigned start = 0, std::uint8_t lmc = 0) {
  const Routed r = route(f, max_vls, start, lmc);
  ASSERT_TRUE(r.routes.ok()) << to_string(r.routes.error());
  const Routes& routes = *r.routes;
  const PairCheck pc = check_all_pairs(r.topo, routes);
  EXPECT_TRUE(pc.all_delivered()) << (pc.examples.empty() ? "" : pc.examples[0]);
  ASSERT_FALSE(routes.path_sl.empty());
  EXPECT_LE(routes.path_sl.layers, max_vls - start);
  EXPECT_LE(routes.path_sl.sls, max_vls - start);
  for (std::uint8_t sl : routes.path_sl.table) {
    EXPECT_GE(sl, start);
    EXPECT_LT(sl, max_vls);
  }
  // Both directions of a pair of switches with end ports travel on one SL.
  for (const EndPort& a : r.topo.end_ports)
    for (const EndPort& b : r.topo.end_ports)
      EXPECT_EQ(routes.path_sl.sl(a.sw, b.base_lid), routes.path_sl.sl(b.sw, a.base_lid));
  const CdgReport cdg = check_channel_dependencies(r.topo, routes, test::sl_as_vl(r.topo, routes));
  for (const CdgVl& v : cdg.vls)
    EXPECT_TRUE(v.acyclic) << "VL " << int{v.vl} << ": " << describe_cycle(r.topo, v.cycle);
  EXPECT_TRUE(make_route_report(r.topo, routes).acyclic());
}

TEST(Lash, RegisteredAndDeadlockFree) {
  auto e = make_engine("lash");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name(), "lash");
  EXPECT_TRUE(e->deadlock_free());
  const auto names = engine_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "lash"), names.end());
}

TEST(Lash, RingOfFiveNeedsTwoLayers) {
  // Every 2-hop path of a 5-ring is the unique shortest one: on one VL they close the
  // ring's cycles in both directions (dfsssp_test explains), so one layer cannot do.
  const Fabric f = test::switch_graph(5, test::ring_edges(5), 1);
  const Routed one = route(f, 1);
  ASSERT_FALSE(one.routes.ok());
  EXPECT_EQ(one.routes.error().id, kErrLashVlsExhausted);
  EXPECT_NE(one.routes.error().message.find("fit in none of the 1 layers"), std::string::npos)
      << one.routes.error().message;
  const Routed two = route(f, 2);
  ASSERT_TRUE(two.routes.ok());
  EXPECT_EQ(two.routes->path_sl.layers, 2U);
  EXPECT_FALSE(check_channel_dependencies(two.topo, *two.routes).acyclic())
      << "min-hop's tables on one VL are cyclic: the SLs make them safe";
  expect_sound(f, 2);
}

// Ring s0-s1-s2-s3-s4-s0. Pairs are placed in switch order, first fit. Adjacent pairs
// have no turns; each 2-hop pair adds one turn per direction. Before s2-s4, layer 0 holds
// c01->c12 (s0-s2), c12->c23 (s1-s3), c34->c40 (s0-s3), c40->c01 (s1-s4) clockwise and
// the mirror turns anticlockwise: s2-s4's c23->c34 would close both rings, so it alone
// goes to layer 1. Rows: source switch; columns: the host of each switch; the SL.
constexpr std::string_view kGoldenRing5 =
    "00000\n"
    "00000\n"
    "00001\n"
    "00000\n"
    "00100\n";

TEST(Lash, GoldenSlsOfARingOfFive) {
  const Fabric f = test::switch_graph(5, test::ring_edges(5), 1);
  const Routed r = route(f, 2);
  ASSERT_TRUE(r.routes.ok());
  EXPECT_EQ(test::per_switch_table(
                r.topo, [&](std::uint32_t s, Lid d) { return r.routes->path_sl.sl(s, d); }),
            kGoldenRing5);
}

TEST(Lash, StartVlShiftsTheSls) {
  const Fabric f = test::switch_graph(6, test::ring_edges(6), 2);
  expect_sound(f, 8, 3);
  const Routed r = route(f, 8, 3);
  ASSERT_TRUE(r.routes.ok());
  EXPECT_EQ(r.routes->path_sl.sls, 5U) << "SLs 3-7: the spare VLs are shared out";
  const Routed none = route(f, 8, 8);
  ASSERT_FALSE(none.routes.ok());
  EXPECT_EQ(none.routes.error().id, kErrLashVlsExhausted);
  EXPECT_NE(none.routes.error().message.find("lash_start_vl 8"), std::string::npos);
}

TEST(Lash, OneLayerOnAFatTreeSharedOverEveryVl) {
  const Routed r = route(testsupport::kary_ntree(4, 3), 8);
  ASSERT_TRUE(r.routes.ok());
  EXPECT_EQ(r.routes->path_sl.layers, 1U);
  EXPECT_EQ(r.routes->path_sl.sls, 8U);
  expect_sound(testsupport::kary_ntree(4, 3), 8);
  expect_sound(testsupport::kary_ntree(4, 3), 1);
}

TEST(Lash, DrawnFabrics) {
  expect_sound(testsupport::torus({3, 3, 1}, 1));
  expect_sound(testsupport::torus({4, 4, 1}, 2));
  expect_sound(testsupport::torus({4, 4, 1}, 1), 8, 0, 1);  // LMC 1: every LID layered
  expect_sound(test::switch_graph(10, test::petersen_edges(), 1));
  expect_sound(test::tree_with_cross_link());
  expect_sound(test::tree_with_dead_link(), 2);
}

class LashRandom : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(LashRandom, IrregularFabricIsCompleteAndLayeredAcyclic) {
  const std::uint32_t seed = GetParam();
  const unsigned n = 6 + seed % 25;
  expect_sound(test::switch_graph(n, test::random_edges(n, n, 6, seed), 1 + seed % 2), 15);
}

INSTANTIATE_TEST_SUITE_P(Seeds, LashRandom, ::testing::Range<std::uint32_t>(1, 31));

}  // namespace
}  // namespace ibsm::routing
