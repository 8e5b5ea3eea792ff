// updn and dnup on small drawn fabrics and seeded random irregular ones: every end-port
// pair delivered, every path up* then down* in the engine's own order, and the channel
// dependency graph acyclic on VL 0 (checked by routing/cdg.hpp, which knows nothing of
// the engine). Also the root rules and root_guid_file parsing.
#include "routing/updn.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "routing/analysis.hpp"
#include "routing/cdg.hpp"
#include "routing/errors.hpp"
#include "routing/guid_file.hpp"
#include "routing/hop_matrix.hpp"
#include "routing/updn_order.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/switch_graph.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

using testsupport::Fabric;
using testsupport::to_routing;

struct Routed {
  Topology topo;
  Routes routes;
  UpDownOrder order;
};

Routed route(const Fabric& f, std::string_view engine, const EngineConfig& config = {},
             std::uint8_t lmc = 0) {
  Routed r{to_routing(f, lmc).topo, {}, {}};
  auto e = make_engine(engine, config);
  EXPECT_NE(e, nullptr);
  if (!e) return r;
  EXPECT_TRUE(e->deadlock_free());
  auto routes = e->route(r.topo);
  EXPECT_TRUE(routes.ok()) << (routes.ok() ? "" : to_string(routes.error()));
  if (routes.ok()) r.routes = std::move(*routes);
  auto hops = HopMatrix::compute(r.topo);
  EXPECT_TRUE(hops.ok());
  r.order =
      engine == "dnup" ? dnup_order(r.topo, *hops) : updn_order(r.topo, *hops, config.root_guids);
  return r;
}

bool has_warning(const Routes& r, ErrorId id, const std::string& text = "") {
  return std::any_of(r.warnings.begin(), r.warnings.end(), [&](const Error& e) {
    return e.id == id && e.message.find(text) != std::string::npos;
  });
}

// Every end-port pair delivered and free of credit loops, even counting the paths that
// switches themselves originate (up/down holds for those too).
void expect_complete_and_deadlock_free(const Routed& r) {
  const PairCheck pc = check_all_pairs(r.topo, r.routes);
  EXPECT_GT(pc.pairs, 0U);
  EXPECT_TRUE(pc.all_delivered()) << pc.loops << " loops, " << pc.black_holes
                                  << " black holes, e.g. "
                                  << (pc.examples.empty() ? "" : pc.examples[0]);
  const CdgReport cdg = check_channel_dependencies(r.topo, r.routes);
  ASSERT_EQ(cdg.vls.size(), 1U);
  EXPECT_TRUE(cdg.acyclic()) << describe_cycle(r.topo, cdg.vls[0].cycle);
  CdgOptions all;
  all.include_switch_sources = true;
  const CdgReport with_switches = check_channel_dependencies(r.topo, r.routes, all);
  EXPECT_TRUE(with_switches.acyclic()) << describe_cycle(
      r.topo, with_switches.vls.empty() ? std::vector<CdgChannel>{} : with_switches.vls[0].cycle);
}

// No end-port path on SL 0 takes an up channel after a down channel (the rule itself;
// the escape layer, SL 1, follows an order of its own).
void expect_up_then_down(const Routed& r) {
  for (std::uint32_t s = 0; s < r.topo.end_ports.size(); ++s)
    for (const EndPort& d : r.topo.end_ports) {
      if (&r.topo.end_ports[s] == &d) continue;
      if (r.routes.path_sl.sl(r.topo.end_ports[s].sw, d.base_lid) != 0) continue;
      const Trace t = trace_route(r.topo, r.routes, s, d.base_lid);
      bool went_down = false;
      for (std::size_t i = 0; i + 1 < t.hops.size(); ++i) {
        const bool up = goes_up(r.order, t.hops[i].sw, t.hops[i + 1].sw);
        EXPECT_FALSE(up && went_down) << r.topo.end_ports[s].description << " -> " << d.description
                                      << " turns down->up at hop " << i;
        went_down = went_down || !up;
      }
    }
}

