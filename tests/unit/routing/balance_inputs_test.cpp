// The route-balancing inputs sites configure for minhop and updn (routing/port_balance.hpp,
// routing/hop_weights.hpp, updn's connect_roots and ids): each changes the tables the way
// its definition says, on small drawn fabrics where the expected ports can be worked out
// by hand. With every key off the engines are unchanged (minhop_golden_test, updn_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "routing/analysis.hpp"
#include "routing/errors.hpp"
#include "routing/hop_matrix.hpp"
#include "routing/hop_weights.hpp"
#include "routing/port_balance.hpp"
#include "routing/updn_order.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

using testsupport::Fabric;
using testsupport::to_routing;

Routes route_or_fail(const Topology& topo, std::string_view engine, const EngineConfig& config) {
  auto e = make_engine(engine, config);
  EXPECT_NE(e, nullptr);
  if (!e) return {};
  auto r = e->route(topo);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : to_string(r.error()));
  return r.ok() ? std::move(r).value() : Routes{};
}

std::uint32_t switch_named(const Topology& topo, std::string_view name) {
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s)
    if (topo.switches[s].description == name) return s;
  ADD_FAILURE() << "no switch " << name;
  return 0;
}

const EndPort& port_named(const Topology& topo, std::string_view name) {
  for (const EndPort& e : topo.end_ports)
    if (e.description == name) return e;
  ADD_FAILURE() << "no end port " << name;
  return topo.end_ports.front();
}

// Output port of switch `sw` towards end port `name`.
PortNum port_to(const Topology& topo, const Routes& r, std::string_view sw, std::string_view name) {
  return r.lfts[switch_named(topo, sw)][port_named(topo, name).base_lid];
}

bool has_warning(const Routes& r, ErrorId id, const std::string& text = "") {
  return std::any_of(r.warnings.begin(), r.warnings.end(), [&](const Error& e) {
    return e.id == id && e.message.find(text) != std::string::npos;
  });
}

void expect_all_delivered(const Topology& topo, const Routes& r) {
  const PairCheck pc = check_all_pairs(topo, r);
  EXPECT_TRUE(pc.all_delivered()) << (pc.examples.empty() ? "" : pc.examples[0]);
}

// Follows the LFTs from switch s to `lid`; the number of switch hops, or -1 on a loop or
// a dead end. Switch LIDs are delivered on port 0.
int walk(const Topology& topo, const Routes& r, std::uint32_t s, Lid lid) {
  for (int hops = 0; hops <= static_cast<int>(topo.switches.size()); ++hops) {
    const PortNum p = r.lfts[s][lid];
    if (p == 0) return topo.switches[s].lid == lid ? hops : -1;
    const auto& links = topo.switches[s].links;
    auto it = std::find_if(links.begin(), links.end(), [&](const Link& l) { return l.port == p; });
    if (it == links.end()) return -1;
    if (it->kind != Link::Kind::kSwitch) return hops;
    s = it->peer;
  }
  return -1;
}

// Switch1 (one host) joined to Switch2 (hosts on ports 1, 2, 4) by cables on ports 3, 5.
constexpr std::string_view kOneToThree = R"(Switch 8 "Switch1"
[1] "H1"[1]
[3] "Switch2"[3]
[5] "Switch2"[5]

Switch 8 "Switch2"
[1] "Ha"[1]
[2] "Hb"[1]
[4] "Hc"[1]
[3] "Switch1"[3]
[5] "Switch1"[5]

Hca 1 "H1"
[1] "Switch1"[1]

Hca 1 "Ha"
[1] "Switch2"[1]

Hca 1 "Hb"
[1] "Switch2"[2]

Hca 1 "Hc"
[1] "Switch2"[4]
)";

// A ring of four switches A-B-C-D, one host each; port 2 goes clockwise, port 3 back.
constexpr std::string_view kRing4 = R"(Switch 4 "A"
[1] "HA"[1]
[2] "B"[3]
[3] "D"[2]

