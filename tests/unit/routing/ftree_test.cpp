// ftree on small fat trees: golden tables (complete, degraded, odd radix), properties on
// seeded random degraded 3-level trees (every pair delivered, no credit loop, EFI near
// the per-leaf lower bound), LMC path diversity, the GUID list inputs, and the refusal of
// fabrics that are no tree. Grading uses routing/analysis.hpp and routing/cdg.hpp, which
// know nothing of the engine.
//
// Golden files: golden/ftree_<name>.lfts (OpenSM's opensm-lfts.dump format). To accept
// new output after an intended change run with IBSM_UPDATE_GOLDEN=1 (rewritten cases
// fail, review `git diff`, re-run without the variable), as minhop_golden_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "routing/analysis.hpp"
#include "routing/cdg.hpp"
#include "routing/errors.hpp"
#include "routing/lft_dump.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

using testsupport::Cable;
using testsupport::Fabric;
using testsupport::NodeType;

struct Routed {
  Topology topo;
  Routes routes;
};

Routed route(const Fabric& f, const EngineConfig& config = {}, std::uint8_t lmc = 0) {
  Routed r{testsupport::to_routing(f, lmc).topo, {}};
  auto e = make_engine("ftree", config);
  EXPECT_NE(e, nullptr);
  if (!e) return r;
  auto routes = e->route(r.topo);
  EXPECT_TRUE(routes.ok()) << (routes.ok() ? "" : to_string(routes.error()));
  if (routes.ok()) r.routes = std::move(*routes);
  return r;
}

bool has_warning(const Routes& r, ErrorId id, const std::string& text = "") {
  return std::any_of(r.warnings.begin(), r.warnings.end(), [&](const Error& e) {
    return e.id == id && e.message.find(text) != std::string::npos;
  });
}

void remove_cable(Fabric& f, const std::string& a, const std::string& b) {
  ASSERT_GT(testsupport::remove_cables_between(f, a, b), 0U) << a << " - " << b;
}

void remove_all_cables_of(Fabric& f, const std::string& a) {
  const std::uint32_t x = *f.find(a);
  std::erase_if(f.cables, [&](const Cable& c) { return c.a.node == x || c.b.node == x; });
}

// Delivered from every end port to every LID, and no credit loop, even counting the
// paths switches originate (switch LIDs are routed up/down too).
void expect_sound(const Routed& r) {
  const PairCheck pc = check_all_pairs(r.topo, r.routes);
  EXPECT_GT(pc.pairs, 0U);
  EXPECT_TRUE(pc.all_delivered()) << pc.loops << " loops, " << pc.black_holes
                                  << " black holes, e.g. "
                                  << (pc.examples.empty() ? "" : pc.examples[0]);
  // Each path on the VL of its SL (the escape layer of a degraded tree is SL 1): what end
  // ports send is free of credit loops on every VL.
  CdgOptions ends;
  if (!r.routes.path_sl.empty())
    ends.vl_of = [&](std::uint32_t src, Lid dlid) {
      return r.routes.path_sl.sl(r.topo.end_ports[src].sw, dlid);
    };
  const CdgReport cdg = check_channel_dependencies(r.topo, r.routes, ends);
  for (const CdgVl& v : cdg.vls)
    EXPECT_TRUE(v.acyclic) << "VL " << int{v.vl} << ": " << describe_cycle(r.topo, v.cycle);
  // With what switches send too, VL 0 stays free of them: the data VL carries legal
  // up/down paths only (the escape layer's answers are not covered, docs/routing.md).
  CdgOptions all = ends;
  all.include_switch_sources = true;
  all.switch_vl_of = [&](std::uint32_t sw, Lid dlid) { return r.routes.path_sl.sl(sw, dlid); };
  const CdgReport with_switches = check_channel_dependencies(r.topo, r.routes, all);
  ASSERT_FALSE(with_switches.vls.empty());
  EXPECT_EQ(with_switches.vls[0].vl, 0U);
  EXPECT_TRUE(with_switches.vls[0].acyclic) << describe_cycle(r.topo, with_switches.vls[0].cycle);
}

