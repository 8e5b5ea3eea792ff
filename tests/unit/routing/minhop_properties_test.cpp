// Properties of minhop on generated and shared fabrics: every pair delivered without
// loops, minimal paths, every inter-switch channel used on 3-level trees (OpenSM's
// minhop leaves 47% idle, routing.md 4.3), the EFI lower bound on trees, LMC path
// spreading, switch LIDs, determinism.
#include <gtest/gtest.h>

#include <set>

#include "routing/analysis.hpp"
#include "routing/hop_matrix.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

using testsupport::Fabric;
using testsupport::to_routing;

struct Routed {
  Topology topo;
  Routes routes;
};

Routed route_fabric(const Fabric& f, std::uint8_t lmc = 0) {
  Routed r{to_routing(f, lmc).topo, {}};
  r.routes = test::route_with(r.topo);
  return r;
}

void expect_all_delivered(const Routed& r) {
  const PairCheck pc = check_all_pairs(r.topo, r.routes);
  EXPECT_GT(pc.pairs, 0U);
  EXPECT_TRUE(pc.all_delivered()) << pc.loops << " loops, " << pc.black_holes
                                  << " black holes, e.g. "
                                  << (pc.examples.empty() ? "" : pc.examples[0]);
}

// Every end-port pair follows a shortest path (switches traversed = distance + 1).
void expect_minimal(const Routed& r) {
  auto hops = HopMatrix::compute(r.topo);
  ASSERT_TRUE(hops.ok());
  for (std::uint32_t s = 0; s < r.topo.end_ports.size(); ++s)
    for (const EndPort& d : r.topo.end_ports) {
      const EndPort& src = r.topo.end_ports[s];
      if (&src == &d || src.sw == UINT32_MAX || d.sw == UINT32_MAX) continue;
      const Trace t = trace_route(r.topo, r.routes, s, d.base_lid);
      ASSERT_EQ(t.outcome, Delivery::kDelivered);
      EXPECT_EQ(t.hops.size(), hops->hops(src.sw, d.sw) + 1U)
          << src.description << "->" << d.description;
    }
}

// Lower bound of the all-to-all EFI on a full tree: a leaf's H hosts send to N - H
// others over its U uplinks (routing.md 3.1).
std::uint64_t leaf_uplink_bound(std::uint64_t hosts_per_leaf, std::uint64_t hosts,
                                std::uint64_t uplinks) {
  return hosts_per_leaf * (hosts - hosts_per_leaf) / uplinks;
}

TEST(MinhopProperties, KaryTreeUsesEveryChannelAtTheBound) {
  const Routed r = route_fabric(testsupport::kary_ntree(4, 3));
  expect_all_delivered(r);
  expect_minimal(r);
  const ChannelLoads cl = channel_loads(r.topo, r.routes);
  EXPECT_EQ(cl.channels.size(), 2U * 2 * 16 * 4);
  EXPECT_EQ(cl.unused, 0U);
  EXPECT_EQ(cl.max, leaf_uplink_bound(4, 64, 4));
}

TEST(MinhopProperties, FoldedClosUsesEveryChannelAtTheBound) {
  // routing.md 5.2 FT3 wiring, scaled down: 6 pods x 6 leaves x 6 hosts, 6 aggrs, 6x6 cores.
  const Routed r = route_fabric(testsupport::folded_clos3(6, 6, 6, 6, 6));
  expect_all_delivered(r);
  const ChannelLoads cl = channel_loads(r.topo, r.routes);
  EXPECT_EQ(cl.unused, 0U);
  EXPECT_EQ(cl.max, leaf_uplink_bound(6, 216, 6));
}

TEST(MinhopProperties, TwoLevelTreeIsPerfectlyBalanced) {
  // FT2-648 wiring: 36 leaves x 18 hosts, 18 spines; OpenSM's minhop reaches 630 too.
  const Routed r = route_fabric(testsupport::two_level_fat_tree(36, 18, 18));
  expect_all_delivered(r);
  const ChannelLoads cl = channel_loads(r.topo, r.routes);
  EXPECT_EQ(cl.max, 630U);
  EXPECT_EQ(cl.min, 630U);
}