Switch 4 "B"
[1] "HB"[1]
[2] "C"[3]
[3] "A"[2]

Switch 4 "C"
[1] "HC"[1]
[2] "D"[3]
[3] "B"[2]

Switch 4 "D"
[1] "HD"[1]
[2] "A"[3]
[3] "C"[2]

Hca 1 "HA"
[1] "A"[1]

Hca 1 "HB"
[1] "B"[1]

Hca 1 "HC"
[1] "C"[1]

Hca 1 "HD"
[1] "D"[1]
)";

// ---- guid_routing_order_file ----

// A listed port is routed before all others, when every load is still zero: each switch
// sends it on its lowest-numbered minimal port (the rotation starts at sequence 0).
TEST(RoutingOrder, FirstGuidGetsTheEmptyPortsEverywhere) {
  const Topology topo = to_routing(testsupport::two_level_fat_tree(4, 4, 4)).topo;
  const EndPort& last = topo.end_ports.back();  // routed last by default
  auto hops = HopMatrix::compute(topo);
  ASSERT_TRUE(hops.ok());
  const auto lowest_minimal = [&](std::uint32_t s) {
    PortNum best = kNoPath;
    for (const Link& l : topo.switches[s].links)
      if (l.kind == Link::Kind::kSwitch &&
          hops->hops(l.peer, last.sw) + 1 == hops->hops(s, last.sw))
        best = std::min(best, l.port);
    return best;
  };
  for (const bool listed : {false, true}) {
    EngineConfig config;
    if (listed) config.routing_order_guids = {last.port_guid};
    for (std::string_view engine : {"minhop", "updn"}) {
      const Routes r = route_or_fail(topo, engine, config);
      expect_all_delivered(topo, r);
      std::size_t lowest = 0, switches = 0;
      for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
        if (s == last.sw) continue;
        ++switches;
        if (r.lfts[s][last.base_lid] == lowest_minimal(s)) ++lowest;
      }
      if (listed)
        EXPECT_EQ(lowest, switches) << engine;
      else
        EXPECT_LT(lowest, switches) << engine << ": the test cannot tell the orders apart";
    }
  }
}

// Hand-worked: Switch1 carries one source; by default Hca2 (sequence 2) takes port 3 and
// Hca4 (sequence 3) the emptier port 5. Listed first, Hca4 takes port 3 and Hca2 port 5.
TEST(RoutingOrder, ListedPortIsRoutedFirst) {
  const Topology topo = to_routing(test::parse_or_fail(test::kTwoSwitchesParallelLinks)).topo;
  const Routes plain = route_or_fail(topo, "minhop", {});
  EXPECT_EQ(port_to(topo, plain, "Switch1", "Hca2"), 3);
  EXPECT_EQ(port_to(topo, plain, "Switch1", "Hca4"), 5);
  EngineConfig config;
  config.routing_order_guids = {port_named(topo, "Hca4").port_guid};
  const Routes ordered = route_or_fail(topo, "minhop", config);
  EXPECT_EQ(port_to(topo, ordered, "Switch1", "Hca4"), 3);
  EXPECT_EQ(port_to(topo, ordered, "Switch1", "Hca2"), 5);
  EXPECT_TRUE(ordered.warnings.empty());
}

// sssp/dfsssp route in their own order (the busiest switches' ports first), the listed
// ports still before it. Hand-worked: by default Hca2 comes first and keeps the first
// channel Dijkstra finds (port 3), Hca4 then avoids it; listed first, Hca4 takes port 3.
TEST(RoutingOrder, SsspRoutesListedPortsFirst) {
  const Topology topo = to_routing(test::parse_or_fail(test::kTwoSwitchesParallelLinks)).topo;
  EngineConfig config;
  config.routing_order_guids = {port_named(topo, "Hca4").port_guid};
  for (std::string_view engine : {"sssp", "dfsssp"}) {
    const Routes plain = route_or_fail(topo, engine, {});
    EXPECT_EQ(port_to(topo, plain, "Switch1", "Hca2"), 3) << engine;
    EXPECT_EQ(port_to(topo, plain, "Switch1", "Hca4"), 5) << engine;
    const Routes ordered = route_or_fail(topo, engine, config);
    EXPECT_EQ(port_to(topo, ordered, "Switch1", "Hca4"), 3) << engine;
    EXPECT_EQ(port_to(topo, ordered, "Switch1", "Hca2"), 5) << engine;
  }
}

