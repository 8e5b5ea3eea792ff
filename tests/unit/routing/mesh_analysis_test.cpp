// Mesh analysis (do_mesh_analysis) on drawn meshes and tori whose port numbers are
// shuffled, so nothing can come from port numbering: every switch's search order must
// group its neighbours by the coordinate they differ in, the same dimension numbers on
// every switch; lash on those paths fits a 6x6x6 torus into 8 layers that the
// independent CDG check finds acyclic, and dfsssp falls back to them where sssp's paths do
// not fit. Trees and damaged tori are refused.
#include "routing/mesh_analysis.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <random>
#include <string>

#include "routing/analysis.hpp"
#include "routing/errors.hpp"
#include "routing/lash/lash.hpp"
#include "routing/torus/dor.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/layered_helpers.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

using testsupport::to_routing;

// Renumbers every switch's ports at random (links, their far ends, end ports).
void shuffle_ports(Topology& topo, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<PortNum>> map(topo.switches.size());
  for (std::size_t s = 0; s < topo.switches.size(); ++s) {
    auto& m = map[s];
    m.resize(std::size_t{topo.switches[s].num_ports} + 1);
    for (std::size_t p = 0; p < m.size(); ++p)
      m[p] = static_cast<PortNum>(p);
    std::shuffle(m.begin() + 1, m.end(), rng);
  }
  for (std::size_t s = 0; s < topo.switches.size(); ++s) {
    for (Link& l : topo.switches[s].links) {
      l.port = map[s][l.port];
      if (l.kind == Link::Kind::kSwitch) l.peer_port = map[l.peer][l.peer_port];
    }
  }
  for (EndPort& e : topo.end_ports)
    if (e.sw < topo.switches.size()) e.sw_port = map[e.sw][e.sw_port];
}

// Coordinates from the builder's switch names "s<x>_<y>_<z>".
std::array<unsigned, 3> coords(const Switch& s) {
  std::array<unsigned, 3> c{};
  std::sscanf(s.description.c_str(), "s%u_%u_%u", &c[0], &c[1], &c[2]);
  return c;
}

// The coordinate a link changes.
unsigned axis(const Topology& topo, std::uint32_t a, std::uint32_t b) {
  const auto ca = coords(topo.switches[a]);
  const auto cb = coords(topo.switches[b]);
  for (unsigned d = 0; d < 3; ++d)
    if (ca[d] != cb[d]) return d;
  return 3;
}

// Every switch lists its switch ports dimension by dimension, and dimension k is the
// same coordinate everywhere.
void expect_dimension_order(const Topology& topo, const MeshShape& shape, unsigned dims) {
  ASSERT_EQ(shape.dimensions, dims);
  ASSERT_EQ(shape.port_order.size(), topo.switches.size());
  std::map<unsigned, unsigned> axis_of_rank;  // discovered: rank k -> coordinate
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
    std::map<PortNum, std::uint32_t> peer;
    for (const Link& l : topo.switches[s].links)
      if (l.kind == Link::Kind::kSwitch) peer[l.port] = l.peer;
    std::vector<unsigned> axes;  // of the switch ports, in search order
    for (PortNum p : shape.port_order[s])
      if (peer.count(p) != 0) axes.push_back(axis(topo, s, peer[p]));
    // Runs of one coordinate, in the same coordinate order on every switch.
    std::vector<unsigned> runs;
    for (unsigned a : axes)
      if (runs.empty() || runs.back() != a) runs.push_back(a);
    std::vector<unsigned> sorted = runs;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_TRUE(std::unique(sorted.begin(), sorted.end()) == sorted.end())
        << topo.switches[s].description << ": a coordinate's ports are not together";
    if (s == 0) {
      for (unsigned k = 0; k < runs.size(); ++k)
        axis_of_rank[k] = runs[k];
    }
    // The coordinates appear in the global order (a switch on a mesh border may lack one).
    std::vector<unsigned> global;
    for (auto& [k, a] : axis_of_rank)
      global.push_back(a);
    std::size_t at = 0;
    for (unsigned a : runs) {
      while (at < global.size() && global[at] != a)
        ++at;
      EXPECT_LT(at, global.size()) << topo.switches[s].description << ": dimensions out of order";
    }
  }
}

