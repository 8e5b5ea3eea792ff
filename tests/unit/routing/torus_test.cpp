// torus-2QoS and dor on built tori, meshes and hypercubes: every pair routed, DOR paths
// minimal, and an independent per-VL channel dependency check that follows each packet
// hop by hop through the engine's path SL and per-port SL2VL tables (routing.md 3.1).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "routing/analysis.hpp"
#include "routing/cdg.hpp"
#include "routing/engine.hpp"
#include "routing/errors.hpp"
#include "routing/hop_matrix.hpp"
#include "routing/lid_owners.hpp"
#include "routing/route_report.hpp"
#include "routing/torus/torus_config.hpp"
#include "routing/torus/torus_rules.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

using testsupport::to_routing;

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Built torus: switch (x,y,z) is node x*Y*Z + y*Z + z, which to_routing keeps as the switch
// index (switches are created first).
struct Grid {
  std::array<unsigned, 3> dims;
  Topology topo;
  std::uint64_t guid(unsigned x, unsigned y, unsigned z) const {
    return topo.switches[(x * dims[1] + y) * dims[2] + z].guid;
  }
  std::uint32_t index(unsigned x, unsigned y, unsigned z) const {
    return (x * dims[1] + y) * dims[2] + z;
  }
};

Grid make_grid(std::array<unsigned, 3> dims, unsigned hosts, std::array<bool, 3> wrap) {
  Grid g{dims, to_routing(testsupport::torus(dims, hosts, wrap)).topo};
  return g;
}

// torus-2QoS.conf seeded at switch (0,0,0); radix-4 torus dimensions get both links.
std::string config_for(const Grid& g, std::array<bool, 3> wrap, const std::string& extra = "") {
  std::string s = "# generated\ntorus";
  for (unsigned d = 0; d < 3; ++d)
    s += " " + std::to_string(g.dims[d]) + (wrap[d] ? "t" : "m");
  s += "\n";
  const char* axis = "xyz";
  for (unsigned d = 0; d < 3; ++d) {
    if (g.dims[d] < 2) continue;
    std::array<unsigned, 3> p{0, 0, 0}, m{0, 0, 0};
    p[d] = 1;
    m[d] = g.dims[d] - 1;
    s += std::string(1, axis[d]) + "p_link " + hex(g.guid(0, 0, 0)) + " " +
         hex(g.guid(p[0], p[1], p[2])) + "\n";
    if (wrap[d] && g.dims[d] == 4)
      s += std::string(1, axis[d]) + "m_link " + hex(g.guid(0, 0, 0)) + " " +
           hex(g.guid(m[0], m[1], m[2])) + "\n";
  }
  return s + extra;
}

Result<Routes> route(const Topology& topo, std::string_view engine, const std::string& conf) {
  EngineConfig c;
  c.torus_config = {"/etc/torus-2QoS.conf", conf};
  auto e = make_engine(engine, c);
  EXPECT_NE(e, nullptr);
  return e->route(topo);
}

// Drops the cable between two switches (both directions).
void cut_link(Topology& t, std::uint32_t a, std::uint32_t b) {
  for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
    auto& links = t.switches[x].links;
    links.erase(
        std::remove_if(links.begin(), links.end(),
                       [&](const Link& l) { return l.kind == Link::Kind::kSwitch && l.peer == y; }),
        links.end());
  }
}

// The fabric without switch `dead` and its hosts, as the SM would discover it.
Topology without_switch(const Topology& t, std::uint32_t dead) {
  Topology out;
  std::vector<std::uint32_t> sw_map(t.switches.size(), UINT32_MAX),
      ep_map(t.end_ports.size(), UINT32_MAX);
  for (std::uint32_t s = 0; s < t.switches.size(); ++s)
    if (s != dead) {
      sw_map[s] = static_cast<std::uint32_t>(out.switches.size());
      out.switches.push_back(t.switches[s]);
    }
  for (std::uint32_t e = 0; e < t.end_ports.size(); ++e)
    if (t.end_ports[e].sw != dead) {
      ep_map[e] = static_cast<std::uint32_t>(out.end_ports.size());
      out.end_ports.push_back(t.end_ports[e]);
      out.end_ports.back().sw = sw_map[t.end_ports[e].sw];
    }
  for (Switch& s : out.switches) {
    std::vector<Link> keep;
    for (Link l : s.links) {
      if (l.kind == Link::Kind::kSwitch) {
        if (sw_map[l.peer] == UINT32_MAX) continue;
        l.peer = sw_map[l.peer];
      } else {
        l.peer = ep_map[l.peer];
      }
      keep.push_back(l);
    }
    s.links = std::move(keep);
  }
  return out;
}