TEST(RoutingOrder, UnknownAndRepeatedGuidsAreReported) {
  const Topology topo = to_routing(test::parse_or_fail(test::kTwoSwitchesParallelLinks)).topo;
  EngineConfig config;
  const std::uint64_t g = port_named(topo, "Hca4").port_guid;
  config.routing_order_guids = {g, 0x1234, g};
  config.balance_ignored_guids = {0x5678};
  for (std::string_view engine : {"minhop", "updn"}) {
    const Routes r = route_or_fail(topo, engine, config);
    EXPECT_TRUE(has_warning(r, kErrBalanceGuidUnknown, "guid_routing_order_file: 2 GUID(s)"));
    EXPECT_TRUE(has_warning(r, kErrBalanceGuidUnknown, "port_prof_ignore_file: 1 GUID(s)"));
    EXPECT_TRUE(has_warning(r, kErrBalanceGuidUnknown, "0x0000000000005678"));
  }
}

// ---- port_prof_ignore_file ----

// Hand-worked from Switch1 (one source) towards Ha, Hb, Hc (sequences 1-3) over ports 3/5.
// By default Ha takes port 5, Hb the emptier port 3 and Hc (tie, rotation from 5) port 5.
// With Hb ignored, Hb is still routed (rotation: port 3) but loads nothing, so Hc finds
// port 3 emptier than port 5 and takes it too.
TEST(IgnoreFile, IgnoredPortsRoutesDoNotCount) {
  const Topology topo = to_routing(test::parse_or_fail(kOneToThree)).topo;
  EngineConfig config;
  config.balance_ignored_guids = {port_named(topo, "Hb").port_guid};
  for (std::string_view engine : {"minhop", "updn"}) {
    const Routes plain = route_or_fail(topo, engine, {});
    EXPECT_EQ(port_to(topo, plain, "Switch1", "Hb"), 3) << engine;
    EXPECT_EQ(port_to(topo, plain, "Switch1", "Hc"), 5) << engine;
    const Routes r = route_or_fail(topo, engine, config);
    EXPECT_EQ(port_to(topo, r, "Switch1", "Ha"), 5) << engine;
    EXPECT_EQ(port_to(topo, r, "Switch1", "Hb"), 3) << engine;
    EXPECT_EQ(port_to(topo, r, "Switch1", "Hc"), 3) << engine;
    expect_all_delivered(topo, r);
    EXPECT_FALSE(has_warning(r, kErrBalanceGuidUnknown)) << engine;
  }
}

// sssp routes Switch2's hosts first (Ha, Hb, Hc). By default Ha keeps port 3, Hb takes
// port 5 and Hc ties and keeps port 3. With Hb ignored its route on port 5 loads nothing,
// so Hc takes port 5.
TEST(IgnoreFile, SsspIgnoredPortsRoutesDoNotCount) {
  const Topology topo = to_routing(test::parse_or_fail(kOneToThree)).topo;
  EngineConfig config;
  config.balance_ignored_guids = {port_named(topo, "Hb").port_guid};
  for (std::string_view engine : {"sssp", "dfsssp"}) {
    const Routes plain = route_or_fail(topo, engine, {});
    EXPECT_EQ(port_to(topo, plain, "Switch1", "Hb"), 5) << engine;
    EXPECT_EQ(port_to(topo, plain, "Switch1", "Hc"), 3) << engine;
    const Routes r = route_or_fail(topo, engine, config);
    EXPECT_EQ(port_to(topo, r, "Switch1", "Hb"), 5) << engine;
    EXPECT_EQ(port_to(topo, r, "Switch1", "Hc"), 5) << engine;
    expect_all_delivered(topo, r);
  }
}