// Every switch reaches every switch LID (true whenever there is a single root).
void expect_switch_lids_reachable(const Routed& r) {
  const std::size_t n = r.topo.switches.size();
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t d = 0; d < n; ++d) {
      const Lid lid = r.topo.switches[d].lid;
      std::uint32_t cur = s;
      std::size_t steps = 0;
      for (; steps <= n; ++steps) {
        const PortNum p = r.routes.lfts[cur][lid];
        if (p == 0) break;
        const auto& links = r.topo.switches[cur].links;
        auto it = std::find_if(links.begin(), links.end(), [&](const Link& l) {
          return l.port == p && l.kind == Link::Kind::kSwitch;
        });
        ASSERT_NE(it, links.end()) << "switch " << s << " -> switch LID " << lid;
        cur = it->peer;
      }
      EXPECT_EQ(cur, d) << "switch " << s << " -> switch LID " << lid;
    }
}

// Every end-port pair on a shortest path.
void expect_minimal(const Routed& r) {
  auto hops = HopMatrix::compute(r.topo);
  ASSERT_TRUE(hops.ok());
  for (std::uint32_t s = 0; s < r.topo.end_ports.size(); ++s)
    for (const EndPort& d : r.topo.end_ports) {
      const EndPort& src = r.topo.end_ports[s];
      if (&src == &d) continue;
      const Trace t = trace_route(r.topo, r.routes, s, d.base_lid);
      EXPECT_EQ(t.hops.size(), hops->hops(src.sw, d.sw) + 1U)
          << src.description << "->" << d.description;
    }
}

void expect_sound(const Fabric& f, std::string_view engine) {
  SCOPED_TRACE(std::string(engine));
  const Routed r = route(f, engine);
  expect_complete_and_deadlock_free(r);
  expect_up_then_down(r);
}

TEST(UpDown, Registered) {
  for (std::string_view name : {"updn", "dnup"}) {
    auto e = make_engine(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->name(), name);
    EXPECT_TRUE(e->deadlock_free());
  }
  EXPECT_FALSE(make_engine("minhop")->deadlock_free());
}

TEST(UpDown, RingOfSwitches) {
  const Fabric f = test::switch_graph(6, test::ring_edges(6), 2);
  expect_sound(f, "updn");
  expect_sound(f, "dnup");
  const Routed r = route(f, "updn");
  expect_switch_lids_reachable(r);
  // No fat tree: OpenSM would give up here; the ring's centre (lowest GUID) is the root.
  EXPECT_TRUE(has_warning(r.routes, kErrUpDownNoRoot, "0x0000000000200000"));
  ASSERT_EQ(r.order.roots.size(), 1U);
}

TEST(UpDown, Torus3x3) {
  const Fabric f = testsupport::torus({3, 3, 1}, 1);
  expect_sound(f, "updn");
  expect_sound(f, "dnup");
  expect_switch_lids_reachable(route(f, "updn"));
}

TEST(UpDown, Torus4x4IsLoopFreeWhereMinhopIsNot) {
  const Fabric f = testsupport::torus({4, 4, 1}, 2);
  const Routed r = route(f, "updn");
  expect_complete_and_deadlock_free(r);
  const Topology t = to_routing(f).topo;
  EXPECT_FALSE(check_channel_dependencies(t, test::route_with(t, "minhop")).acyclic());
}