struct Judgement {
  std::size_t pairs = 0;
  std::size_t delivered = 0;
  std::size_t non_minimal = 0;
  std::size_t max_hops = 0;
  std::set<unsigned> vls;
  bool acyclic = true;
  std::string cycle;
};

// Every end port to every end port LID, with the path SL (and the same SL with QoS bit
// 3 set when `both_qos`), VL per hop from the switch's (in, out) table when the routes
// have one, else VL = SL. Builds the CDG over (switch, out port, VL) and looks for a cycle.
Judgement judge(const Topology& topo, const Routes& r, bool both_qos = true) {
  Judgement j;
  auto hm = HopMatrix::compute(topo);
  EXPECT_TRUE(hm.ok());
  using Chan = std::tuple<std::uint32_t, PortNum, unsigned>;
  std::map<Chan, std::set<Chan>> deps;
  const auto peer_of = [&](std::uint32_t s, PortNum p) -> const Link* {
    for (const Link& l : topo.switches[s].links)
      if (l.port == p) return &l;
    return nullptr;
  };
  for (const EndPort& src : topo.end_ports) {
    if (src.sw == UINT32_MAX) continue;
    for (std::uint32_t d = 0; d < topo.end_ports.size(); ++d) {
      const EndPort& dst = topo.end_ports[d];
      if (&dst == &src || dst.sw == UINT32_MAX) continue;
      const Lid dlid = dst.base_lid;
      for (unsigned qos = 0; qos < (both_qos ? 2u : 1u); ++qos) {
        ++j.pairs;
        const unsigned sl = r.path_sl.sl(src.sw, dlid) | (qos << 3);
        std::uint32_t cur = src.sw;
        PortNum in = src.sw_port;
        std::optional<Chan> prev;
        std::size_t hops = 0;
        for (; hops < 64; ++hops) {
          const PortNum out = r.lfts[cur][dlid];
          if (out == kNoPath) break;
          const Link* l = peer_of(cur, out);
          if (l == nullptr) break;
          if (l->kind == Link::Kind::kEndPort) {
            if (l->peer == d) ++j.delivered;
            break;
          }
          unsigned vl = sl;
          if (!r.sl2vl.empty()) {
            const unsigned ports = topo.switches[cur].num_ports + 1u;
            vl = r.sl2vl.switches[cur][std::size_t{in} * ports + out][sl];
          }
          j.vls.insert(vl);
          const Chan c{cur, out, vl};
          if (prev) deps[*prev].insert(c);
          prev = c;
          in = l->peer_port;
          cur = l->peer;
        }
        j.max_hops = std::max(j.max_hops, hops);
        if (hops != hm->hops(src.sw, dst.sw)) ++j.non_minimal;
      }
    }
  }
  // Iterative DFS for a cycle.
  std::map<Chan, int> state;  // 1 on stack, 2 done
  for (const auto& [start, _] : deps) {
    if (state[start] != 0) continue;
    std::vector<std::pair<Chan, std::set<Chan>::const_iterator>> stack;
    stack.push_back({start, deps[start].cbegin()});
    state[start] = 1;
    while (!stack.empty() && j.acyclic) {
      auto& [c, it] = stack.back();
      if (it == deps[c].cend()) {
        state[c] = 2;
        stack.pop_back();
        continue;
      }
      const Chan next = *it++;
      if (state[next] == 1) {
        j.acyclic = false;
        j.cycle = "switch " + std::to_string(std::get<0>(next)) + " port " +
                  std::to_string(std::get<1>(next)) + " VL " + std::to_string(std::get<2>(next));
      } else if (state[next] == 0) {
        state[next] = 1;
        stack.push_back({next, deps[next].cbegin()});
      }
    }
    if (!j.acyclic) break;
  }
  return j;
}