TEST(MinhopProperties, ParallelCablesShareTheLoad) {
  const Routed r = route_fabric(testsupport::two_level_fat_tree(4, 4, 2, 2));
  expect_all_delivered(r);
  const ChannelLoads cl = channel_loads(r.topo, r.routes);
  EXPECT_EQ(cl.unused, 0U);
  EXPECT_EQ(cl.max, leaf_uplink_bound(4, 16, 4));
  EXPECT_EQ(cl.min, cl.max);
}

TEST(MinhopProperties, DegradedTreeStaysValidAndMinimal) {
  Fabric f = testsupport::kary_ntree(4, 3);
  // Drop one leaf uplink, one middle-to-top cable and a whole top switch's cables.
  const auto top = *f.find("sw2_5");
  std::erase_if(f.cables, [&](const testsupport::Cable& c) {
    const std::string& a = f.nodes[c.a.node].id;
    const std::string& b = f.nodes[c.b.node].id;
    return (a == "sw0_3" && b == "sw1_1") || (a == "sw1_2" && b == "sw2_2") || c.a.node == top ||
           c.b.node == top;
  });
  const Routed r = route_fabric(f);
  expect_all_delivered(r);
  expect_minimal(r);
}

TEST(MinhopProperties, TorusWithLoopsIsValidAndMinimal) {
  const Routed r = route_fabric(testsupport::torus({4, 4, 3}, 1));
  expect_all_delivered(r);
  expect_minimal(r);
  EXPECT_EQ(channel_loads(r.topo, r.routes).unused, 0U);
}

TEST(MinhopProperties, MeshAndSizeTwoRingsAreValid) {
  expect_all_delivered(route_fabric(testsupport::torus({3, 3, 1}, 2, {false, false, false})));
  const Routed r = route_fabric(testsupport::torus({2, 2, 2}, 1));  // parallel cables
  expect_all_delivered(r);
  expect_minimal(r);
  EXPECT_EQ(channel_loads(r.topo, r.routes).unused, 0U);
}

// For each switch and destination port, the LIDs of that port should leave over as many
// different next-hop switches as there are minimal ones (at most 2^LMC).
void expect_lmc_spread(const Routed& r, unsigned lmc) {
  auto hops = HopMatrix::compute(r.topo);
  ASSERT_TRUE(hops.ok());
  for (std::uint32_t s = 0; s < r.topo.switches.size(); ++s) {
    const Switch& sw = r.topo.switches[s];
    for (const EndPort& d : r.topo.end_ports) {
      if (d.sw == s || d.sw == UINT32_MAX) continue;
      std::set<std::uint32_t> minimal_next;
      std::map<PortNum, std::uint32_t> peer_of;
      for (const Link& l : sw.links) {
        if (l.kind != Link::Kind::kSwitch) continue;
        peer_of[l.port] = l.peer;
        if (hops->hops(l.peer, d.sw) + 1U == hops->hops(s, d.sw)) minimal_next.insert(l.peer);
      }
      std::set<std::uint32_t> used;
      for (unsigned k = 0; k < (1U << lmc); ++k)
        used.insert(peer_of[r.routes.lfts[s][d.base_lid + k]]);
      EXPECT_EQ(used.size(), std::min<std::size_t>(minimal_next.size(), 1U << lmc))
          << sw.description << " -> " << d.description;
    }
  }
}

TEST(MinhopProperties, LmcSpreadsLidsOverNextHops) {
  for (unsigned lmc : {1U, 2U}) {
    SCOPED_TRACE(lmc);
    const Routed r = route_fabric(testsupport::kary_ntree(4, 3), static_cast<std::uint8_t>(lmc));
    expect_all_delivered(r);
    expect_lmc_spread(r, lmc);
  }
}