TEST(UpDown, TreeWithACrossLink) {
  // 2-level tree (4 leaves x 2 hosts, 2 spines) plus a cable leaf0 -- leaf1.
  Fabric f = testsupport::two_level_fat_tree(4, 2, 2);
  const std::uint32_t l0 = *f.find("leaf0");
  const std::uint32_t l1 = *f.find("leaf1");
  const auto p0 = static_cast<std::uint8_t>(++f.nodes[l0].num_ports);
  const auto p1 = static_cast<std::uint8_t>(++f.nodes[l1].num_ports);
  f.cables.push_back({{l0, p0}, {l1, p1}});
  expect_sound(f, "updn");
  expect_sound(f, "dnup");
  const Routed r = route(f, "updn");
  // OpenSM's histogram still finds the spines; both directions of the cross link are
  // legal one-hop paths, so every path is shortest.
  ASSERT_EQ(r.order.roots.size(), 2U);
  for (std::uint32_t root : r.order.roots)
    EXPECT_EQ(r.topo.switches[root].description.rfind("spine", 0), 0U);
  expect_minimal(r);
}

TEST(UpDown, PetersenGraph) {
  const Fabric f = test::switch_graph(10, test::petersen_edges(), 1);
  expect_sound(f, "updn");
  expect_sound(f, "dnup");
  expect_switch_lids_reachable(route(f, "updn"));
}

TEST(UpDown, FatTreeWithADeadLink) {
  Fabric f = testsupport::two_level_fat_tree(4, 2, 2);
  const std::uint32_t leaf0 = *f.find("leaf0");
  const std::uint32_t spine0 = *f.find("spine0");
  std::erase_if(f.cables, [&](const testsupport::Cable& c) {
    return (c.a.node == leaf0 && c.b.node == spine0) || (c.a.node == spine0 && c.b.node == leaf0);
  });
  expect_sound(f, "updn");
  expect_sound(f, "dnup");
  // The histogram now sees leaf0's hosts 3 hops from spine0: only spine1 is a root.
  const Routed automatic = route(f, "updn");
  ASSERT_EQ(automatic.order.roots.size(), 1U);
  EXPECT_EQ(automatic.topo.switches[automatic.order.roots[0]].description, "spine1");
  // With both spines as roots, spine0 has no legal path to leaf0 (down to a leaf, then
  // up): reported, while every end-port pair is still delivered.
  EngineConfig both;
  for (const auto& n : f.nodes)
    if (n.id.rfind("spine", 0) == 0) both.root_guids.push_back(n.node_guid);
  const Routed r = route(f, "updn", both);
  expect_complete_and_deadlock_free(r);
  expect_up_then_down(r);
  EXPECT_TRUE(has_warning(r.routes, kErrUpDownUnreachable,
                          "(0 from switches with end ports to end ports)"));
}

TEST(UpDown, KaryTreeRootsAreTheTopLevelAndPathsAreBalanced) {
  const Routed r = route(testsupport::kary_ntree(4, 3), "updn");
  ASSERT_EQ(r.order.roots.size(), 16U);
  for (std::uint32_t root : r.order.roots)
    EXPECT_EQ(r.topo.switches[root].description.rfind("sw2_", 0), 0U);
  EXPECT_TRUE(r.routes.warnings.empty() ||
              has_warning(r.routes, kErrUpDownUnreachable, "(0 from switches"));
  expect_complete_and_deadlock_free(r);
  expect_minimal(r);
  // Globally balanced like minhop: every channel used, EFI at the leaf-uplink bound
  // H(N-H)/U = 4 * 60 / 4 (routing.md 3.1).
  const ChannelLoads cl = channel_loads(r.topo, r.routes);
  EXPECT_EQ(cl.unused, 0U);
  EXPECT_EQ(cl.max, 60U);
}

TEST(UpDown, ManyPodsElectOnlyTheCoresAsRoots) {
  // 24 pods: an aggregation switch sees its own pod's leaves (1/24 < 5% of the hosts)
  // one hop away and all others three hops away, so OpenSM's histogram rule elects it
  // too; with aggregation and core switches both roots no core->aggr->core path is legal.
  const Routed r = route(testsupport::folded_clos3(24, 2, 2, 2, 2), "updn");
  ASSERT_EQ(r.order.roots.size(), 4U);
  for (std::uint32_t root : r.order.roots)
    EXPECT_EQ(r.topo.switches[root].description.rfind("c", 0), 0U)
        << r.topo.switches[root].description;
  expect_complete_and_deadlock_free(r);
  expect_minimal(r);
}