// ---- port_profile_switch_nodes ----

// kOneToThree plus Switch3 behind Switch2 (no hosts). From Switch1 the data loads are
// port 3: 1 (Hb), port 5: 2 (Ha, Hc). The switch LIDs follow: Switch2's takes port 3
// either way (its own counter ties, then the data load decides). Off, Switch3's LID
// goes by its own counter of switch LIDs (port 3: 1, port 5: 0) to port 5. On, Switch2's
// LID loaded port 3 with Switch1's flow like any destination (3: 2, 5: 2), so Switch3's
// LID ties and takes port 3 (rotation from sequence 6 mod 2 = 0).
constexpr std::string_view kOneToThreeAndASwitch = R"(Switch 8 "Switch1"
[1] "H1"[1]
[3] "Switch2"[3]
[5] "Switch2"[5]

Switch 8 "Switch2"
[1] "Ha"[1]
[2] "Hb"[1]
[4] "Hc"[1]
[3] "Switch1"[3]
[5] "Switch1"[5]
[6] "Switch3"[1]

Switch 8 "Switch3"
[1] "Switch2"[6]

Hca 1 "H1"
[1] "Switch1"[1]

Hca 1 "Ha"
[1] "Switch2"[1]

Hca 1 "Hb"
[1] "Switch2"[2]

Hca 1 "Hc"
[1] "Switch2"[4]
)";

TEST(PortProfileSwitchNodes, SwitchLidsCountInTheBalance) {
  const Topology topo = to_routing(test::parse_or_fail(kOneToThreeAndASwitch)).topo;
  const std::uint32_t s1 = switch_named(topo, "Switch1");
  const Lid sw2 = topo.switches[switch_named(topo, "Switch2")].lid;
  const Lid sw3 = topo.switches[switch_named(topo, "Switch3")].lid;
  for (std::string_view engine : {"minhop", "updn"}) {
    const Routes off = route_or_fail(topo, engine, {});
    EXPECT_EQ(off.lfts[s1][sw2], 3) << engine;
    EXPECT_EQ(off.lfts[s1][sw3], 5) << engine;
    EngineConfig config;
    config.port_profile_switch_nodes = true;
    const Routes on = route_or_fail(topo, engine, config);
    EXPECT_EQ(on.lfts[s1][sw2], 3) << engine;
    EXPECT_EQ(on.lfts[s1][sw3], 3) << engine;
    // End-port routes come first and do not change.
    for (const EndPort& e : topo.end_ports)
      EXPECT_EQ(on.lfts[s1][e.base_lid], off.lfts[s1][e.base_lid]) << engine;
    expect_all_delivered(topo, on);
  }
}

// ---- port_shifting ----

TEST(PortShifting, StartIsLidsOnCandidatesOverTheirNumber) {
  EXPECT_EQ(shifted_start(0, 2), 0U);
  EXPECT_EQ(shifted_start(1, 2), 0U);
  EXPECT_EQ(shifted_start(2, 2), 1U);
  EXPECT_EQ(shifted_start(7, 3), 2U);
  EXPECT_EQ(shifted_start(9, 3), 0U);
}

