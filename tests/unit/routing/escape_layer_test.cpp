// The escape layer (routing/escape_layer.hpp) on a hand-drawn degraded 2-level tree, under
// ftree and dnup: the one switch LID that a leaf cannot reach going up then down moves to
// SL 1 with a route from every switch, the one answer entry it needs is filled, every
// (end port, LID) pair is delivered, each VL stays free of credit loops, and a complete
// tree is left exactly as the engine routed it.
#include <gtest/gtest.h>

#include <string>

#include "routing/analysis.hpp"
#include "routing/cdg.hpp"
#include "routing/errors.hpp"
#include "routing/route_report.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

// Two spines, three leaves with one host each (port 3); leaf l1 has lost its cable to
// spine s0 (s0 port 2 -- l1 port 1). From l1, s0's LID needs l1 -> s1 -> l0 -> s0: a
// down->up turn at l0, which ftree's and dnup's up/down rule forbids.
constexpr std::string_view kPulledCable = R"(Switch 4 "s0"
[1] "l0"[1]
[3] "l2"[1]

Switch 4 "s1"
[1] "l0"[2]
[2] "l1"[2]
[3] "l2"[2]

Switch 4 "l0"
[1] "s0"[1]
[2] "s1"[1]
[3] "h0"[1]

Switch 4 "l1"
[2] "s1"[2]
[3] "h1"[1]

Switch 4 "l2"
[1] "s0"[3]
[2] "s1"[3]
[3] "h2"[1]

Hca 1 "h0"
[1] "l0"[3]
Hca 1 "h1"
[1] "l1"[3]
Hca 1 "h2"
[1] "l2"[3]
)";

std::uint32_t switch_named(const Topology& t, const std::string& name) {
  for (std::uint32_t s = 0; s < t.switches.size(); ++s)
    if (t.switches[s].description == name) return s;
  ADD_FAILURE() << "no switch " << name;
  return 0;
}

std::uint32_t host_named(const Topology& t, const std::string& name) {
  for (std::uint32_t e = 0; e < t.end_ports.size(); ++e)
    if (t.end_ports[e].description == name) return e;
  ADD_FAILURE() << "no host " << name;
  return 0;
}

class EscapeLayer : public ::testing::TestWithParam<const char*> {
 protected:
  Topology topo = testsupport::to_routing(test::parse_or_fail(kPulledCable)).topo;
};

