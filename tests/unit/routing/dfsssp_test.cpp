// sssp and dfsssp on small drawn fabrics and seeded random irregular ones: every end-port
// pair delivered, dfsssp's layers each free of credit loops as graded by routing/cdg.hpp
// (which sees only the LFTs and the per-path SL, not the engine), the layer budget
// respected or refused with IBSM-3009, and SSSP's channel load no worse than minhop's.
#include <gtest/gtest.h>

#include <algorithm>

#include "routing/analysis.hpp"
#include "routing/cdg.hpp"
#include "routing/dfsssp.hpp"
#include "routing/errors.hpp"
#include "routing/route_report.hpp"
#include "routing/sssp.hpp"
#include "routing/virtual_layers.hpp"
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

Routed route(const Fabric& f, std::string_view engine, unsigned max_vls = 8, std::uint8_t lmc = 0) {
  Routed r{to_routing(f, lmc).topo};
  EngineConfig config;
  config.max_vls = max_vls;
  auto e = make_engine(engine, config);
  EXPECT_NE(e, nullptr);
  if (e) r.routes = e->route(r.topo);
  return r;
}

using test::sl_as_vl;

void expect_delivered(const Topology& topo, const Routes& routes) {
  const PairCheck pc = check_all_pairs(topo, routes);
  EXPECT_GT(pc.pairs, 0U);
  EXPECT_TRUE(pc.all_delivered()) << pc.loops << " loops, " << pc.black_holes
                                  << " black holes, e.g. "
                                  << (pc.examples.empty() ? "" : pc.examples[0]);
}

// dfsssp's contract: complete, at most max_vls layers and SLs, each VL's CDG acyclic.
void expect_sound_dfsssp(const Fabric& f, unsigned max_vls = 8, std::uint8_t lmc = 0) {
  const Routed r = route(f, "dfsssp", max_vls, lmc);
  ASSERT_TRUE(r.routes.ok()) << to_string(r.routes.error());
  const Routes& routes = *r.routes;
  expect_delivered(r.topo, routes);
  ASSERT_FALSE(routes.path_sl.empty());
  EXPECT_GE(routes.path_sl.layers, 1U);
  EXPECT_LE(routes.path_sl.layers, max_vls);
  EXPECT_LE(routes.path_sl.sls, max_vls);
  EXPECT_GE(routes.path_sl.sls, routes.path_sl.layers);
  for (std::uint8_t sl : routes.path_sl.table)
    EXPECT_LT(sl, routes.path_sl.sls);
  const CdgReport cdg = check_channel_dependencies(r.topo, routes, sl_as_vl(r.topo, routes));
  for (const CdgVl& v : cdg.vls) {
    EXPECT_LT(v.vl, max_vls);
    EXPECT_TRUE(v.acyclic) << "VL " << int{v.vl} << ": " << describe_cycle(r.topo, v.cycle);
  }
  // The route report the SM grades with reads the SLs by itself.
  EXPECT_TRUE(make_route_report(r.topo, routes).acyclic());
}

std::size_t distinct_sls(const Routes& routes) {
  std::vector<bool> seen(16, false);
  for (std::uint8_t sl : routes.path_sl.table)
    seen[sl & 0x0F] = true;
  return static_cast<std::size_t>(std::count(seen.begin(), seen.end(), true));
}

TEST(Sssp, Registered) {
  auto sssp = make_engine("sssp");
  ASSERT_NE(sssp, nullptr);
  EXPECT_EQ(sssp->name(), "sssp");
  EXPECT_FALSE(sssp->deadlock_free());
  auto dfsssp = make_engine("dfsssp");
  ASSERT_NE(dfsssp, nullptr);
  EXPECT_EQ(dfsssp->name(), "dfsssp");
  EXPECT_TRUE(dfsssp->deadlock_free());
  // Offered to the SM: it programs SL2VL and the SA hands out the SLs (engine.cpp).
  const auto names = engine_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "sssp"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "dfsssp"), names.end());
}