// Hand-worked from Switch1 (one source) towards Ha, Hb, Hc (sequences 1-3) over ports 3/5.
// Default rotation by sequence: Ha 5, Hb 3 (the emptier), Hc 5 (tie, rotation from 1).
// Shifting starts at LIDs-on-candidates / 2: Ha 0/2 -> 3; Hb 1/2 = 0, port 3 is loaded
// -> 5; Hc 2/2 = 1, tie -> 5.
TEST(PortShifting, ShiftReplacesTheSequenceRotation) {
  const Topology topo = to_routing(test::parse_or_fail(kOneToThree)).topo;
  for (std::string_view engine : {"minhop", "updn"}) {
    const Routes plain = route_or_fail(topo, engine, {});
    EXPECT_EQ(port_to(topo, plain, "Switch1", "Ha"), 5) << engine;
    EXPECT_EQ(port_to(topo, plain, "Switch1", "Hb"), 3) << engine;
    EXPECT_EQ(port_to(topo, plain, "Switch1", "Hc"), 5) << engine;
    EngineConfig config;
    config.port_shifting = true;
    const Routes shifted = route_or_fail(topo, engine, config);
    EXPECT_EQ(port_to(topo, shifted, "Switch1", "Ha"), 3) << engine;
    EXPECT_EQ(port_to(topo, shifted, "Switch1", "Hb"), 5) << engine;
    EXPECT_EQ(port_to(topo, shifted, "Switch1", "Hc"), 5) << engine;
    expect_all_delivered(topo, shifted);
  }
}

// ---- scatter_ports ----

TEST(ScatterPorts, ChoiceIsReproducibleAndSpread) {
  std::vector<unsigned> hits(4, 0);
  for (Lid lid = 1; lid <= 400; ++lid) {
    const std::uint32_t c = scatter_choice(7, lid, 3, 4);
    ASSERT_LT(c, 4U);
    EXPECT_EQ(c, scatter_choice(7, lid, 3, 4));
    ++hits[c];
  }
  for (unsigned h : hits)
    EXPECT_GT(h, 60U);  // 100 expected each
}

TEST(ScatterPorts, SameSeedSameTablesOtherwiseDifferent) {
  const Topology topo = to_routing(testsupport::kary_ntree(4, 3)).topo;
  for (std::string_view engine : {"minhop", "updn"}) {
    const Routes round_robin = route_or_fail(topo, engine, {});
    EngineConfig seven, eight;
    seven.scatter_seed = 7;
    eight.scatter_seed = 8;
    const Routes a = route_or_fail(topo, engine, seven);
    const Routes b = route_or_fail(topo, engine, seven);
    const Routes c = route_or_fail(topo, engine, eight);
    EXPECT_EQ(a.lfts, b.lfts) << engine;
    EXPECT_NE(a.lfts, round_robin.lfts) << engine;
    EXPECT_NE(a.lfts, c.lfts) << engine;
    expect_all_delivered(topo, a);
    // Still balanced: scatter only draws among the least-loaded ports.
    const ChannelLoads loads = channel_loads(topo, a);
    const ChannelLoads rr = channel_loads(topo, round_robin);
    EXPECT_LE(loads.max, 2 * rr.max) << engine;
  }
}

// guid_routing_order_no_scatter: a listed port keeps the deterministic choice (the lowest
// minimal port everywhere, being first); without it some seed moves it.
TEST(ScatterPorts, NoScatterForListedPorts) {
  const Topology topo = to_routing(testsupport::two_level_fat_tree(4, 2, 4)).topo;
  const EndPort& first = topo.end_ports.back();
  const Routes plain = [&] {
    EngineConfig c;
    c.routing_order_guids = {first.port_guid};
    return route_or_fail(topo, "minhop", c);
  }();
  for (const bool no_scatter : {true, false}) {
    bool moved = false;
    for (std::uint32_t seed = 1; seed <= 10; ++seed) {
      EngineConfig c;
      c.routing_order_guids = {first.port_guid};
      c.routing_order_no_scatter = no_scatter;
      c.scatter_seed = seed;
      const Routes r = route_or_fail(topo, "minhop", c);
      for (std::uint32_t s = 0; s < topo.switches.size(); ++s)
        if (r.lfts[s][first.base_lid] != plain.lfts[s][first.base_lid]) moved = true;
    }
    EXPECT_EQ(moved, !no_scatter);
  }
}

// ---- hop_weights_file ----