// --- the pure rules ---

TEST(TorusRules, RingDirectionTakesTheShorterWayTiesDirect) {
  EXPECT_EQ(torus::ring_direction(0, 1, 6), 1);
  EXPECT_EQ(torus::ring_direction(0, 5, 6), -1);
  EXPECT_EQ(torus::ring_direction(0, 3, 6), 1);  // tie: no wrap
  EXPECT_EQ(torus::ring_direction(5, 0, 6), 1);
  EXPECT_FALSE(torus::crosses_dateline(0, 3, 6));
  EXPECT_TRUE(torus::crosses_dateline(5, 1, 6));
}

TEST(TorusRules, Sl2VlFollowsOutputDimensionTurnAndQos) {
  // Output in y (dim 1) after input in z (dim 2): an illegal turn, VL bit 1.
  const auto t = torus::switch_sl2vl(2, 1);
  EXPECT_EQ(t[0b0000], 2);
  EXPECT_EQ(t[0b0010], 3);  // SL bit 1 = crosses the y dateline
  EXPECT_EQ(t[0b1010], 7);  // QoS bit -> VL bit 2
  const auto legal = torus::switch_sl2vl(0, 1);
  EXPECT_EQ(legal[0b0001], 0);  // x bit does not matter on a y port
  const auto to_ca = torus::switch_sl2vl(1, torus::kNoDim);
  EXPECT_EQ(to_ca[0b1111], 1);
  EXPECT_EQ(torus::end_port_sl2vl()[8], 1);
  EXPECT_EQ(torus::end_port_sl2vl()[7], 0);
}

// --- torus-2QoS ---

struct Shape {
  std::array<unsigned, 3> dims;
  std::array<bool, 3> wrap;
};

class Torus2QosShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(Torus2QosShapes, RoutesAllPairsMinimallyWithAcyclicVls) {
  const Shape s = GetParam();
  const Grid g = make_grid(s.dims, 1, s.wrap);
  auto r = route(g.topo, "torus-2QoS", config_for(g, s.wrap));
  ASSERT_TRUE(r.ok()) << to_string(r.error());
  EXPECT_TRUE(r->warnings.empty());
  const Judgement j = judge(g.topo, *r);
  EXPECT_EQ(j.delivered, j.pairs);
  EXPECT_EQ(j.non_minimal, 0u);
  EXPECT_TRUE(j.acyclic) << j.cycle;
  // One QoS level on the ISLs needs VL0-1 (VL bit 0), the other VL4-5.
  for (unsigned vl : j.vls)
    EXPECT_TRUE(vl == 0 || vl == 1 || vl == 4 || vl == 5) << vl;
}

INSTANTIATE_TEST_SUITE_P(Shapes, Torus2QosShapes,
                         ::testing::Values(Shape{{5, 5, 1}, {true, true, false}},
                                           Shape{{4, 4, 1}, {true, true, false}},
                                           Shape{{3, 3, 3}, {true, true, true}},
                                           Shape{{4, 3, 5}, {true, true, true}},
                                           Shape{{4, 4, 1}, {false, false, false}},
                                           Shape{{6, 3, 1}, {true, false, false}}));

// The SM's own judge (route report -> cdg) follows the per-hop tables too, so it can
// verify torus-2QoS's deadlock-freedom claim; without the tables the same routes loop.
TEST(Torus2Qos, RouteReportJudgesPerHopVls) {
  const std::array<bool, 3> wrap{true, true, true};
  const Grid g = make_grid({5, 3, 4}, 1, wrap);
  auto e = make_engine("torus-2QoS", EngineConfig{.torus_config = {"t.conf", config_for(g, wrap)}});
  EXPECT_TRUE(e->deadlock_free());
  auto r = e->route(g.topo);
  ASSERT_TRUE(r.ok()) << to_string(r.error());
  EXPECT_TRUE(make_route_report(g.topo, *r).acyclic());
  Routes flat = *r;
  for (auto& tables : flat.sl2vl.switches)
    for (auto& t : tables)
      t.fill(0);
  const CdgReport loop = check_channel_dependencies(g.topo, flat);
  EXPECT_FALSE(loop.acyclic());
  EXPECT_FALSE(judge(g.topo, flat).acyclic);
}