TEST(Sssp, RingsAreCompleteWithoutSls) {
  for (unsigned n = 4; n <= 6; ++n) {
    const Routed r = route(test::switch_graph(n, test::ring_edges(n), 2), "sssp");
    ASSERT_TRUE(r.routes.ok());
    expect_delivered(r.topo, *r.routes);
    EXPECT_TRUE(r.routes->path_sl.empty());
    EXPECT_EQ(r.routes->path_sl.sl(0, 1), 0U);
  }
}

TEST(Sssp, SwitchLidsAreRouted) {
  const Routed r = route(test::switch_graph(10, test::petersen_edges(), 1), "sssp");
  ASSERT_TRUE(r.routes.ok());
  for (std::uint32_t s = 0; s < r.topo.switches.size(); ++s)
    for (const Switch& d : r.topo.switches) {
      const PortNum p = r.routes->lfts[s][d.lid];
      EXPECT_NE(p, kNoPath);
      if (&d == &r.topo.switches[s]) {
        EXPECT_EQ(p, 0U);
      }
    }
}

TEST(Sssp, PathsAreShortest) {
  // The P^2 base weight keeps every path minimal (Domke et al., section IV).
  const Fabric f = testsupport::torus({4, 4, 1}, 2);
  const Routed s = route(f, "sssp");
  const Routed m = route(f, "minhop");
  ASSERT_TRUE(s.routes.ok());
  ASSERT_TRUE(m.routes.ok());
  for (std::uint32_t src = 0; src < s.topo.end_ports.size(); ++src)
    for (const EndPort& d : s.topo.end_ports)
      EXPECT_EQ(trace_route(s.topo, *s.routes, src, d.base_lid).hops.size(),
                trace_route(m.topo, *m.routes, src, d.base_lid).hops.size());
}

TEST(Sssp, TorusLoadNoWorseThanMinhop) {
  for (const auto& dims : {std::array<unsigned, 3>{3, 3, 1}, std::array<unsigned, 3>{4, 4, 1},
                           std::array<unsigned, 3>{4, 4, 4}}) {
    const Fabric f = testsupport::torus(dims, 2);
    const Routed s = route(f, "sssp");
    const Routed m = route(f, "minhop");
    ASSERT_TRUE(s.routes.ok());
    ASSERT_TRUE(m.routes.ok());
    EXPECT_LE(channel_loads(s.topo, *s.routes).max, channel_loads(m.topo, *m.routes).max)
        << dims[0] << "x" << dims[1] << "x" << dims[2];
  }
}

TEST(Sssp, SharedTorusLoadNoWorseThanMinhop) {
  const std::string path = test::shared_net("torus-6x6x6-432.net");
  if (!test::have_file(path)) GTEST_SKIP() << path << " absent";
  auto f = testsupport::load_net_file(path);
  ASSERT_TRUE(f.ok());
  const Routed s = route(*f, "sssp");
  const Routed m = route(*f, "minhop");
  ASSERT_TRUE(s.routes.ok());
  ASSERT_TRUE(m.routes.ok());
  EXPECT_LE(channel_loads(s.topo, *s.routes).max, channel_loads(m.topo, *m.routes).max);
}

TEST(Sssp, FatTreeReachesTheBound) {
  // minhop reaches the EFI lower bound on k-ary n-trees (minhop_properties_test); sssp's
  // per-destination load update must do as well, leaving no channel idle.
  const Fabric f = testsupport::kary_ntree(4, 3);
  const Routed s = route(f, "sssp");
  const Routed m = route(f, "minhop");
  ASSERT_TRUE(s.routes.ok());
  ASSERT_TRUE(m.routes.ok());
  const ChannelLoads ls = channel_loads(s.topo, *s.routes);
  EXPECT_EQ(ls.max, channel_loads(m.topo, *m.routes).max);
  EXPECT_EQ(ls.unused, 0U);
}

TEST(Dfsssp, RingsOfFourToSix) {
  for (unsigned n = 4; n <= 6; ++n)
    expect_sound_dfsssp(test::switch_graph(n, test::ring_edges(n), 2));
}