// Lower bound of the all-to-all EFI (routing.md 3.1): a leaf with H hosts and u uplinks
// sends H * (N - H) routes over u channels; the busiest leaf decides.
std::uint64_t leaf_uplink_bound(const Topology& topo) {
  std::vector<std::uint64_t> hosts(topo.switches.size(), 0);
  for (const EndPort& e : topo.end_ports)
    if (e.sw < topo.switches.size()) ++hosts[e.sw];
  const std::uint64_t n = topo.end_ports.size();
  std::uint64_t bound = 0;
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
    if (hosts[s] == 0) continue;
    std::uint64_t up = 0;
    for (const Link& l : topo.switches[s].links)
      up += l.kind == Link::Kind::kSwitch;
    if (up > 0) bound = std::max(bound, (hosts[s] * (n - hosts[s]) + up - 1) / up);
  }
  return bound;
}

// The bound for destination-tree routing, where all traffic to one destination enters its
// leaf over one channel: a leaf with H hosts and d down-coming channels receives
// ceil(H / d) destinations' N - H routes on its busiest one. Equal to the uplink bound
// on complete trees whose spines divide the hosts.
std::uint64_t destination_tree_bound(const Topology& topo) {
  std::vector<std::uint64_t> hosts(topo.switches.size(), 0);
  for (const EndPort& e : topo.end_ports)
    if (e.sw < topo.switches.size()) ++hosts[e.sw];
  const std::uint64_t n = topo.end_ports.size();
  std::uint64_t bound = leaf_uplink_bound(topo);
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
    std::uint64_t up = 0;
    for (const Link& l : topo.switches[s].links)
      up += l.kind == Link::Kind::kSwitch;
    if (hosts[s] > 0 && up > 0) bound = std::max(bound, (hosts[s] + up - 1) / up * (n - hosts[s]));
  }
  return bound;
}

// ---------------------------------------------------------------------------------------
// Golden tables

struct GoldenCase {
  const char* name;
  Fabric (*make)();
  std::uint8_t lmc = 0;
};

// 4 leaves x 2 hosts, 2 spines: leaf l port 3 -> spine0, port 4 -> spine1.
Fabric complete_2level() {
  return testsupport::two_level_fat_tree(4, 2, 2);
}

// The same with the cable leaf1 - spine0 pulled: leaf1 climbs over spine1 only, and the
// other leaves reach leaf1's hosts over spine1 as well.
Fabric missing_link() {
  Fabric f = complete_2level();
  remove_cable(f, "leaf1", "spine0");
  return f;
}

// 4 leaves x 3 hosts, 3 spines, spine2 unplugged: the 12 destinations spread over the
// two remaining spines; spine2 only routes to itself.
Fabric missing_spine() {
  Fabric f = testsupport::two_level_fat_tree(4, 3, 3);
  remove_all_cables_of(f, "spine2");
  return f;
}

// Odd radix: 3 leaves x 3 hosts, 3 spines (leaves of 6 ports, spines of 3).
Fabric odd_radix() {
  return testsupport::two_level_fat_tree(3, 3, 3);
}

const GoldenCase kGolden[] = {
    {"complete_2level", complete_2level},
    {"complete_2level_lmc1", complete_2level, 1},
    {"missing_link", missing_link},
    {"missing_spine", missing_spine},
    {"odd_radix", odd_radix},
};

class FtreeGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(FtreeGolden, MatchesGoldenDump) {
  const GoldenCase& c = GetParam();
  const Routed r = route(c.make(), {}, c.lmc);
  expect_sound(r);
  std::ostringstream got;
  dump_lfts(got, r.topo, r.routes);