// A radix-2 "torus" is a mesh with two parallel cables (+x port 3, -x port 4 of the
// builder): the destinations of a switch alternate over them, in port_order.
TEST(Torus2Qos, ParallelLinksTakeTurnsInPortOrder) {
  const std::array<bool, 3> wrap{true, true, false};
  const Grid g = make_grid({2, 3, 1}, 2, wrap);
  const std::uint32_t src = g.index(0, 0, 0), dst = g.index(1, 0, 0);
  Lid host_on_1 = 0, host_on_2 = 0;
  for (const EndPort& ep : g.topo.end_ports)
    if (ep.sw == dst) (ep.sw_port == 1 ? host_on_1 : host_on_2) = ep.base_lid;
  auto plain = route(g.topo, "torus-2QoS", config_for(g, wrap));
  ASSERT_TRUE(plain.ok()) << to_string(plain.error());
  EXPECT_EQ(plain->lfts[src][host_on_1], 3);
  EXPECT_EQ(plain->lfts[src][host_on_2], 4);
  auto ordered = route(g.topo, "torus-2QoS", config_for(g, wrap, "port_order 2 1\n"));
  ASSERT_TRUE(ordered.ok());
  EXPECT_EQ(ordered->lfts[src][host_on_2], 3);
  EXPECT_EQ(ordered->lfts[src][host_on_1], 4);
  EXPECT_TRUE(judge(g.topo, *ordered).acyclic);
  // Two hosts and port 0 make a group of 3.
  auto small = route(g.topo, "torus-2QoS", config_for(g, wrap, "portgroup_max_ports 2\n"));
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.error().id, kErrTorusMismatch);
}

TEST(Torus2Qos, PathSlMarksDatelineCrossings) {
  const std::array<bool, 3> wrap{true, true, false};
  const Grid g = make_grid({5, 5, 1}, 1, wrap);
  auto r = route(g.topo, "torus-2QoS", config_for(g, wrap));
  ASSERT_TRUE(r.ok()) << to_string(r.error());
  const auto lid_of_switch = [&](std::uint32_t s) { return g.topo.switches[s].lid; };
  // (4,0) -> (0,0) wraps in x; (0,0) -> (1,4) wraps in y only; (0,0) -> (2,2) wraps nothing.
  EXPECT_EQ(r->path_sl.sl(g.index(4, 0, 0), lid_of_switch(g.index(0, 0, 0))), 1);
  EXPECT_EQ(r->path_sl.sl(g.index(0, 0, 0), lid_of_switch(g.index(1, 4, 0))), 2);
  EXPECT_EQ(r->path_sl.sl(g.index(0, 0, 0), lid_of_switch(g.index(2, 2, 0))), 0);
  EXPECT_EQ(r->path_sl.sl(g.index(3, 4, 0), lid_of_switch(g.index(0, 0, 0))), 3);
}

TEST(Torus2Qos, DatelineKeywordMovesTheOrigin) {
  const std::array<bool, 3> wrap{true, true, false};
  const Grid g = make_grid({5, 5, 1}, 1, wrap);
  // The seed switch gets x coordinate 2: the x dateline now lies between x=2 and x=3.
  auto r = route(g.topo, "torus-2QoS", config_for(g, wrap, "x_dateline -2\n"));
  ASSERT_TRUE(r.ok()) << to_string(r.error());
  EXPECT_EQ(r->path_sl.sl(g.index(4, 0, 0), g.topo.switches[g.index(0, 0, 0)].lid), 0);
  EXPECT_EQ(r->path_sl.sl(g.index(2, 0, 0), g.topo.switches[g.index(3, 0, 0)].lid), 1);
  EXPECT_TRUE(judge(g.topo, *r).acyclic);
}