TEST_P(EscapeLayer, TheUnreachableSwitchLidMovesToSlOne) {
  auto routed = make_engine(GetParam())->route(topo);
  ASSERT_TRUE(routed.ok()) << to_string(routed.error());
  const Routes& r = *routed;
  const std::uint32_t s0 = switch_named(topo, "s0");
  const std::uint32_t l0 = switch_named(topo, "l0");
  const std::uint32_t l1 = switch_named(topo, "l1");
  const Lid s0_lid = topo.switches[s0].lid;
  const Lid h1_lid = topo.end_ports[host_named(topo, "h1")].base_lid;

  // Golden: exactly s0's LID escaped, exactly s0's entry towards h1 filled. (dnup also
  // counts the switch pairs its rule leaves out, IBSM-3004, before the escape layer.)
  const Error* escape = nullptr;
  for (const Error& w : r.warnings)
    if (w.id == kErrEscapeLayer) {
      EXPECT_EQ(escape, nullptr) << "two IBSM-3080 warnings";
      escape = &w;
    } else {
      EXPECT_EQ(w.id, kErrUpDownUnreachable) << w.message;
    }
  ASSERT_NE(escape, nullptr);
  EXPECT_NE(escape->message.find("1 switch LIDs, 0 end-port LIDs"), std::string::npos)
      << escape->message;
  EXPECT_NE(escape->message.find("; 1 entries of switches"), std::string::npos) << escape->message;
  ASSERT_FALSE(r.path_sl.empty());
  EXPECT_EQ(r.path_sl.layers, 2U);
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
    EXPECT_EQ(r.path_sl.sl(s, s0_lid), 1U) << topo.switches[s].description;
    EXPECT_NE(r.lfts[s][s0_lid], kNoPath) << topo.switches[s].description;
  }
  EXPECT_EQ(r.path_sl.sl(s0, h1_lid), 1U);  // s0's answers to h1 use the filled entry
  EXPECT_EQ(r.path_sl.sl(l0, h1_lid), 0U);  // data stays on SL 0
  // l1 reaches s0 over s1 and a leaf below s0 (the only ways there).
  const Trace t = trace_route(topo, r, host_named(topo, "h1"), s0_lid);
  EXPECT_EQ(t.outcome, Delivery::kDelivered);
  ASSERT_EQ(t.hops.size(), 4U);
  EXPECT_EQ(t.hops[0].sw, l1);
  EXPECT_EQ(t.hops[1].sw, switch_named(topo, "s1"));
  EXPECT_EQ(t.hops[3].sw, s0);

  // Properties: every (end port, LID) pair delivered, per VL acyclic; CA paths are at most
  // leaf -> spine -> leaf (3 switches).
  const RouteReport rep = make_route_report(topo, r);
  EXPECT_TRUE(rep.complete()) << format_route_report_line(rep);
  EXPECT_EQ(rep.switch_pairs, 3U * 5U);
  EXPECT_TRUE(rep.acyclic());
  EXPECT_EQ(rep.vls_used, (std::vector<std::uint8_t>{0, 1}));
  for (std::uint32_t a = 0; a < topo.end_ports.size(); ++a)
    for (std::uint32_t b = 0; b < topo.end_ports.size(); ++b) {
      if (a == b) continue;
      const Trace ca = trace_route(topo, r, a, topo.end_ports[b].base_lid);
      EXPECT_EQ(ca.outcome, Delivery::kDelivered);
      EXPECT_LE(ca.hops.size(), 3U);
    }
  // Every switch answers every host (what ibroute needs back from the switch it reads).
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s)
    for (const EndPort& e : topo.end_ports) {
      std::uint32_t at = s;
      bool delivered = false;
      for (int hop = 0; hop < 8 && !delivered; ++hop) {
        const PortNum p = r.lfts[at][e.base_lid];
        if (at == e.sw && p == e.sw_port) {
          delivered = true;
          break;
        }
        const Switch& sw = topo.switches[at];
        const Link* next = nullptr;
        for (const Link& l : sw.links)
          if (l.port == p && l.kind == Link::Kind::kSwitch) next = &l;
        if (next == nullptr) break;
        at = next->peer;
      }
      EXPECT_TRUE(delivered) << topo.switches[s].description << " -> " << e.description;
    }

  // A single data VL leaves no room for the layer: the engine fails, the SM falls back.
  EngineConfig one_vl;
  one_vl.max_vls = 1;
  auto refused = make_engine(GetParam(), one_vl)->route(topo);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().id, kErrEscapeLayerNoVl);
}

TEST_P(EscapeLayer, CompleteTreeIsLeftAsRouted) {
  Topology complete = testsupport::to_routing(test::parse_or_fail(kPulledCable)).topo;
  // Put the cable back: s0 port 2 <-> l1 port 1.
  const std::uint32_t s0 = switch_named(complete, "s0");
  const std::uint32_t l1 = switch_named(complete, "l1");
  complete.switches[s0].links.push_back({2, Link::Kind::kSwitch, l1, 1});
  complete.switches[l1].links.push_back({1, Link::Kind::kSwitch, s0, 2});
  EngineConfig one_vl;
  one_vl.max_vls = 1;  // nothing to escape, so one VL is enough
  auto routed = make_engine(GetParam(), one_vl)->route(complete);
  ASSERT_TRUE(routed.ok()) << to_string(routed.error());
  for (const Error& w : routed->warnings)
    EXPECT_NE(w.id, kErrEscapeLayer) << w.message;
  EXPECT_TRUE(routed->path_sl.empty());
  EXPECT_TRUE(make_route_report(complete, *routed).complete());
}

INSTANTIATE_TEST_SUITE_P(Engines, EscapeLayer, ::testing::Values("ftree", "dnup"));

}  // namespace
}  // namespace ibsm::routing