  const std::string path = std::string(ROUTING_GOLDEN_DIR) + "/ftree_" + c.name + ".lfts";
  if (std::getenv("IBSM_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << got.str();
    FAIL() << "rewrote " << path << " (IBSM_UPDATE_GOLDEN set); review the diff and re-run";
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " missing; run once with IBSM_UPDATE_GOLDEN=1 to create it";
  std::ostringstream want;
  want << in.rdbuf();
  EXPECT_EQ(got.str(), want.str()) << "LFTs differ from " << path;
}

INSTANTIATE_TEST_SUITE_P(Fabrics, FtreeGolden, ::testing::ValuesIn(kGolden),
                         [](const auto& p) { return std::string(p.param.name); });

// ---------------------------------------------------------------------------------------
// Complete trees: optimal

TEST(Ftree, RegisteredAndDeadlockFree) {
  auto e = make_engine("ftree");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name(), "ftree");
  EXPECT_TRUE(e->deadlock_free());
  const auto names = engine_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "ftree"), names.end());
}

TEST(Ftree, CompleteTreesReachTheEfiBound) {
  const Fabric fabrics[] = {
      testsupport::two_level_fat_tree(6, 4, 4), testsupport::two_level_fat_tree(4, 4, 2, 2),
      testsupport::kary_ntree(4, 3), testsupport::folded_clos3(4, 3, 3, 3, 3)};
  for (const Fabric& f : fabrics) {
    const Routed r = route(f);
    expect_sound(r);
    const ChannelLoads cl = channel_loads(r.topo, r.routes);
    EXPECT_EQ(cl.max, leaf_uplink_bound(r.topo));
    EXPECT_EQ(cl.unused, 0U);
  }
}