TEST(HopWeights, ParsesLinesAndNamesBadOnes) {
  const HopWeightsFile f = parse_hop_weights(
      "# weights\n"
      "0x0002c90000000001 3 10\n"
      "\n"
      "0x0002c90000000001 0x4 2   # hex port\n"
      "0002c90000000001 3 10\n"
      "0x0002c90000000001 0 10\n"
      "0x0002c90000000001 3 256\n"
      "0x0002c90000000001 3\n"
      "0x0002c90000000001 3 1 9\n",
      "w.txt");
  ASSERT_EQ(f.weights.size(), 2U);
  EXPECT_EQ(f.weights[0].switch_guid, 0x0002c90000000001ULL);
  EXPECT_EQ(f.weights[0].port, 3);
  EXPECT_EQ(f.weights[0].weight, 10);
  EXPECT_EQ(f.weights[1].port, 4);
  EXPECT_EQ(f.weights[1].weight, 2);
  ASSERT_EQ(f.warnings.size(), 5U);
  EXPECT_EQ(f.warnings[0].id, kErrHopWeightsFile);
  EXPECT_NE(f.warnings[0].message.find("w.txt:5:"), std::string::npos);
  EXPECT_NE(f.warnings[1].message.find("w.txt:6: port '0'"), std::string::npos);
  EXPECT_NE(f.warnings[2].message.find("w.txt:7: weight '256'"), std::string::npos);
  EXPECT_NE(f.warnings[3].message.find("w.txt:8:"), std::string::npos);
  EXPECT_NE(f.warnings[4].message.find("w.txt:9: unexpected '9'"), std::string::npos);
}

// On the ring, A reaches C both ways round; weight 2 on A's clockwise port leaves only the
// other way. Weight 4 makes even the direct link to B dearer than going round (3 hops).
TEST(HopWeights, WeightSteersRoutesAwayFromThePort) {
  const Topology topo = to_routing(test::parse_or_fail(kRing4)).topo;
  const std::uint64_t a = topo.switches[switch_named(topo, "A")].guid;
  const Routes plain = route_or_fail(topo, "minhop", {});
  EXPECT_EQ(port_to(topo, plain, "A", "HB"), 2);

  EngineConfig two;
  two.hop_weights = {{a, 2, 2}};
  const Routes r2 = route_or_fail(topo, "minhop", two);
  EXPECT_EQ(port_to(topo, r2, "A", "HC"), 3);
  EXPECT_EQ(port_to(topo, r2, "A", "HB"), 2);
  expect_all_delivered(topo, r2);

  EngineConfig four;
  four.hop_weights = {{a, 2, 4}};
  const Routes r4 = route_or_fail(topo, "minhop", four);
  EXPECT_EQ(port_to(topo, r4, "A", "HB"), 3);
  EXPECT_EQ(walk(topo, r4, switch_named(topo, "A"), port_named(topo, "HB").base_lid), 3);
  expect_all_delivered(topo, r4);
  // Only leaving A by port 2 is dearer: B still reaches A directly.
  EXPECT_EQ(port_to(topo, r4, "B", "HA"), 3);
  EXPECT_TRUE(r4.warnings.empty());
}

TEST(HopWeights, UnknownSwitchOrPortIsReported) {
  const Topology topo = to_routing(test::parse_or_fail(kRing4)).topo;
  const std::uint64_t a = topo.switches[switch_named(topo, "A")].guid;
  EngineConfig config;
  config.hop_weights = {{0x99, 2, 5}, {a, 1, 5}};  // port 1 faces a host
  const Routes r = route_or_fail(topo, "minhop", config);
  EXPECT_TRUE(has_warning(r, kErrHopWeightUnknown, "2 weight(s) ignored"));
  EXPECT_EQ(r.lfts, route_or_fail(topo, "minhop", {}).lfts);
}

// ---- connect_roots (updn) ----