TEST(UpDown, DegradedTreeKeepsEveryCoreAsRoot) {
  // 4 pods of 6 leaves: a leaf holds 1/24 of the hosts, under the histogram's 5%. With
  // leaf p0l0's link to p0a0 down, the cores above p0a0 see p0l0's hosts 4 hops away
  // instead of 2: still cores (the histogram takes them, their height is 2), and they
  // stay roots, or half the top level would carry every path.
  Fabric f = testsupport::folded_clos3(4, 6, 2, 2, 2);
  ASSERT_EQ(testsupport::remove_cables_between(f, "p0l0", "p0a0"), 1U);
  const Routed r = route(f, "updn");
  ASSERT_EQ(r.order.roots.size(), 4U);
  for (std::uint32_t root : r.order.roots)
    EXPECT_EQ(r.topo.switches[root].description.rfind("c", 0), 0U)
        << r.topo.switches[root].description;
  // Every pair delivered and the end ports' paths free of credit loops. p0a0 has no legal
  // up/down path to p0l0's hosts: the answers it sends them take filled-in entries, on
  // SL 1, so that VL 0 stays acyclic even counting what switches send (routing.md
  // "Switch LIDs on degraded trees", 4).
  const PairCheck pc = check_all_pairs(r.topo, r.routes);
  EXPECT_TRUE(pc.all_delivered()) << (pc.examples.empty() ? "" : pc.examples[0]);
  expect_up_then_down(r);
  ASSERT_FALSE(r.routes.path_sl.empty());
  CdgOptions ends;  // each path on the VL of its SL
  ends.vl_of = [&](std::uint32_t src, Lid dlid) {
    return r.routes.path_sl.sl(r.topo.end_ports[src].sw, dlid);
  };
  for (const CdgVl& v : check_channel_dependencies(r.topo, r.routes, ends).vls)
    EXPECT_TRUE(v.acyclic) << "VL " << int{v.vl} << ": " << describe_cycle(r.topo, v.cycle);
  CdgOptions all = ends;
  all.include_switch_sources = true;
  all.switch_vl_of = [&](std::uint32_t sw, Lid dlid) { return r.routes.path_sl.sl(sw, dlid); };
  const CdgReport with_switches = check_channel_dependencies(r.topo, r.routes, all);
  ASSERT_FALSE(with_switches.vls.empty());
  EXPECT_EQ(with_switches.vls[0].vl, 0U);
  EXPECT_TRUE(with_switches.vls[0].acyclic) << describe_cycle(r.topo, with_switches.vls[0].cycle);
  // Every core carries traffic.
  const ChannelLoads cl = channel_loads(r.topo, r.routes);
  for (std::uint32_t root : r.order.roots) {
    std::uint64_t through = 0;
    for (const ChannelLoad& c : cl.channels)
      if (c.sw == root) through += c.routes;
    EXPECT_GT(through, 0U) << r.topo.switches[root].description;
  }
}

TEST(UpDown, DnupOnATreeIsShortest) {
  const Routed r = route(testsupport::kary_ntree(2, 3), "dnup");
  expect_complete_and_deadlock_free(r);
  expect_up_then_down(r);
  expect_minimal(r);
}

TEST(UpDown, LmcGivesEveryLidARouteAndSpreadsThem) {
  const Routed r = route(testsupport::two_level_fat_tree(3, 2, 2), "updn", {}, 1);
  expect_complete_and_deadlock_free(r);
  // The two LIDs of a remote host leave a leaf on different uplinks.
  const EndPort& d = r.topo.end_ports.back();
  const std::uint32_t leaf = r.topo.end_ports.front().sw;
  ASSERT_NE(leaf, d.sw);
  EXPECT_NE(r.routes.lfts[leaf][d.base_lid], r.routes.lfts[leaf][d.base_lid + 1]);
}