TEST(Torus2Qos, RoutesTheLongWayRoundAFailedLinkKeepingSls) {
  const std::array<bool, 3> wrap{true, true, true};
  const Grid g = make_grid({4, 3, 5}, 1, wrap);
  auto pristine = route(g.topo, "torus-2QoS", config_for(g, wrap));
  ASSERT_TRUE(pristine.ok());
  Topology broken = g.topo;
  cut_link(broken, g.index(1, 1, 1), g.index(2, 1, 1));
  auto r = route(broken, "torus-2QoS", config_for(g, wrap));
  ASSERT_TRUE(r.ok()) << to_string(r.error());
  const Judgement j = judge(broken, *r);
  EXPECT_EQ(j.delivered, j.pairs);
  EXPECT_GT(j.non_minimal, 0u);
  EXPECT_TRUE(j.acyclic) << j.cycle;
  EXPECT_EQ(r->path_sl.table, pristine->path_sl.table);
  // (1,1,1) -> (2,1,1) now leaves by -x.
  const Lid dst = broken.switches[g.index(2, 1, 1)].lid;
  const PortNum out = r->lfts[g.index(1, 1, 1)][dst];
  EXPECT_EQ(out, 1 + 2 + 0 * 2);  // builder: port hosts+2+2d is -d
}

TEST(Torus2Qos, RoutesAroundAFailedSwitch) {
  const std::array<bool, 3> wrap{true, true, false};
  const Grid g = make_grid({6, 5, 1}, 1, wrap);
  auto pristine = route(g.topo, "torus-2QoS", config_for(g, wrap));
  ASSERT_TRUE(pristine.ok());
  const Topology t = without_switch(g.topo, g.index(3, 1, 0));  // switch T of torus-2QoS(8)
  auto r = route(t, "torus-2QoS", config_for(g, wrap));
  ASSERT_TRUE(r.ok()) << to_string(r.error());
  EXPECT_TRUE(r->warnings.empty()) << to_string(r->warnings.front());
  const Judgement j = judge(t, *r);
  EXPECT_EQ(j.delivered, j.pairs);
  EXPECT_TRUE(j.acyclic) << j.cycle;
  EXPECT_TRUE(j.vls.count(2) || j.vls.count(3)) << "a detour uses the turn VL";
  EXPECT_TRUE(make_route_report(t, *r).acyclic());
}

TEST(Torus2Qos, RoutesAroundAFailedSwitchIn3d) {
  const std::array<bool, 3> wrap{true, true, true};
  const Grid g = make_grid({3, 3, 3}, 1, wrap);
  const Topology t = without_switch(g.topo, g.index(1, 1, 1));
  auto r = route(t, "torus-2QoS", config_for(g, wrap));
  ASSERT_TRUE(r.ok()) << to_string(r.error());
  const Judgement j = judge(t, *r);
  EXPECT_EQ(j.delivered, j.pairs);
  EXPECT_TRUE(j.acyclic) << j.cycle;
}

// torus-2QoS(8): failed switches adjacent in the last DOR dimension (z) stay deadlock free.
TEST(Torus2Qos, RoutesAroundTwoFailedSwitchesAdjacentInZ) {
  const std::array<bool, 3> wrap{true, true, true};
  const Grid g = make_grid({5, 5, 5}, 1, wrap);
  Topology t = without_switch(g.topo, g.index(2, 2, 3));
  t = without_switch(t, g.index(2, 2, 2));  // below the first: its index did not move
  auto r = route(t, "torus-2QoS", config_for(g, wrap));
  ASSERT_TRUE(r.ok()) << to_string(r.error());
  const Judgement j = judge(t, *r, false);
  EXPECT_EQ(j.delivered, j.pairs);
  EXPECT_TRUE(j.acyclic) << j.cycle;
  EXPECT_EQ(make_route_report(t, *r).acyclic(), j.acyclic);
}

TEST(Torus2Qos, RefusesADisjointRing) {
  const std::array<bool, 3> wrap{true, true, false};
  const Grid g = make_grid({5, 5, 1}, 1, wrap);
  Topology t = g.topo;
  cut_link(t, g.index(0, 2, 0), g.index(1, 2, 0));
  cut_link(t, g.index(3, 2, 0), g.index(4, 2, 0));
  auto r = route(t, "torus-2QoS", config_for(g, wrap));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kErrTorusDisjointRing) << r.error().message;
}

TEST(Torus2Qos, RefusesAFabricOfOtherDimensions) {
  const std::array<bool, 3> wrap{true, true, false};
  const Grid g = make_grid({5, 5, 1}, 1, wrap);
  std::string conf = config_for(g, wrap);
  conf.replace(conf.find("torus 5t 5t 1m"), 14, "torus 6t 5t 1m");
  auto r = route(g.topo, "torus-2QoS", conf);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kErrTorusMismatch) << r.error().message;
}

