// The rebalancing pass (routing/rebalance.hpp) on its own, from deliberately unbalanced
// tables (every switch takes its lowest-numbered minimal port, as dor does), and inside the
// engines that run it (minhop, sssp, dfsssp, lash): loads never worse than before, paths
// still minimal and loop free, LMC spreading and routing-order destinations kept, layered
// engines still deadlock free on the final paths.
#include "routing/rebalance.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "routing/analysis.hpp"
#include "routing/cdg.hpp"
#include "routing/channel_index.hpp"
#include "routing/efi_bound.hpp"
#include "routing/hop_matrix.hpp"
#include "routing/port_balance.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/layered_helpers.hpp"
#include "tests/unit/routing/switch_graph.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

using testsupport::Fabric;
using testsupport::to_routing;

// Next hops in the engines' LID-major layout, with the inputs the pass needs.
struct Tables {
  Topology topo;
  HopMatrix hops;
  std::size_t lft_size = 0;
  std::vector<PortNum> by_lid;  // [lid * switches + switch]
  std::vector<std::uint32_t> sources;
  std::vector<RebalanceTarget> targets;

  Routes routes() const { return routes_from_lid_major(by_lid, topo.switches.size(), lft_size); }
  PortNum& at(Lid lid, std::uint32_t s) {
    return by_lid[std::size_t{lid} * topo.switches.size() + s];
  }
};

// Every switch forwards on its lowest-numbered minimal port: loads pile up on low ports.
Tables lowest_port_tables(const Fabric& f, std::uint8_t lmc = 0) {
  Tables t{to_routing(f, lmc).topo, {}, 0, {}, {}, {}};
  t.hops = std::move(HopMatrix::compute(t.topo)).value();
  const auto n = static_cast<std::uint32_t>(t.topo.switches.size());
  Lid top = 0;
  for (const EndPort& e : t.topo.end_ports)
    top = std::max<Lid>(top, static_cast<Lid>(e.base_lid + (1U << e.lmc) - 1));
  for (const Switch& s : t.topo.switches)
    top = std::max(top, s.lid);
  t.lft_size = std::size_t{top} + 1;
  t.by_lid.assign(t.lft_size * n, kNoPath);
  t.sources.assign(n, 0);
  for (const EndPort& e : t.topo.end_ports) {
    ++t.sources[e.sw];
    for (unsigned k = 0; k < (1U << e.lmc); ++k) {
      const auto lid = static_cast<Lid>(e.base_lid + k);
      t.targets.push_back({lid, e.sw, e.base_lid, e.lmc, true});
      t.at(lid, e.sw) = e.sw_port;
      for (std::uint32_t s = 0; s < n; ++s) {
        if (s == e.sw) continue;
        PortNum best = kNoPath;
        for (const Link& l : t.topo.switches[s].links)
          if (l.kind == Link::Kind::kSwitch &&
              t.hops.hops(l.peer, e.sw) + 1 == t.hops.hops(s, e.sw))
            best = std::min(best, l.port);
        t.at(lid, s) = best;
      }
    }
  }
  return t;
}

void expect_sound(const Topology& topo, const Routes& routes) {
  // The hand-made tables above route end-port LIDs only; switch LIDs are not the pass's.
  const PairCheck pairs = check_all_pairs(topo, routes);
  EXPECT_EQ(pairs.end_port_unreachable(), 0U) << (pairs.examples.empty() ? "" : pairs.examples[0]);
  EXPECT_EQ(pairs.loops, 0U);
  EXPECT_EQ(path_stats(topo, routes).non_minimal, 0U);
}

// A ring of four switches, one host each:
//
//     h0          h1
//     r0 --2---1-- r1
//      1           2
//      |           |
//      2           1
//     r3 --1---2-- r2
//     h3          h2
//
// With the lowest port everywhere, every switch sends towards the opposite host on port 1,
// so r0 -> r3 carries r0's routes to h3 and h2 and r1's to h3: 3. The bound is 2: each
// switch's host sends 3 routes over 2 channels.
TEST(Rebalance, RingOfFourReachesTheBound) {
  Tables t = lowest_port_tables(test::parse_or_fail(test::kRingOfFour));
  EXPECT_EQ(channel_loads(t.topo, t.routes()).max, 3U);
  const RebalanceStats stats = rebalance_routes(t.topo, t.hops, t.sources, t.targets, t.by_lid);
  EXPECT_EQ(stats.max_before, 3U);
  EXPECT_EQ(stats.max_after, 2U);
  EXPECT_EQ(stats.lower_bound, 2U);
  const Routes r = t.routes();
  EXPECT_EQ(channel_loads(t.topo, r).max, 2U);
  expect_sound(t.topo, r);
  // Golden: the output port of every switch (rows) towards every host (columns).
  const std::string table = test::per_switch_table(
      t.topo, [&](std::uint32_t s, Lid lid) { return unsigned{r.lfts[s][lid]}; });
  EXPECT_EQ(table, "3221\n1321\n2132\n2113\n");
}