TEST(ConnectRoots, RootsReachEachOther) {
  const Topology topo = to_routing(testsupport::two_level_fat_tree(2, 2, 2)).topo;
  const std::uint32_t spine0 = switch_named(topo, "spine0");
  const std::uint32_t spine1 = switch_named(topo, "spine1");
  EngineConfig config;
  config.root_guids = {topo.switches[spine0].guid, topo.switches[spine1].guid};
  const Routes plain = route_or_fail(topo, "updn", config);
  EXPECT_EQ(plain.lfts[spine0][topo.switches[spine1].lid], kNoPath);
  EXPECT_TRUE(has_warning(plain, kErrUpDownUnreachable));
  EXPECT_TRUE(make_engine("updn", config)->deadlock_free());

  config.connect_roots = true;
  EXPECT_FALSE(make_engine("updn", config)->deadlock_free());
  EXPECT_TRUE(make_engine("dnup", config)->deadlock_free());
  const Routes connected = route_or_fail(topo, "updn", config);
  EXPECT_EQ(walk(topo, connected, spine0, topo.switches[spine1].lid), 2);
  EXPECT_EQ(walk(topo, connected, spine1, topo.switches[spine0].lid), 2);
  EXPECT_FALSE(has_warning(connected, kErrUpDownUnreachable));
  // Routes to end ports are those of plain updn.
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s)
    for (const EndPort& e : topo.end_ports)
      EXPECT_EQ(connected.lfts[s][e.base_lid], plain.lfts[s][e.base_lid]);
  expect_all_delivered(topo, connected);
}

// Three-level tree: an aggregation switch reaches only the cores above it legally; with
// connect_roots every switch reaches every core LID, loop-free.
TEST(ConnectRoots, EverySwitchReachesEveryRootLid) {
  const Topology topo = to_routing(testsupport::folded_clos3(2, 2, 2, 2, 1)).topo;
  EngineConfig config;
  for (const Switch& sw : topo.switches)
    if (sw.description.starts_with("c")) config.root_guids.push_back(sw.guid);
  ASSERT_EQ(config.root_guids.size(), 4U);
  config.connect_roots = true;
  const Routes r = route_or_fail(topo, "updn", config);
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s)
    for (const Switch& root : topo.switches)
      if (root.description.starts_with("c")) {
        EXPECT_GE(walk(topo, r, s, root.lid), 0)
            << topo.switches[s].description << " -> " << root.description;
      }
  expect_all_delivered(topo, r);
}

// ---- ids_guid_file (updn) ----

// Triangle: root R above X and Y (equal rank), X-Y cabled. By GUID the lower (X) is up;
// ids that rank Y below X turn the X-Y channel round.
constexpr std::string_view kTriangle = R"(Switch 4 "R"
[1] "X"[1]
[2] "Y"[1]

Switch 4 "X"
[1] "R"[1]
[2] "Y"[2]
[3] "HX"[1]

Switch 4 "Y"
[1] "R"[2]
[2] "X"[2]
[3] "HY"[1]

Hca 1 "HX"
[1] "X"[3]

Hca 1 "HY"
[1] "Y"[3]
)";

TEST(IdsGuidFile, IdsReplaceGuidsInTheRankTieBreak) {
  const Topology topo = to_routing(test::parse_or_fail(kTriangle)).topo;
  auto hops = HopMatrix::compute(topo);
  ASSERT_TRUE(hops.ok());
  const std::uint32_t r = switch_named(topo, "R"), x = switch_named(topo, "X"),
                      y = switch_named(topo, "Y");
  ASSERT_LT(topo.switches[x].guid, topo.switches[y].guid);
  const std::vector<std::uint64_t> roots = {topo.switches[r].guid};
  const UpDownOrder by_guid = updn_order(topo, *hops, roots);
  EXPECT_TRUE(goes_up(by_guid, y, x));
  const UpDownOrder by_id =
      updn_order(topo, *hops, roots, {{topo.switches[x].guid, 20}, {topo.switches[y].guid, 10}});
  EXPECT_TRUE(goes_up(by_id, x, y));
  EngineConfig config;
  config.root_guids = roots;
  config.guid_ids = {{topo.switches[x].guid, 20}, {topo.switches[y].guid, 10}};
  const Routes routes = route_or_fail(topo, "updn", config);
  expect_all_delivered(topo, routes);
}

}  // namespace
}  // namespace ibsm::routing