TEST(Torus2Qos, RefusesSeedsNotInTheFabric) {
  const Grid g = make_grid({3, 3, 1}, 1, {true, true, false});
  auto r = route(g.topo, "torus-2QoS", "torus 3 3 1\nxp_link 0x999 0x998\nyp_link 0x999 0x997\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kErrTorusSeedUnusable);
  EXPECT_NE(r.error().message.find("/etc/torus-2QoS.conf:2"), std::string::npos)
      << r.error().message;
}

TEST(Torus2Qos, NextSeedIsUsedWhenTheFirstSwitchFailed) {
  const std::array<bool, 3> wrap{true, true, false};
  const Grid g = make_grid({5, 5, 1}, 1, wrap);
  const std::string second = "next_seed\nxp_link " + hex(g.guid(2, 2, 0)) + " " +
                             hex(g.guid(3, 2, 0)) + "\nyp_link " + hex(g.guid(2, 2, 0)) + " " +
                             hex(g.guid(2, 3, 0)) + "\nx_dateline -2\ny_dateline -2\n";
  const Topology t = without_switch(g.topo, g.index(0, 0, 0));
  auto r = route(t, "torus-2QoS", config_for(g, wrap, second));
  ASSERT_TRUE(r.ok()) << to_string(r.error());
  auto pristine = route(g.topo, "torus-2QoS", config_for(g, wrap));
  ASSERT_TRUE(pristine.ok());
  // Same datelines from either seed: the SL between two surviving switches is unchanged.
  const std::uint32_t a = g.index(4, 1, 0), b = g.index(1, 1, 0);
  EXPECT_EQ(r->path_sl.sl(a - 1, g.topo.switches[b].lid),
            pristine->path_sl.sl(a, g.topo.switches[b].lid));
  EXPECT_TRUE(judge(t, *r).acyclic);
}

TEST(TorusConfig, ErrorsNameFileAndLine) {
  const auto parse = [](const std::string& text) {
    return torus::parse_torus_config({"t.conf", text});
  };
  auto bad_kw = parse("torus 3 3 3\nxp_link 0x1 0x2\nbogus 1\n");
  ASSERT_FALSE(bad_kw.ok());
  EXPECT_EQ(bad_kw.error().id, kErrTorusConfigSyntax);
  EXPECT_NE(bad_kw.error().message.find("t.conf:3"), std::string::npos);
  auto bad_radix = parse("\n# c\nmesh 3 x 3\n");
  ASSERT_FALSE(bad_radix.ok());
  EXPECT_NE(bad_radix.error().message.find("t.conf:3"), std::string::npos);
  auto not_first = parse("xp_link 0x1 0x2\ntorus 3 3 3\n");
  ASSERT_FALSE(not_first.ok());
  EXPECT_EQ(not_first.error().id, kErrTorusConfigSyntax);
  auto two_from = parse("torus 3 3 1\nxp_link 0x1 0x2\nyp_link 0x5 0x6\n");
  ASSERT_FALSE(two_from.ok());
  EXPECT_NE(two_from.error().message.find("t.conf:3"), std::string::npos);
  auto radix4 = parse("torus 4 3 1\nxp_link 0x1 0x2\nyp_link 0x1 0x3\n");
  ASSERT_FALSE(radix4.ok());
  EXPECT_EQ(radix4.error().id, kErrTorusConfigMissing);
  auto no_y = parse("torus 3 3 1\nxp_link 0x1 0x2\n");
  ASSERT_FALSE(no_y.ok());
  EXPECT_EQ(no_y.error().id, kErrTorusConfigMissing);
}

TEST(TorusConfig, ParsesEveryKeyword) {
  auto c = torus::parse_torus_config(
      {"t.conf",
       "mesh 3T 4 5 # trailing\nportgroup_max_ports 20\nmax_changes 7\nport_order 3 1 3 2\n"
       "xp_link 0x10 0x11\nym_link 0x10 0x12\nyp_link 0x10 0x13\nzm_link 0x10 0x14\n"
       "z_dateline -1\nnext_seed\nxp_link 0x20 0x21\nyp_link 0x20 0x22\nzp_link 0x20 0x23\n"});
  ASSERT_TRUE(c.ok()) << to_string(c.error());
  EXPECT_EQ(c->radix, (std::array<unsigned, 3>{3, 4, 5}));
  EXPECT_EQ(c->wraps, (std::array<bool, 3>{true, false, false}));
  EXPECT_EQ(c->portgroup_max_ports, 20u);
  EXPECT_EQ(c->max_changes, 7u);
  EXPECT_EQ(c->port_order, (std::vector<PortNum>{3, 1, 2}));
  ASSERT_EQ(c->seeds.size(), 2u);
  EXPECT_EQ(c->seeds[0].from, 0x10u);
  EXPECT_EQ(c->seeds[0].neighbour[1][0], 0x12u);
  EXPECT_EQ(c->seeds[0].dateline[2], -1);
  EXPECT_EQ(c->seeds[1].neighbour[2][1], 0x23u);
}

// --- dor ---

// Hypercube of 2^n switches: switch i's port hosts+1+d goes to switch i ^ (1 << d).
Topology hypercube(unsigned n, unsigned hosts) {
  testsupport::Fabric f;
  const unsigned count = 1u << n;
  for (unsigned i = 0; i < count; ++i) {
    testsupport::Node s;
    s.type = testsupport::NodeType::kSwitch;
    s.id = s.description = "hc" + std::to_string(i);
    s.num_ports = static_cast<std::uint8_t>(hosts + n);
    f.nodes.push_back(s);
  }
  for (unsigned i = 0; i < count; ++i)
    for (unsigned d = 0; d < n; ++d)
      if (const unsigned j = i ^ (1u << d); j > i)
        f.cables.push_back({{i, static_cast<std::uint8_t>(hosts + 1 + d)},
                            {j, static_cast<std::uint8_t>(hosts + 1 + d)}});
  for (unsigned i = 0; i < count; ++i)
    for (unsigned h = 0; h < hosts; ++h) {
      testsupport::Node c;
      c.id = c.description = "h" + std::to_string(i) + "_" + std::to_string(h);
      c.num_ports = 1;
      f.nodes.push_back(c);
      f.cables.push_back({{i, static_cast<std::uint8_t>(h + 1)},
                          {static_cast<std::uint32_t>(f.nodes.size() - 1), 1}});
    }
  testsupport::assign_ibsim_guids(f);
  return to_routing(f).topo;
}

TEST(Dor, MeshAndHypercubeAreMinimalAndDeadlockFree) {
  const Grid mesh = make_grid({4, 3, 3}, 2, {false, false, false});
  for (const Topology* t : {&mesh.topo}) {
    auto r = route(*t, "dor", "");
    ASSERT_TRUE(r.ok());
    const Judgement j = judge(*t, *r, false);
    EXPECT_EQ(j.delivered, j.pairs);
    EXPECT_EQ(j.non_minimal, 0u);
    EXPECT_TRUE(j.acyclic) << j.cycle;
  }
  const Topology hc = hypercube(4, 1);
  auto r = route(hc, "dor", "");
  ASSERT_TRUE(r.ok());
  const Judgement j = judge(hc, *r, false);
  EXPECT_EQ(j.delivered, j.pairs);
  EXPECT_EQ(j.non_minimal, 0u);
  EXPECT_TRUE(j.acyclic) << j.cycle;
}

TEST(Dor, TorusWraparoundClosesACycleThatTorus2QosAvoids) {
  const std::array<bool, 3> wrap{true, true, false};
  const Grid g = make_grid({5, 5, 1}, 1, wrap);
  auto dor = route(g.topo, "dor", "");
  ASSERT_TRUE(dor.ok());
  EXPECT_FALSE(judge(g.topo, *dor, false).acyclic);
  auto t2q = route(g.topo, "torus-2QoS", config_for(g, wrap));
  ASSERT_TRUE(t2q.ok());
  EXPECT_TRUE(judge(g.topo, *t2q).acyclic);
}

TEST(Dor, TakesTheLowestMinimalPortAndBalancesParallelLinks) {
  // A 2x1x1 "torus" has two parallel cables (+x port 2, -x port 3 on each side).
  const Grid g = make_grid({2, 1, 1}, 1, {true, false, false});
  auto r = route(g.topo, "dor", "");
  ASSERT_TRUE(r.ok());
  const Lid host_b = g.topo.end_ports[1].base_lid, sw_b = g.topo.switches[1].lid;
  EXPECT_EQ(r->lfts[0][sw_b] + r->lfts[0][host_b], 2 + 3) << "one LID per parallel link";
}

TEST(Dor, PortSearchOrderingFileChangesTheDimensionOrder) {
  const Grid g = make_grid({3, 3, 1}, 1, {false, false, false});
  // Corner (0,0) to (1,1): default order tries +x (port 2) first; listing +y (port 4)
  // first makes the path go y first.
  const Lid dst = g.topo.switches[g.index(1, 1, 0)].lid;
  EngineConfig c;
  auto plain = make_engine("dor", c)->route(g.topo);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->lfts[g.index(0, 0, 0)][dst], 2);
  c.port_search_ordering = {"/etc/dimn",
                            "# y first\n" + hex(g.guid(0, 0, 0)) + " 4 2\n" + "0x1234 1\n"};
  auto ordered = make_engine("dor", c)->route(g.topo);
  ASSERT_TRUE(ordered.ok());
  EXPECT_EQ(ordered->lfts[g.index(0, 0, 0)][dst], 4);
  ASSERT_EQ(ordered->warnings.size(), 1u);  // the unknown GUID, ignored as OpenSM does
  EXPECT_EQ(ordered->warnings[0].id, kErrPortOrderIgnored);
  EXPECT_NE(ordered->warnings[0].message.find("/etc/dimn:3"), std::string::npos);
  c.port_search_ordering.text = "0x10 1 two\n";
  auto bad = make_engine("dor", c)->route(g.topo);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().id, kErrPortOrderFile);
  EXPECT_NE(bad.error().message.find("/etc/dimn:1"), std::string::npos);
}