TEST(UpDown, ConfiguredRoots) {
  const Fabric f = test::switch_graph(6, test::ring_edges(6), 1);
  EngineConfig config;
  const std::uint64_t s3 = f.nodes[*f.find("s3")].node_guid;
  const std::uint64_t host_of_s4 = f.nodes[*f.find("h4_0")].port_guid(1);
  config.root_guids = {0xdead, s3, host_of_s4};
  const Routed r = route(f, "updn", config);
  EXPECT_TRUE(has_warning(r.routes, kErrRootGuidUnknown, "0x000000000000dead"));
  EXPECT_FALSE(has_warning(r.routes, kErrUpDownNoRoot));
  ASSERT_EQ(r.order.roots.size(), 2U);  // s3, and s4 through its host's GUID
  EXPECT_EQ(r.topo.switches[r.order.roots[0]].description, "s3");
  EXPECT_EQ(r.topo.switches[r.order.roots[1]].description, "s4");
  expect_complete_and_deadlock_free(r);
  expect_up_then_down(r);
}

TEST(UpDown, RootsTooFarApartReachEachOtherOnTheEscapeLayer) {
  // Roots s0 and s3 on a 6-ring: every path between them turns down->up, so under the
  // rule their hosts cannot reach each other (OpenSM's updn leaves them so). Those LIDs go
  // on the escape layer (SL 1, one up/down order for the whole fabric): every pair is
  // delivered and each VL stays free of credit loops.
  const Fabric f = test::switch_graph(6, test::ring_edges(6), 1);
  EngineConfig config;
  config.root_guids = {f.nodes[*f.find("s0")].node_guid, f.nodes[*f.find("s3")].node_guid};
  const Routed r = route(f, "updn", config);
  EXPECT_TRUE(has_warning(r.routes, kErrUpDownUnreachable));
  EXPECT_TRUE(has_warning(r.routes, kErrEscapeLayer));
  const PairCheck pc = check_all_pairs(r.topo, r.routes);
  EXPECT_TRUE(pc.all_delivered()) << (pc.examples.empty() ? "" : pc.examples[0]);
  ASSERT_FALSE(r.routes.path_sl.empty());
  EXPECT_EQ(r.routes.path_sl.sls, 2U);
  EXPECT_EQ(r.routes.path_sl.sl(r.topo.end_ports[0].sw, r.topo.end_ports[3].base_lid), 1U);
  EXPECT_EQ(trace_route(r.topo, r.routes, 0, r.topo.end_ports[3].base_lid).outcome,
            Delivery::kDelivered);
  CdgOptions by_sl;
  by_sl.vl_of = [&](std::uint32_t src, Lid dlid) {
    return r.routes.path_sl.sl(r.topo.end_ports[src].sw, dlid);
  };
  const CdgReport cdg = check_channel_dependencies(r.topo, r.routes, by_sl);
  EXPECT_TRUE(cdg.acyclic());
  EXPECT_EQ(cdg.vls.size(), 2U);
  expect_up_then_down(r);

  // With one data VL there is no second layer: updn fails and the SM falls back.
  config.max_vls = 1;
  auto one_vl = make_engine("updn", config)->route(r.topo);
  ASSERT_FALSE(one_vl.ok());
  EXPECT_EQ(one_vl.error().id, kErrEscapeLayerNoVl);
}

TEST(UpDown, UnknownRootsOnlyFallBackToTheCentre) {
  EngineConfig config;
  config.root_guids = {0x1234};
  const Routed r = route(test::switch_graph(4, test::ring_edges(4), 1), "updn", config);
  EXPECT_TRUE(has_warning(r.routes, kErrRootGuidUnknown, "0x0000000000001234"));
  EXPECT_TRUE(has_warning(r.routes, kErrUpDownNoRoot, "no root GUID matches"));
  expect_complete_and_deadlock_free(r);
}