TEST(MinhopProperties, SwitchLidsAreRoutedAndLocalIsPortZero) {
  const Routed r = route_fabric(testsupport::torus({3, 3, 1}, 1));
  for (std::uint32_t s = 0; s < r.topo.switches.size(); ++s) {
    EXPECT_EQ(r.routes.lfts[s][r.topo.switches[s].lid], 0);
    for (const Switch& other : r.topo.switches)
      EXPECT_EQ(trace_route(r.topo, r.routes, 0, other.lid).outcome, Delivery::kDelivered);
  }
}

TEST(MinhopProperties, UnreachableLidsHaveNoPath) {
  Fabric f = testsupport::two_level_fat_tree(2, 1, 1);
  const Fabric island = testsupport::two_level_fat_tree(1, 1, 1);
  const auto base = static_cast<std::uint32_t>(f.nodes.size());
  for (testsupport::Node n : island.nodes) {
    n.id += "_i";
    f.nodes.push_back(n);
  }
  for (testsupport::Cable c : island.cables) {
    c.a.node += base;
    c.b.node += base;
    f.cables.push_back(c);
  }
  testsupport::assign_ibsim_guids(f);
  const Routed r = route_fabric(f);
  const Switch& lone = r.topo.switches.back();
  for (const EndPort& e : r.topo.end_ports) {
    const bool same_side = e.sw == r.topo.switches.size() - 1 || e.sw == r.topo.switches.size() - 2;
    EXPECT_EQ(r.routes.lfts[0][e.base_lid] == kNoPath, same_side) << e.description;
  }
  EXPECT_EQ(r.routes.lfts[0][lone.lid], kNoPath);
}

TEST(MinhopProperties, SameTopologySameTables) {
  const Fabric f = testsupport::folded_clos3(3, 3, 3, 3, 3);
  EXPECT_EQ(route_fabric(f).routes.lfts, route_fabric(f).routes.lfts);
}

TEST(MinhopProperties, RejectsInconsistentTopology) {
  Topology t = to_routing(testsupport::two_level_fat_tree(2, 1, 1)).topo;
  t.switches[0].links[0].peer = 99;
  auto r = make_engine("minhop")->route(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id.code, 3001);
}

// The shared benchmark fabrics (skipped when test::topologies_dir() has none).
Routed route_shared(const std::string& name) {
  auto f = testsupport::load_net_file(test::shared_net(name));
  EXPECT_TRUE(f.ok()) << to_string(f.error());
  return f.ok() ? route_fabric(*f) : Routed{};
}

TEST(MinhopShared, Kary4Tree) {
  if (!test::have_file(test::shared_net("kary-4-3-64.net"))) GTEST_SKIP();
  const Routed r = route_shared("kary-4-3-64.net");
  expect_all_delivered(r);
  const ChannelLoads cl = channel_loads(r.topo, r.routes);
  EXPECT_EQ(cl.unused, 0U);
  EXPECT_EQ(cl.max, leaf_uplink_bound(4, 64, 4));
}

TEST(MinhopShared, Kary18TreeAt5832Hosts) {
  if (!test::have_file(test::shared_net("kary-18-3-5832.net"))) GTEST_SKIP();
  const Routed r = route_shared("kary-18-3-5832.net");
  expect_all_delivered(r);
  const ChannelLoads cl = channel_loads(r.topo, r.routes);
  EXPECT_EQ(cl.unused, 0U);
  EXPECT_EQ(cl.max, leaf_uplink_bound(18, 5832, 18));
}

TEST(MinhopShared, Torus6x6x6) {
  if (!test::have_file(test::shared_net("torus-6x6x6-432.net"))) GTEST_SKIP();
  const Routed r = route_shared("torus-6x6x6-432.net");
  expect_all_delivered(r);
  EXPECT_EQ(channel_loads(r.topo, r.routes).unused, 0U);
}

}  // namespace
}  // namespace ibsm::routing