TEST(Dfsssp, OneLayerCannotCarryARingOfFive) {
  // In a 5-ring every 2-hop path is the unique shortest one (the other way takes 3), so
  // s_i -> s_i+2 goes through s_i+1 for every i, in both directions: the dependencies
  // c(i,i+1) -> c(i+1,i+2) close both 5-cycles on one VL whatever the balance. Shortest
  // paths therefore need 2 layers: moving one direction's 2-hop paths over one of the
  // dependencies leaves each layer acyclic. The same holds for the 6-ring (2-hop paths are
  // unique there too).
  for (unsigned n : {5U, 6U}) {
    const Fabric f = test::switch_graph(n, test::ring_edges(n), 1);
    const Routed one = route(f, "dfsssp", 1);
    ASSERT_FALSE(one.routes.ok());
    EXPECT_EQ(one.routes.error().id, kErrDfssspVlsExhausted);
    EXPECT_NE(one.routes.error().message.find("cycle remains in layer 0"), std::string::npos)
        << one.routes.error().message;
    expect_sound_dfsssp(f, 2);
    const Routed two = route(f, "dfsssp", 2);
    ASSERT_TRUE(two.routes.ok());
    EXPECT_EQ(two.routes->path_sl.layers, 2U);
    // sssp's tables on one VL are indeed cyclic: the SLs are what makes them safe.
    EXPECT_FALSE(check_channel_dependencies(two.topo, *two.routes).acyclic());
  }
}

TEST(Dfsssp, OneLayerSufficesOnATree) {
  // Shortest paths between end ports of a fat tree go up then down: acyclic on one VL
  // (routing.md 4.3), so a budget of 1 VL is enough and everything stays on SL 0.
  const Fabric f = testsupport::two_level_fat_tree(4, 2, 2);
  const Routed r = route(f, "dfsssp", 1);
  ASSERT_TRUE(r.routes.ok()) << to_string(r.routes.error());
  EXPECT_EQ(r.routes->path_sl.layers, 1U);
  EXPECT_EQ(r.routes->path_sl.sls, 1U);
  EXPECT_EQ(distinct_sls(*r.routes), 1U);
  expect_sound_dfsssp(f, 1);
}

TEST(Dfsssp, SpareVlsAreSharedOut) {
  // One layer needed, 8 VLs allowed: OpenSM's balancing splits the layer over all 8.
  const Routed r = route(testsupport::kary_ntree(4, 3), "dfsssp", 8);
  ASSERT_TRUE(r.routes.ok());
  EXPECT_EQ(r.routes->path_sl.layers, 1U);
  EXPECT_EQ(r.routes->path_sl.sls, 8U);
  EXPECT_EQ(distinct_sls(*r.routes), 8U);
  expect_sound_dfsssp(testsupport::kary_ntree(4, 3), 8);
}

TEST(Dfsssp, Torus3x3) {
  expect_sound_dfsssp(testsupport::torus({3, 3, 1}, 1));
}

TEST(Dfsssp, Torus4x4) {
  expect_sound_dfsssp(testsupport::torus({4, 4, 1}, 2));
}

TEST(Dfsssp, PetersenGraph) {
  expect_sound_dfsssp(test::switch_graph(10, test::petersen_edges(), 1));
}

TEST(Dfsssp, TreeWithACrossLink) {
  expect_sound_dfsssp(test::tree_with_cross_link());
}

TEST(Dfsssp, FatTreeWithADeadLink) {
  expect_sound_dfsssp(test::tree_with_dead_link());
  expect_sound_dfsssp(test::tree_with_dead_link(), 2);
}

TEST(Dfsssp, LayerBudgetIsRespected) {
  const Fabric f = testsupport::torus({4, 4, 1}, 2);
  for (unsigned vls : {2U, 3U, 4U, 8U, 15U}) {
    const Routed r = route(f, "dfsssp", vls);
    if (!r.routes.ok()) {
      EXPECT_EQ(r.routes.error().id, kErrDfssspVlsExhausted) << vls;
      continue;
    }
    EXPECT_LE(r.routes->path_sl.sls, vls);
    expect_sound_dfsssp(f, vls);
  }
  // 0 is taken as 1 and more than 15 as 15 (VL15 is management).
  const Routed zero = route(testsupport::two_level_fat_tree(4, 2, 2), "dfsssp", 0);
  ASSERT_TRUE(zero.routes.ok());
  EXPECT_EQ(zero.routes->path_sl.sls, 1U);
  const Routed many = route(testsupport::two_level_fat_tree(4, 2, 2), "dfsssp", 40);
  ASSERT_TRUE(many.routes.ok());
  EXPECT_EQ(many.routes->path_sl.sls, 15U);
}