// The coordinates found place every link one step along one dimension (modulo the
// ring where it wraps), and the rings have the drawn lengths in some order.
void expect_coordinates(const Topology& topo, const MeshShape& shape,
                        std::vector<std::uint32_t> rings) {
  ASSERT_TRUE(shape.has_coordinates());
  std::vector<std::uint32_t> got = shape.ring;
  std::sort(got.begin(), got.end());
  std::sort(rings.begin(), rings.end());
  EXPECT_EQ(got, rings);
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
    for (const Link& l : topo.switches[s].links) {
      if (l.kind != Link::Kind::kSwitch) continue;
      unsigned differ = 0;
      for (unsigned d = 0; d < shape.dimensions; ++d) {
        const std::uint32_t a = shape.at(s, d);
        const std::uint32_t b = shape.at(l.peer, d);
        if (a == b) continue;
        ++differ;
        const std::uint32_t r = shape.ring[d];
        const bool step =
            r == 0 ? (a + 1 == b || b + 1 == a) : ((a + 1) % r == b || (b + 1) % r == a);
        EXPECT_TRUE(step) << topo.switches[s].description << " -> "
                          << topo.switches[l.peer].description;
      }
      EXPECT_EQ(differ, 1u) << topo.switches[s].description << " -> "
                            << topo.switches[l.peer].description;
    }
  }
}

TEST(MeshAnalysis, TorusWithShuffledPortsHasThreeDimensions) {
  for (unsigned seed : {1u, 7u}) {
    Topology topo = to_routing(testsupport::torus({6, 5, 7}, 2)).topo;
    shuffle_ports(topo, seed);
    auto shape = analyse_mesh(topo);
    ASSERT_TRUE(shape.ok()) << shape.error().message;
    expect_dimension_order(topo, *shape, 3);
    expect_coordinates(topo, *shape, {5, 6, 7});
  }
}

TEST(MeshAnalysis, MeshWithoutWraparoundHasTwoDimensions) {
  Topology topo = to_routing(testsupport::torus({5, 4, 1}, 1, {false, false, false})).topo;
  shuffle_ports(topo, 3);
  auto shape = analyse_mesh(topo);
  ASSERT_TRUE(shape.ok()) << shape.error().message;
  expect_dimension_order(topo, *shape, 2);
  expect_coordinates(topo, *shape, {0, 0});
}

TEST(MeshAnalysis, TreesAndDamagedToriAreRefused) {
  auto refused = [](Topology topo) {
    auto shape = analyse_mesh(topo);
    if (shape.ok()) return std::string("accepted");
    EXPECT_EQ(shape.error().id, kErrNotAMesh);
    EXPECT_NE(shape.error().message.find("switch 0x"), std::string::npos) << shape.error().message;
    return std::string();
  };
  EXPECT_EQ(refused(to_routing(testsupport::two_level_fat_tree(4, 2, 3)).topo), "");
  EXPECT_EQ(refused(to_routing(testsupport::kary_ntree(3, 3)).topo), "");
  // A torus with one cable gone: two of its neighbours span no square any more.
  Topology damaged = to_routing(testsupport::torus({5, 5, 5}, 1)).topo;
  auto& links = damaged.switches[0].links;
  const auto cut = std::find_if(links.begin(), links.end(),
                                [](const Link& l) { return l.kind == Link::Kind::kSwitch; });
  ASSERT_NE(cut, links.end());
  const std::uint32_t peer = cut->peer;
  const PortNum peer_port = cut->peer_port;
  links.erase(cut);
  std::erase_if(damaged.switches[peer].links, [&](const Link& l) { return l.port == peer_port; });
  EXPECT_EQ(refused(damaged), "");
}

struct Lashed {
  Topology topo;
  Result<Routes> routes = Routes{};
};

Lashed lash(Topology topo, bool mesh_analysis, unsigned max_vls = 8) {
  Lashed r{std::move(topo)};
  EngineConfig config;
  config.max_vls = max_vls;
  config.do_mesh_analysis = mesh_analysis;
  r.routes = make_engine("lash", config)->route(r.topo);
  return r;
}