// Each destination owns a top switch: a host on another pod reaches the destinations of a
// pod through a different core each (d-mod-k; 9 cores, 9 hosts per pod), and a shift
// permutation in leaf/port order loads no channel twice.
TEST(Ftree, DestinationsOwnDistinctTopSwitchesAndShiftsAreCongestionFree) {
  const Routed r = route(testsupport::folded_clos3(3, 3, 3, 3, 3));
  const std::size_t n = r.topo.end_ports.size();  // 27 hosts in 3 pods
  for (std::uint32_t pod = 0; pod < 3; ++pod) {
    std::set<std::uint32_t> tops;
    for (std::uint32_t d = pod * 9; d < pod * 9 + 9; ++d) {
      const std::uint32_t src = (d + 9) % n;  // a host of another pod
      const Trace t = trace_route(r.topo, r.routes, src, r.topo.end_ports[d].base_lid);
      ASSERT_EQ(t.outcome, Delivery::kDelivered);
      ASSERT_EQ(t.hops.size(), 5U);
      tops.insert(t.hops[2].sw);
    }
    EXPECT_EQ(tops.size(), 9U);
  }
  for (std::size_t k = 1; k < n; ++k) {
    std::map<std::pair<std::uint32_t, PortNum>, int> load;
    for (std::uint32_t i = 0; i < n; ++i) {
      const Trace t = trace_route(r.topo, r.routes, i, r.topo.end_ports[(i + k) % n].base_lid);
      for (const Hop& h : t.hops)
        EXPECT_EQ(++load[std::make_pair(h.sw, h.out_port)], 1) << "shift " << k;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Degraded trees: routed, not refused

// Pulls `fraction` of the inter-switch cables, chosen by `seed`, keeping the fabric
// connected.
Fabric degrade(Fabric f, double fraction, std::uint32_t seed) {
  std::vector<std::size_t> isl;
  for (std::size_t i = 0; i < f.cables.size(); ++i)
    if (f.nodes[f.cables[i].a.node].type == NodeType::kSwitch &&
        f.nodes[f.cables[i].b.node].type == NodeType::kSwitch)
      isl.push_back(i);
  std::mt19937 rng(seed);
  std::shuffle(isl.begin(), isl.end(), rng);
  const auto connected = [&](const std::vector<char>& gone) {
    std::vector<std::uint32_t> parent(f.nodes.size());
    std::iota(parent.begin(), parent.end(), 0U);
    const auto root = [&](std::uint32_t x) {
      while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
      return x;
    };
    std::size_t sets = f.nodes.size();
    for (std::size_t i = 0; i < f.cables.size(); ++i) {
      if (gone[i]) continue;
      const std::uint32_t a = root(f.cables[i].a.node);
      const std::uint32_t b = root(f.cables[i].b.node);
      if (a != b) {
        parent[a] = b;
        --sets;
      }
    }
    return sets == 1;
  };
  std::vector<char> gone(f.cables.size(), 0);
  const auto target = static_cast<std::size_t>(fraction * static_cast<double>(isl.size()) + 0.5);
  std::size_t removed = 0;
  for (std::size_t i : isl) {
    if (removed == target) break;
    gone[i] = 1;
    if (connected(gone)) {
      ++removed;
    } else {
      gone[i] = 0;
    }
  }
  std::vector<Cable> kept;
  for (std::size_t i = 0; i < f.cables.size(); ++i)
    if (!gone[i]) kept.push_back(f.cables[i]);
  f.cables = std::move(kept);
  return f;
}

class FtreeDegraded : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(FtreeDegraded, EveryPairRoutedLoopFreeAndNearTheBound) {
  const std::uint32_t seed = GetParam();
  const Fabric complete = testsupport::folded_clos3(4, 4, 4, 4, 4);
  const Routed full = route(complete);
  const std::uint64_t full_bound = leaf_uplink_bound(full.topo);
  ASSERT_EQ(channel_loads(full.topo, full.routes).max, full_bound);

  const Routed r = route(degrade(complete, 0.03 + 0.01 * (seed % 5), seed));
  expect_sound(r);
  // A lost uplink raises the busiest leaf's bound; the tree repair may add at most a
  // few destinations' worth on top (OpenSM's ftree with roots: 3.6x on 2% of FT3-5184).
  const ChannelLoads cl = channel_loads(r.topo, r.routes);
  EXPECT_LE(cl.max, 2 * destination_tree_bound(r.topo)) << "seed " << seed;
  EXPECT_GE(cl.max, full_bound);
}

INSTANTIATE_TEST_SUITE_P(Seeds, FtreeDegraded, ::testing::Range<std::uint32_t>(1, 21));

// OpenSM refuses a tree that lost one link ("not a fat tree") and falls back to minhop;
// ftree keeps routing it at the destination-tree bound: leaf2's 4 hosts come down over 3
// spines, so one spine carries two of them (2 x 20 routes). Only spine1's own LID has no
// up/down path from leaf2: it goes on the escape layer (SL 1), which is reported.
TEST(Ftree, OneMissingLinkStillAtTheDegradedBound) {
  Fabric f = testsupport::two_level_fat_tree(6, 4, 4);
  remove_cable(f, "leaf2", "spine1");
  const Routed r = route(f);
  expect_sound(r);
  EXPECT_EQ(channel_loads(r.topo, r.routes).max, destination_tree_bound(r.topo));
  EXPECT_EQ(destination_tree_bound(r.topo), 40U);
  ASSERT_EQ(r.routes.warnings.size(), 1U);
  EXPECT_EQ(r.routes.warnings[0].id, kErrEscapeLayer);
  EXPECT_NE(r.routes.warnings[0].message.find("1 switch LIDs, 0 end-port LIDs"), std::string::npos)
      << r.routes.warnings[0].message;
}

// ---------------------------------------------------------------------------------------
// LMC

// Every LID of a port comes down from a different spine (2 levels) or core (3 levels),
// entering the destination's leaf over a different aggregation switch where it has them;
// and the base LIDs keep the optimal spreading (LID offsets are routed layer by layer).
TEST(Ftree, LmcLidsUseDisjointUpPaths) {
  {
    const Routed r = route(testsupport::two_level_fat_tree(4, 2, 4), {}, 2);
    expect_sound(r);
    for (std::uint32_t d = 0; d < r.topo.end_ports.size(); ++d) {
      const EndPort& dst = r.topo.end_ports[d];
      const std::uint32_t src = (d + 2) % r.topo.end_ports.size();  // next leaf's host
      std::set<std::uint32_t> spines;
      for (unsigned k = 0; k < 4; ++k) {
        const Trace t = trace_route(r.topo, r.routes, src, static_cast<Lid>(dst.base_lid + k));
        ASSERT_EQ(t.outcome, Delivery::kDelivered);
        ASSERT_EQ(t.hops.size(), 3U);
        spines.insert(t.hops[1].sw);
      }
      EXPECT_EQ(spines.size(), 4U) << dst.description;
    }
    // The base LIDs alone (what most applications use) are spread as with LMC 0.
    EXPECT_EQ(channel_loads(r.topo, r.routes).max, destination_tree_bound(r.topo));
  }
  {
    const Routed r = route(testsupport::folded_clos3(3, 3, 3, 3, 3), {}, 1);
    expect_sound(r);
    const std::size_t n = r.topo.end_ports.size();
    for (std::uint32_t d = 0; d < n; ++d) {
      const EndPort& dst = r.topo.end_ports[d];
      const Trace a = trace_route(r.topo, r.routes, (d + n / 3) % n, dst.base_lid);
      const Trace b = trace_route(r.topo, r.routes, (d + n / 3) % n, dst.base_lid + 1);
      ASSERT_EQ(a.hops.size(), 5U);
      ASSERT_EQ(b.hops.size(), 5U);
      EXPECT_NE(a.hops[2].sw, b.hops[2].sw);  // core
      EXPECT_NE(a.hops[3].sw, b.hops[3].sw);  // aggregation switch above the destination
    }
    EXPECT_EQ(channel_loads(r.topo, r.routes).max, leaf_uplink_bound(r.topo));
  }
}

// ---------------------------------------------------------------------------------------
// Inputs

TEST(Ftree, UnknownGuidsAreWarningsNotErrors) {
  EngineConfig config;
  config.root_guids = {0xdead};
  config.cn_guids = {0xbeef};
  config.io_guids = {0xfeed};
  const Routed r = route(testsupport::two_level_fat_tree(3, 2, 2), config);
  EXPECT_TRUE(
      has_warning(r.routes, kErrFtreeGuidUnknown, "root_guid_file GUID 0x000000000000dead"));
  EXPECT_TRUE(has_warning(r.routes, kErrFtreeGuidUnknown, "cn_guid_file GUID 0x000000000000beef"));
  EXPECT_TRUE(has_warning(r.routes, kErrFtreeGuidUnknown, "io_guid_file GUID 0x000000000000feed"));
  expect_sound(r);
}

TEST(Ftree, RootsAndQuasiIndexingGiveTheSameOptimum) {
  const Fabric f = testsupport::folded_clos3(3, 3, 3, 3, 3);
  EngineConfig config;
  for (const auto& n : f.nodes)
    if (n.id[0] == 'c') config.root_guids.push_back(n.node_guid);
  ASSERT_EQ(config.root_guids.size(), 9U);
  for (bool quasi : {false, true}) {
    config.quasi_ftree_indexing = quasi;
    const Routed r = route(f, config);
    expect_sound(r);
    EXPECT_TRUE(r.routes.warnings.empty());
    EXPECT_EQ(channel_loads(r.topo, r.routes).max, leaf_uplink_bound(r.topo));
  }
}

// A root given by a host's GUID stands for the host's switch (as OpenSM); with leaves as
// roots the tree is upside down, yet still up/down and complete.
TEST(Ftree, RootByHostGuidIsItsSwitch) {
  const Fabric f = testsupport::two_level_fat_tree(3, 2, 2);
  EngineConfig config;
  config.root_guids = {f.nodes[*f.find("h0_0")].port_guid(1)};
  const Routed r = route(f, config);
  EXPECT_TRUE(r.routes.warnings.empty());
  expect_sound(r);
}

// Non-compute nodes (outside cn_guid_file) are destinations too, after the compute nodes;
// the compute nodes alone keep the optimal spreading.
TEST(Ftree, ComputeNodeListStillRoutesEveryPort) {
  const Fabric f = testsupport::two_level_fat_tree(4, 2, 2);
  EngineConfig config;
  for (const auto& n : f.nodes)
    if (n.type == NodeType::kCa && n.id.back() == '0') config.cn_guids.push_back(n.port_guid(1));
  const Routed r = route(f, config);
  EXPECT_TRUE(r.routes.warnings.empty());
  expect_sound(r);
}

TEST(Ftree, IoNodesWithReverseHopsAreNotClaimedDeadlockFree) {
  const Fabric f = testsupport::two_level_fat_tree(4, 2, 2);
  EngineConfig config;
  config.io_guids = {f.nodes[*f.find("h3_1")].port_guid(1)};
  config.max_reverse_hops = 1;
  EXPECT_FALSE(make_engine("ftree", config)->deadlock_free());
  const Routed r = route(f, config);
  EXPECT_TRUE(check_all_pairs(r.topo, r.routes).all_delivered());
  config.max_reverse_hops = 0;
  EXPECT_TRUE(make_engine("ftree", config)->deadlock_free());
}

// Spines have no up/down path to each other; connect_roots gives them one.
TEST(Ftree, ConnectRootsRoutesBetweenTopSwitches) {
  const Fabric f = testsupport::two_level_fat_tree(3, 2, 2);
  const auto spine_to_spine = [&](const Routed& r) {
    std::uint32_t a = UINT32_MAX;
    std::uint32_t b = UINT32_MAX;
    for (std::uint32_t s = 0; s < r.topo.switches.size(); ++s) {
      if (r.topo.switches[s].description == "spine0") a = s;
      if (r.topo.switches[s].description == "spine1") b = s;
    }
    // Follow spine0's table towards spine1's LID.
    std::uint32_t at = a;
    const Lid lid = r.topo.switches[b].lid;
    for (int hop = 0; hop < 8; ++hop) {
      const PortNum p = r.routes.lfts[at][lid];
      if (p == 0) return at == b;
      const auto& links = r.topo.switches[at].links;
      auto it = std::find_if(links.begin(), links.end(), [&](const Link& l) {
        return l.port == p && l.kind == Link::Kind::kSwitch;
      });
      if (it == links.end()) return false;
      at = it->peer;
    }
    return false;
  };
  EXPECT_FALSE(spine_to_spine(route(f)));
  EngineConfig config;
  config.connect_roots = true;
  const Routed r = route(f, config);
  EXPECT_TRUE(spine_to_spine(r));
  expect_sound(r);  // end-port paths are untouched, still loop free
}

// ---------------------------------------------------------------------------------------
// Not a tree: refused loudly so the SM falls back

TEST(Ftree, TorusIsRefused) {
  const Topology topo = testsupport::to_routing(testsupport::torus({4, 4, 1}, 1)).topo;
  auto r = make_engine("ftree")->route(topo);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kErrFtreeNotATree);
}

// Connected, but leaf0 and leaf1 share no spine: only a down-then-up path joins them,
// which no up/down routing may take.
TEST(Ftree, LeavesWithoutACommonAncestorAreRefused) {
  Fabric f = testsupport::two_level_fat_tree(3, 1, 2);
  remove_cable(f, "leaf0", "spine1");
  remove_cable(f, "leaf1", "spine0");
  auto r = make_engine("ftree")->route(testsupport::to_routing(f).topo);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kErrFtreeNotATree);
}

TEST(Ftree, EmptyAndSingleSwitchFabrics) {
  EXPECT_TRUE(make_engine("ftree")->route(Topology{}).ok());
  Fabric f = testsupport::two_level_fat_tree(1, 3, 1);
  remove_all_cables_of(f, "spine0");
  expect_sound(route(f));
}

}  // namespace
}  // namespace ibsm::routing