TEST(Dfsssp, LmcRoutesEveryLidOfAPort) {
  const Fabric f = test::switch_graph(5, test::ring_edges(5), 1);
  const Routed r = route(f, "dfsssp", 8, 1);
  ASSERT_TRUE(r.routes.ok());
  for (std::uint32_t src = 0; src < r.topo.end_ports.size(); ++src)
    for (const EndPort& d : r.topo.end_ports)
      for (unsigned k = 0; k < 2; ++k)
        if (&d != &r.topo.end_ports[src]) {
          const Lid lid = static_cast<Lid>(d.base_lid + k);
          EXPECT_EQ(trace_route(r.topo, *r.routes, src, lid).outcome, Delivery::kDelivered);
        }
  expect_sound_dfsssp(f, 8, 1);
}

TEST(Dfsssp, DeterministicAndSameTablesAsSssp) {
  const Fabric f = test::switch_graph(10, test::petersen_edges(), 2);
  const Routed a = route(f, "dfsssp");
  const Routed b = route(f, "dfsssp");
  const Routed s = route(f, "sssp");
  ASSERT_TRUE(a.routes.ok());
  ASSERT_TRUE(b.routes.ok());
  ASSERT_TRUE(s.routes.ok());
  EXPECT_EQ(a.routes->lfts, b.routes->lfts);
  EXPECT_EQ(a.routes->path_sl.table, b.routes->path_sl.table);
  EXPECT_EQ(a.routes->lfts, s.routes->lfts);
}

TEST(Dfsssp, LayersOfForeignTablesAreChecked) {
  // assign_virtual_layers works on any engine's tables: minhop's on a 4x4 torus.
  const Topology t = to_routing(testsupport::torus({4, 4, 1}, 1)).topo;
  Routes routes = test::route_with(t, "minhop");
  ASSERT_FALSE(check_channel_dependencies(t, routes).acyclic());
  Result<PathSls> sls = assign_virtual_layers(t, routes, 8);
  ASSERT_TRUE(sls.ok());
  routes.path_sl = std::move(*sls);
  EXPECT_TRUE(check_channel_dependencies(t, routes, sl_as_vl(t, routes)).acyclic());
}

class DfssspRandom : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(DfssspRandom, IrregularFabricIsCompleteAndLayeredAcyclic) {
  const std::uint32_t seed = GetParam();
  const unsigned n = 6 + seed % 25;
  const Fabric f = test::switch_graph(n, test::random_edges(n, n, 6, seed), 1 + seed % 2);
  const Routed s = route(f, "sssp");
  ASSERT_TRUE(s.routes.ok());
  expect_delivered(s.topo, *s.routes);
  expect_sound_dfsssp(f, 15);
  const Routed m = route(f, "minhop");
  ASSERT_TRUE(m.routes.ok());
  // Balanced, not optimal: allow a little over minhop on graphs this small.
  EXPECT_LE(channel_loads(s.topo, *s.routes).max, channel_loads(m.topo, *m.routes).max * 5 / 4);
}

INSTANTIATE_TEST_SUITE_P(Seeds, DfssspRandom, ::testing::Range<std::uint32_t>(1, 31));

TEST(Dfsssp, RandomFabricsExerciseSeveralLayers) {
  // The seeds above are not all trivially acyclic: most need paths moved to other layers.
  unsigned multi = 0;
  unsigned most = 0;
  for (std::uint32_t seed = 1; seed < 31; ++seed) {
    const unsigned n = 6 + seed % 25;
    const Fabric f = test::switch_graph(n, test::random_edges(n, n, 6, seed), 1 + seed % 2);
    const Routed r = route(f, "dfsssp", 15);
    ASSERT_TRUE(r.routes.ok());
    multi += r.routes->path_sl.layers > 1 ? 1 : 0;
    most = std::max(most, r.routes->path_sl.layers);
  }
  EXPECT_GE(multi, 15U);
  EXPECT_GE(most, 3U);
}

}  // namespace
}  // namespace ibsm::routing