// lash on a torus that sssp's and min-hop's shortest paths cannot fit into 8 layers:
// dimension-ordered paths layered by datelines fit, every pair on a shortest path, every
// layer acyclic by the independent check reading SLs as VLs, both directions of a pair
// on one SL. Without do_mesh_analysis lash gets there last, after the other paths fail.
TEST(MeshAnalysis, LashFitsA6x6x6TorusIntoEightLayers) {
  Topology topo = to_routing(testsupport::torus({6, 6, 6}, 2)).topo;
  shuffle_ports(topo, 5);
  for (bool asked : {true, false}) {
    SCOPED_TRACE(asked ? "do_mesh_analysis TRUE" : "do_mesh_analysis FALSE");
    Lashed r = lash(topo, asked);
    ASSERT_TRUE(r.routes.ok()) << r.routes.error().message;
    const Routes& routes = *r.routes;
    EXPECT_EQ(routes.path_sl.sls, 8u);
    const CdgReport cdg =
        check_channel_dependencies(r.topo, routes, test::sl_as_vl(r.topo, routes));
    EXPECT_TRUE(cdg.acyclic());
    const PathStats ps = path_stats(r.topo, routes);
    EXPECT_EQ(ps.non_minimal, 0u);
    EXPECT_EQ(ps.paths, std::uint64_t{432} * 431);
    EXPECT_TRUE(routes.warnings.empty());
    for (std::uint32_t a = 0; a < r.topo.switches.size(); ++a)
      for (std::uint32_t b = 0; b < r.topo.switches.size(); ++b)
        ASSERT_EQ(routes.path_sl.sl(a, r.topo.switches[b].lid),
                  routes.path_sl.sl(b, r.topo.switches[a].lid));
  }
  // Four VLs are too few for 8 combinations of datelines: refused as before.
  Lashed few = lash(topo, true, 4);
  ASSERT_FALSE(few.routes.ok());
  EXPECT_EQ(few.routes.error().id, kErrLashVlsExhausted);
}

TEST(MeshAnalysis, LashOnAMeshNeedsOneLayer) {
  Topology topo = to_routing(testsupport::torus({4, 4, 3}, 1, {false, false, false})).topo;
  shuffle_ports(topo, 9);
  Lashed r = lash(topo, true);
  ASSERT_TRUE(r.routes.ok()) << r.routes.error().message;
  EXPECT_EQ(r.routes->path_sl.layers, 1u);
  EXPECT_TRUE(check_channel_dependencies(r.topo, *r.routes).acyclic());
  EXPECT_EQ(path_stats(r.topo, *r.routes).non_minimal, 0u);
}

// dfsssp on a torus whose sssp paths need more than 8 layers: the dimension-ordered
// paths instead, with the warning that says so; still minimal and acyclic per SL.
TEST(MeshAnalysis, DfssspRoutesATorusItsBalancedPathsCannotLayer) {
  const Topology topo = to_routing(testsupport::torus({6, 6, 6}, 1)).topo;
  EngineConfig config;
  config.max_vls = 8;
  auto routes = make_engine("dfsssp", config)->route(topo);
  ASSERT_TRUE(routes.ok()) << routes.error().message;
  ASSERT_EQ(routes->warnings.size(), 1u);
  EXPECT_EQ(routes->warnings[0].id, kErrDfssspTorusLayers);
  EXPECT_LE(routes->path_sl.sls, 8u);
  EXPECT_TRUE(check_channel_dependencies(topo, *routes, test::sl_as_vl(topo, *routes)).acyclic());
  EXPECT_EQ(path_stats(topo, *routes).non_minimal, 0u);
  // With 4 VLs the datelines' 8 combinations do not fit either: sssp's error stands.
  config.max_vls = 4;
  auto few = make_engine("dfsssp", config)->route(topo);
  ASSERT_FALSE(few.ok());
  EXPECT_EQ(few.error().id, kErrDfssspVlsExhausted);
}

// Not a mesh: the analysis is noted and lash routes as it does without it.
TEST(MeshAnalysis, LashOnAFatTreeNotesTheRefusalAndRoutesAsUsual) {
  const Topology topo = to_routing(testsupport::two_level_fat_tree(4, 2, 3)).topo;
  Lashed with = lash(topo, true);
  Lashed without = lash(topo, false);
  ASSERT_TRUE(with.routes.ok());
  ASSERT_TRUE(without.routes.ok());
  EXPECT_EQ(with.routes->lfts, without.routes->lfts);
  EXPECT_EQ(with.routes->path_sl.table, without.routes->path_sl.table);
  ASSERT_EQ(with.routes->warnings.size(), 1u);
  EXPECT_EQ(with.routes->warnings[0].id, kErrNotAMesh);
  EXPECT_TRUE(without.routes->warnings.empty());
}

}  // namespace
}  // namespace ibsm::routing