// efi_lower_bound counts only the destinations a switch's sources can reach: two rings
// of four, one host each, give 2 as one ring does (3 routes over 2 channels), not the 4
// of 7 destinations over 2 channels. Three hosts on one switch: 9 routes leave it and 9
// arrive over 2 channels each, 5.
TEST(EfiBound, CountsOnlyTheSwitchesOfItsPart) {
  std::vector<test::Edge> edges = test::ring_edges(4);
  for (const test::Edge& e : test::ring_edges(4))
    edges.emplace_back(e.first + 4, e.second + 4);
  const Topology topo = to_routing(test::switch_graph(8, edges, 1)).topo;
  const ChannelIndex ch(topo);
  std::vector<std::uint32_t> ones(8, 1);
  EXPECT_EQ(efi_lower_bound(ch, ones, ones), 2U);
  std::vector<std::uint32_t> three = ones;
  three[5] = 3;
  EXPECT_EQ(efi_lower_bound(ch, three, three), 5U);
  EXPECT_EQ(efi_lower_bound(ch, ones, std::vector<std::uint32_t>(8, 0)), 0U) << "no destinations";
}

// Seeded random irregular fabrics: the pass never raises the busiest channel, its own
// model agrees with the independent analysis, paths stay minimal and loop free, and the
// same input gives the same tables.
class RebalanceRandom : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(RebalanceRandom, NeverWorseMinimalAndDeterministic) {
  const std::uint32_t seed = GetParam();
  const unsigned n = 6 + seed % 25;
  const Fabric f = test::switch_graph(n, test::random_edges(n, n, 6, seed), 1 + seed % 3);
  Tables t = lowest_port_tables(f);
  const std::uint64_t before = channel_loads(t.topo, t.routes()).max;
  Tables again = t;
  const RebalanceStats stats = rebalance_routes(t.topo, t.hops, t.sources, t.targets, t.by_lid);
  const Routes r = t.routes();
  const ChannelLoads after = channel_loads(t.topo, r);
  EXPECT_EQ(stats.max_before, before);
  EXPECT_EQ(stats.max_after, after.max);
  EXPECT_LE(after.max, before);
  EXPECT_GE(after.max, stats.lower_bound);
  expect_sound(t.topo, r);
  rebalance_routes(again.topo, again.hops, again.sources, again.targets, again.by_lid);
  EXPECT_EQ(again.by_lid, t.by_lid);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RebalanceRandom, ::testing::Range<std::uint32_t>(1, 31));

TEST(Rebalance, LowersTheBusiestChannelOnIrregularFabrics) {
  unsigned lowered = 0;
  for (std::uint32_t seed = 1; seed < 31; ++seed) {
    const unsigned n = 6 + seed % 25;
    Tables t = lowest_port_tables(test::switch_graph(n, test::random_edges(n, n, 6, seed), 2));
    const RebalanceStats s = rebalance_routes(t.topo, t.hops, t.sources, t.targets, t.by_lid);
    lowered += s.max_after < s.max_before ? 1 : 0;
  }
  EXPECT_GE(lowered, 20U);
}

// The LIDs of one port leave each switch over at least as many different next switches as
// before (docs/routing.md, "How minhop chooses ports", step 4).
TEST(Rebalance, KeepsLmcSpreading) {
  Tables t = lowest_port_tables(testsupport::torus({4, 4, 1}, 2), 2);
  const auto n = static_cast<std::uint32_t>(t.topo.switches.size());
  const auto spread = [&](const Tables& x) {
    std::vector<std::size_t> out;
    for (const EndPort& e : x.topo.end_ports)
      for (std::uint32_t s = 0; s < n; ++s) {
        std::set<std::uint32_t> peers;
        for (unsigned k = 0; k < (1U << e.lmc); ++k) {
          const PortNum p = x.by_lid[(e.base_lid + k) * std::size_t{n} + s];
          for (const Link& l : x.topo.switches[s].links)
            if (l.port == p && l.kind == Link::Kind::kSwitch) peers.insert(l.peer);
        }
        out.push_back(peers.size());
      }
    return out;
  };
  const std::vector<std::size_t> before = spread(t);
  const RebalanceStats s = rebalance_routes(t.topo, t.hops, t.sources, t.targets, t.by_lid);
  EXPECT_GT(s.moves, 0U);
  const std::vector<std::size_t> after = spread(t);
  for (std::size_t i = 0; i < before.size(); ++i)
    EXPECT_GE(after[i], before[i]) << "entry " << i;
  expect_sound(t.topo, t.routes());
}