// Timing and EFI on the shared 6x6x6 torus (routing.md 4.3: OpenSM torus-2QoS 0.05 s, dor
// 0.06 s, EFI 864). Prints, asserts only correctness; run with
// --gtest_also_run_disabled_tests --gtest_filter='*Torus6x6x6*'.
TEST(TorusBench, DISABLED_Torus6x6x6) {
  const std::string path = test::shared_net("torus-6x6x6-432.net");
  if (!test::have_file(path)) GTEST_SKIP() << path << " not installed";
  auto fabric = testsupport::load_net_file(path);
  ASSERT_TRUE(fabric.ok());
  const auto fx = to_routing(*fabric);
  const auto guid = [&](const std::string& name) {
    const auto n = fabric->find(name);
    EXPECT_TRUE(n.has_value()) << name;
    return n ? fx.topo.switches[fx.switch_of_node[*n]].guid : 0;
  };
  const std::string conf = "torus 6 6 6\nxp_link " + hex(guid("t0_0_0")) + " " +
                           hex(guid("t1_0_0")) + "\nyp_link " + hex(guid("t0_0_0")) + " " +
                           hex(guid("t0_1_0")) + "\nzp_link " + hex(guid("t0_0_0")) + " " +
                           hex(guid("t0_0_1")) + "\n";
  for (const char* engine : {"dor", "torus-2QoS"}) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = route(fx.topo, engine, conf);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(r.ok()) << to_string(r.error());
    const auto loads = channel_loads(fx.topo, *r);
    const Judgement j = judge(fx.topo, *r, false);
    std::cout << engine << ": routing " << s << " s, EFI " << loads.max << ", per-VL CDG "
              << (j.acyclic ? "acyclic" : "cycle") << ", VLs " << j.vls.size() << ", pairs "
              << j.pairs << " delivered " << j.delivered << ", switches " << fx.topo.switches.size()
              << " end ports " << fx.topo.end_ports.size() << "\n";
    EXPECT_EQ(j.delivered, j.pairs);
    EXPECT_EQ(j.non_minimal, 0u);
    if (std::string_view(engine) == "torus-2QoS") {
      EXPECT_TRUE(j.acyclic) << j.cycle;
    }
  }
}

}  // namespace
}  // namespace ibsm::routing