TEST(UpDown, NoSwitchIsAnError) {
  Topology t;
  t.end_ports.resize(2);
  for (std::string_view name : {"updn", "dnup"}) {
    auto r = make_engine(name)->route(t);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().id, kErrUpDownUnreachable);
  }
}

TEST(UpDown, SeparateIslandsEachGetARoot) {
  // Two rings with no cable between them: each is routed inside itself.
  std::vector<test::Edge> edges = test::ring_edges(4);
  for (unsigned i = 0; i < 4; ++i)
    edges.emplace_back(4 + i, 4 + (i + 1) % 4);
  const Routed r = route(test::switch_graph(8, edges, 1), "updn");
  EXPECT_EQ(r.order.roots.size(), 2U);
  const CdgReport cdg = check_channel_dependencies(r.topo, r.routes);
  EXPECT_TRUE(cdg.acyclic());
  for (std::uint32_t s = 0; s < 8; ++s)  // within an island every host is reachable
    for (std::uint32_t d = 0; d < 8; ++d)
      if (s != d && (s < 4) == (d < 4)) {
        EXPECT_EQ(trace_route(r.topo, r.routes, s, r.topo.end_ports[d].base_lid).outcome,
                  Delivery::kDelivered);
      }
}

class UpDownRandom : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(UpDownRandom, IrregularFabricIsCompleteAndDeadlockFree) {
  const std::uint32_t seed = GetParam();
  const unsigned n = 6 + seed % 25;
  const Fabric f = test::switch_graph(n, test::random_edges(n, n, 6, seed), 1 + seed % 2);
  expect_sound(f, "updn");
  expect_sound(f, "dnup");
}

INSTANTIATE_TEST_SUITE_P(Seeds, UpDownRandom, ::testing::Range<std::uint32_t>(1, 51));

TEST(RootGuidFile, GuidsCommentsAndBadLines) {
  const RootGuids r = parse_root_guids(
      "# roots of the fabric\n"
      "0x0002c90300001234\n"
      "  0X00000000002000AB   # spine 2\n"
      "\n"
      "2000ab\n"
      "0xfoo\n"
      "0x0002c90300001234 extra\n"
      "0x0\n"
      "0x200001",
      "/etc/opensm/roots");
  // Text after the GUID is a name in OpenSM's node-map syntax, not an error.
  EXPECT_EQ(r.guids, (std::vector<std::uint64_t>{0x0002c90300001234, 0x2000ab, 0x0002c90300001234,
                                                 0x200001}));
  ASSERT_EQ(r.warnings.size(), 3U);
  EXPECT_EQ(r.warnings[0].id, kErrRootGuidFile);
  EXPECT_EQ(r.warnings[0].message,
            "/etc/opensm/roots:5: '2000ab' is not a GUID (0x + hex); line skipped");
  EXPECT_NE(r.warnings[1].message.find(":6:"), std::string::npos);
  EXPECT_NE(r.warnings[2].message.find(":8:"), std::string::npos);
}

TEST(GuidFile, IdsColumn) {
  const GuidFile r = parse_guid_file("0x20 7\n0x21 0x10 # spine\n0x22\n0x23 seven\n", "ids",
                                     kErrRootGuidFile, true);
  EXPECT_EQ(r.ids, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0x20, 7}, {0x21, 16}}));
  ASSERT_EQ(r.warnings.size(), 2U);
  EXPECT_EQ(r.warnings[0].message,
            "ids:3: '0x22' has no id after the GUID (decimal or 0x hex); line skipped");
  EXPECT_NE(r.warnings[1].message.find("ids:4:"), std::string::npos);
}

TEST(RootGuidFile, EmptyAndOverlong) {
  EXPECT_TRUE(parse_root_guids("", "f").guids.empty());
  const RootGuids r = parse_root_guids("0x00000000000000001\n", "f");
  EXPECT_TRUE(r.guids.empty());
  EXPECT_EQ(r.warnings.size(), 1U);
}

}  // namespace
}  // namespace ibsm::routing