// Destinations the engines route first (guid_routing_order_file) and destinations with a
// non-minimal entry are counted but never moved.
TEST(Rebalance, LeavesFrozenAndNonMinimalDestinationsAlone) {
  Tables t = lowest_port_tables(testsupport::torus({3, 3, 1}, 1));
  const auto n = static_cast<std::uint32_t>(t.topo.switches.size());
  t.targets[0].movable = false;
  // Target 1: a neighbour s of its switch sends to another neighbour (same distance, which
  // delivers directly): a detour of one hop, still loop free.
  const std::uint32_t dst = t.targets[1].sw;
  std::uint32_t detour = UINT32_MAX;
  for (std::uint32_t s = 0; s < n && detour == UINT32_MAX; ++s)
    if (t.hops.hops(s, dst) == 1)
      for (const Link& l : t.topo.switches[s].links)
        if (l.kind == Link::Kind::kSwitch && t.hops.hops(l.peer, dst) == 1) {
          t.at(t.targets[1].lid, s) = l.port;
          detour = s;
          break;
        }
  ASSERT_NE(detour, UINT32_MAX);
  const std::vector<PortNum> before = t.by_lid;
  const auto row = [&](const std::vector<PortNum>& v, Lid lid) {
    return std::vector<PortNum>(v.begin() + std::ptrdiff_t{lid} * n,
                                v.begin() + std::ptrdiff_t{lid + 1} * n);
  };
  rebalance_routes(t.topo, t.hops, t.sources, t.targets, t.by_lid);
  EXPECT_NE(t.by_lid, before);  // something else moved
  EXPECT_EQ(row(t.by_lid, t.targets[0].lid), row(before, t.targets[0].lid));
  EXPECT_EQ(row(t.by_lid, t.targets[1].lid), row(before, t.targets[1].lid));
}

// Complete fat trees: the greedy engines are at the bound already; the pass moves nothing.
TEST(Rebalance, FatTreeAtTheBoundIsLeftAlone) {
  Tables t = lowest_port_tables(testsupport::kary_ntree(4, 3));
  Routes minhop = test::route_with(t.topo, "minhop");
  const auto n = t.topo.switches.size();
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t lid = 0; lid < t.lft_size; ++lid)
      t.by_lid[lid * n + s] = minhop.lfts[s][lid];
  const RebalanceStats stats = rebalance_routes(t.topo, t.hops, t.sources, t.targets, t.by_lid);
  EXPECT_EQ(stats.max_before, stats.lower_bound);
  EXPECT_EQ(stats.moves, 0U);
}

// The engines that run the pass: every pair delivered on shortest paths, and the layered
// engines' SLs still give an acyclic channel dependency graph per VL on the final paths.
class RebalancedEngines : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(RebalancedEngines, MinimalAndLayersAcyclic) {
  const std::uint32_t seed = GetParam();
  const unsigned n = 8 + seed % 20;
  const Fabric f = test::switch_graph(n, test::random_edges(n, n, 6, seed), 1 + seed % 2);
  const Topology topo = to_routing(f).topo;
  for (const char* engine : {"minhop", "sssp", "dfsssp", "lash"}) {
    SCOPED_TRACE(engine);
    EngineConfig config;
    config.max_vls = 15;
    Result<Routes> r = make_engine(engine, config)->route(topo);
    ASSERT_TRUE(r.ok()) << to_string(r.error());
    expect_sound(topo, *r);
    if (!r->path_sl.empty()) {
      EXPECT_TRUE(check_channel_dependencies(topo, *r, test::sl_as_vl(topo, *r)).acyclic());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RebalancedEngines, ::testing::Range<std::uint32_t>(1, 21));

}  // namespace
}  // namespace ibsm::routing
