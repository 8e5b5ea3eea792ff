// Multicast spanning trees (routing/mcast_tree.hpp): golden trees on small drawn
// fabrics, and on random fabrics with loops and parallel cables the property that
// matters on the wire: a packet flooded along the masks from any member reaches every
// other member exactly once and never circles (IBA 14.2.5.12; chapter 18, switch
// multicast forwarding).
#include "routing/mcast_tree.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <sstream>

#include "tests/support/builders.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

using testsupport::Fabric;

struct Drawn {
  Fabric fabric;
  testsupport::RoutingFixture fx;
  HopMatrix hops;
};

Drawn draw(const Fabric& f) {
  Drawn d{f, testsupport::to_routing(f), {}};
  auto h = HopMatrix::compute(d.fx.topo);
  EXPECT_TRUE(h.ok());
  if (h.ok()) d.hops = std::move(h).value();
  return d;
}

Drawn draw(std::string_view net) {
  return draw(test::parse_or_fail(net));
}

// A host joins through the switch port its cable lands on; a switch joins as port 0.
McastMember member(const Drawn& d, const std::string& id) {
  const auto node = d.fabric.find(id);
  EXPECT_TRUE(node.has_value()) << id;
  if (d.fabric.nodes[*node].type == testsupport::NodeType::kSwitch)
    return {d.fx.switch_of_node[*node], 0};
  const auto peer = d.fabric.peer({*node, 1});
  EXPECT_TRUE(peer.has_value()) << id;
  return {d.fx.switch_of_node[peer->node], peer->port};
}

std::vector<McastMember> members(const Drawn& d, std::initializer_list<const char*> ids) {
  std::vector<McastMember> out;
  for (const char* id : ids)
    out.push_back(member(d, id));
  return out;
}

// "switch: ports" per switch of the tree, root marked, in switch order.
std::string show(const Topology& topo, const McastTree& t) {
  std::ostringstream out;
  for (const auto& e : t.entries) {
    out << topo.switches[e.sw].description << (e.sw == t.root ? "*" : "") << ":";
    for (PortNum p : t.ports(e.sw))
      out << " " << unsigned{p};
    out << "\n";
  }
  return out.str();
}

struct Flood {
  std::map<std::pair<std::uint32_t, PortNum>, unsigned> delivered;  // member port -> copies
  bool looped = false;
  std::string stray;  // a delivery to a port that is no member
};

// Sends one packet from `from` and follows every copy: a switch forwards out of every
// port of its mask but the one the packet came in on (IBA chapter 18, switch multicast
// forwarding).
Flood flood(const Topology& topo, const McastTree& t, McastMember from,
            const std::vector<McastMember>& all) {
  Flood f;
  std::vector<std::pair<std::uint32_t, PortNum>> queue{{from.sw, from.port}};
  std::size_t hops = 0;
  while (!queue.empty()) {
    auto [sw, in] = queue.back();
    queue.pop_back();
    if (++hops > 4 * topo.switches.size() * 64 + 64) {
      f.looped = true;
      return f;
    }
    for (PortNum p : t.ports(sw)) {
      if (p == in) continue;
      const Link* link = nullptr;
      for (const Link& l : topo.switches[sw].links)
        if (l.port == p) link = &l;
      if (p == 0 || link == nullptr || link->kind == Link::Kind::kEndPort) {
        const McastMember m{sw, p};
        if (std::find(all.begin(), all.end(), m) == all.end())
          f.stray = topo.switches[sw].description + " port " + std::to_string(p);
        ++f.delivered[{sw, p}];
        continue;
      }
      queue.push_back({link->peer, link->peer_port});
    }
  }
  return f;
}

// From every member, every other member gets exactly one copy and the sender none.
void expect_exact_flood(const Topology& topo, const McastTree& t,
                        const std::vector<McastMember>& all) {
  for (const McastMember& src : all) {
    const Flood f = flood(topo, t, src, all);
    ASSERT_FALSE(f.looped) << "from switch " << src.sw << " port " << unsigned{src.port};
    EXPECT_TRUE(f.stray.empty()) << f.stray;
    for (const McastMember& dst : all) {
      auto it = f.delivered.find({dst.sw, dst.port});
      const unsigned copies = it == f.delivered.end() ? 0 : it->second;
      EXPECT_EQ(copies, dst == src ? 0U : 1U) << "from " << src.sw << "/" << unsigned{src.port}
                                              << " to " << dst.sw << "/" << unsigned{dst.port};
    }
  }
}

McastTree build(const Drawn& d, const std::vector<McastMember>& m, std::uint32_t mlid = 0xC000) {
  McastTreeBuilder b(d.fx.topo, d.hops);
  return b.build(m, mlid);
}

// Hosts on one switch: the tree is that switch alone, no inter-switch port.
TEST(McastTree, MembersBehindOneSwitch) {
  const Drawn d = draw(test::kTwoSwitchesParallelLinks);
  const auto m = members(d, {"Hca1", "Hca3"});
  const McastTree t = build(d, m);
  EXPECT_EQ(show(d.fx.topo, t), "Switch1*: 1 2\n");
  expect_exact_flood(d.fx.topo, t, m);
}

// Fewer than two member ports: nothing to forward, no entries (OpenSM's rule); a
// repeated member counts once.
TEST(McastTree, LoneMemberGetsNoEntries) {
  const Drawn d = draw(test::kTwoSwitchesParallelLinks);
  EXPECT_TRUE(build(d, members(d, {"Hca1"})).entries.empty());
  EXPECT_TRUE(build(d, members(d, {"Hca1", "Hca1"})).entries.empty());
  EXPECT_TRUE(build(d, {}).entries.empty());
}

// Two parallel cables: exactly one of them carries the group, and different MLIDs
// spread over both.
TEST(McastTree, ParallelLinksCarryOneCopy) {
  const Drawn d = draw(test::kTwoSwitchesParallelLinks);
  const auto m = members(d, {"Hca1", "Hca2", "Hca4"});
  const McastTree t = build(d, m);
  EXPECT_EQ(show(d.fx.topo, t), "Switch1: 1 3\nSwitch2*: 1 2 3\n");
  expect_exact_flood(d.fx.topo, t, m);
  std::set<PortNum> used;
  for (std::uint32_t mlid = 0xC000; mlid < 0xC010; ++mlid) {
    const McastTree x = build(d, m, mlid);
    expect_exact_flood(d.fx.topo, x, m);
    const auto ports = x.ports(member(d, "Switch1").sw);
    EXPECT_EQ(ports.size(), 2U);
    used.insert(ports.back());
  }
  EXPECT_EQ(used, (std::set<PortNum>{3, 5}));
}

// A switch is a member through port 0 (IBA 14.2.5.12: bit 0 delivers to the switch).
TEST(McastTree, SwitchItselfIsAMember) {
  const Drawn d = draw(test::kTwoSwitchesParallelLinks);
  const auto m = members(d, {"Switch1", "Hca2"});
  const McastTree t = build(d, m);
  EXPECT_TRUE(t.has_port(member(d, "Switch1").sw, 0));
  expect_exact_flood(d.fx.topo, t, m);
}

// A ring of four switches: the tree must break the loop.
//
//    h0 -[ r0 ]2---1[ r1 ]- h1
//          1|         |2
//          2|         |1
//    h3 -[ r3 ]1---2[ r2 ]- h2          (host on port 3 of each switch)
constexpr std::string_view kRing = test::kRingOfFour;

TEST(McastTree, RingIsBroken) {
  const Drawn d = draw(kRing);
  const auto m = members(d, {"h0", "h1", "h2", "h3"});
  const McastTree t = build(d, m);
  EXPECT_EQ(show(d.fx.topo, t), "r0*: 1 2 3\nr1: 1 3\nr2: 2 3\nr3: 1 2 3\n");
  expect_exact_flood(d.fx.topo, t, m);
  // Two members on adjacent switches: the root is one of them and the tree is one cable.
  const auto two = members(d, {"h1", "h2"});
  const McastTree t2 = build(d, two);
  EXPECT_EQ(show(d.fx.topo, t2), "r1*: 2 3\nr2: 1 3\n");
  expect_exact_flood(d.fx.topo, t2, two);
}

// A 2-level fat tree: the root is a spine (two hops from every leaf's hosts; both
// spines tie, the lower GUID wins), each leaf reaches it by one uplink.
//
//          [ spine0 ]      [ spine1 ]
//          1|  2|  3|      1|  2|  3|
//     3[leaf0]  3[leaf1]  3[leaf2]     (port 3 -> spine0, port 4 -> spine1)
//     1|  2|    1|  2|    1|  2|
//     h00 h01   h10 h11   h20 h21
TEST(McastTree, FatTreeRootsAtASpine) {
  const Drawn d = draw(testsupport::two_level_fat_tree(3, 2, 2));
  const auto m = members(d, {"h0_0", "h0_1", "h1_1", "h2_0"});
  const McastTree t = build(d, m);
  EXPECT_EQ(show(d.fx.topo, t), "spine0*: 1 2 3\nleaf0: 1 2 3\nleaf1: 2 3\nleaf2: 1 3\n");
  expect_exact_flood(d.fx.topo, t, m);
  // Members on two leaves only: still through one spine, never both.
  const auto two = members(d, {"h0_0", "h2_1"});
  const McastTree t2 = build(d, two, 0xC001);
  EXPECT_EQ(t2.entries.size(), 3U);
  expect_exact_flood(d.fx.topo, t2, two);
}

TEST(McastTree, SameInputSameTree) {
  const Drawn d = draw(testsupport::kary_ntree(4, 3));
  std::vector<McastMember> m;
  for (const EndPort& e : d.fx.topo.end_ports)
    if (e.base_lid % 3 == 0) m.push_back({e.sw, e.sw_port});
  const McastTree a = build(d, m, 0xC123);
  std::vector<McastMember> reversed(m.rbegin(), m.rend());
  const McastTree b = build(d, reversed, 0xC123);
  EXPECT_EQ(show(d.fx.topo, a), show(d.fx.topo, b));
  EXPECT_EQ(a.masks.size(), b.masks.size());
  expect_exact_flood(d.fx.topo, a, m);
}

// Random connected fabrics with loops and parallel cables, random members (hosts and
// switches themselves), wide switches (masks over several positions).
TEST(McastTreeProperties, RandomFabricsFloodExactlyOnce) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    Topology topo;
    const unsigned n = 1 + rng() % 12;
    const PortNum ports = static_cast<PortNum>(round % 5 == 0 ? 40 : 8);
    topo.switches.resize(n);
    std::vector<std::vector<bool>> used(n, std::vector<bool>(ports + 1u, false));
    for (unsigned s = 0; s < n; ++s) {
      topo.switches[s].guid = 0x1000 + ((s * 7919u) % 101);
      topo.switches[s].description = "s" + std::to_string(s);
      topo.switches[s].num_ports = ports;
    }
    auto free_port = [&](unsigned s) -> int {
      std::vector<PortNum> f;
      for (PortNum p = 1; p <= ports; ++p)
        if (!used[s][p]) f.push_back(p);
      return f.empty() ? -1 : f[rng() % f.size()];
    };
    auto cable = [&](unsigned a, unsigned b) {
      const int pa = free_port(a);
      if (pa < 0) return;
      used[a][static_cast<unsigned>(pa)] = true;
      const int pb = free_port(b);
      if (pb < 0) {
        used[a][static_cast<unsigned>(pa)] = false;
        return;
      }
      used[b][static_cast<unsigned>(pb)] = true;
      topo.switches[a].links.push_back(
          {static_cast<PortNum>(pa), Link::Kind::kSwitch, b, static_cast<PortNum>(pb)});
      topo.switches[b].links.push_back(
          {static_cast<PortNum>(pb), Link::Kind::kSwitch, a, static_cast<PortNum>(pa)});
    };
    for (unsigned s = 1; s < n; ++s)
      cable(s, rng() % s);  // a spanning tree keeps it connected
    const unsigned extra = rng() % (n + 2);
    for (unsigned e = 0; e < extra && n > 1; ++e) {
      const unsigned a = rng() % n;
      const unsigned b = (a + 1 + rng() % (n - 1)) % n;
      cable(a, b);  // loops, and parallel cables when a-b already exist
    }
    std::vector<McastMember> m;
    for (unsigned s = 0; s < n; ++s) {
      if (rng() % 4 == 0) m.push_back({s, 0});
      for (PortNum p = 1; p <= ports; ++p) {
        if (used[s][p] || rng() % 3 != 0) continue;
        used[s][p] = true;
        const auto ep = static_cast<std::uint32_t>(topo.end_ports.size());
        topo.end_ports.push_back({});
        topo.end_ports.back().sw = s;
        topo.end_ports.back().sw_port = p;
        topo.switches[s].links.push_back({p, Link::Kind::kEndPort, ep, 1});
        m.push_back({s, p});
      }
    }
    std::shuffle(m.begin(), m.end(), rng);
    auto hops = HopMatrix::compute(topo);
    ASSERT_TRUE(hops.ok());
    McastTreeBuilder b(topo, *hops);
    const McastTree t = b.build(m, static_cast<std::uint32_t>(0xC000 + round));
    if (m.size() < 2) {
      EXPECT_TRUE(t.entries.empty());
      continue;
    }
    EXPECT_EQ(t.unreachable, 0U);
    SCOPED_TRACE("round " + std::to_string(round) + "\n" + show(topo, t));
    expect_exact_flood(topo, t, m);
    // A tree over k switches uses k - 1 cables: 2(k - 1) inter-switch mask bits.
    std::size_t inter = 0;
    for (const auto& e : t.entries)
      for (PortNum p : t.ports(e.sw))
        for (const Link& l : topo.switches[e.sw].links)
          inter += l.port == p && l.kind == Link::Kind::kSwitch ? 1 : 0;
    EXPECT_EQ(inter, 2 * (t.entries.size() - 1));
  }
}

// A split fabric: members the root cannot reach are counted, the rest still get a tree.
TEST(McastTree, UnreachableMembersAreCounted) {
  Topology topo;
  topo.switches.resize(3);
  for (std::uint32_t s = 0; s < 3; ++s) {
    topo.switches[s].guid = 0x10 + s;
    topo.switches[s].num_ports = 4;
  }
  topo.switches[0].links.push_back({1, Link::Kind::kSwitch, 1, 1});
  topo.switches[1].links.push_back({1, Link::Kind::kSwitch, 0, 1});
  auto hops = HopMatrix::compute(topo);
  ASSERT_TRUE(hops.ok());
  McastTreeBuilder b(topo, *hops);
  const std::vector<McastMember> m{{0, 2}, {1, 2}, {2, 2}};
  const McastTree t = b.build(m, 0xC000);
  EXPECT_EQ(t.unreachable, 1U);
  EXPECT_TRUE(t.has_port(0, 2));
  EXPECT_TRUE(t.has_port(1, 2));
  EXPECT_EQ(t.find(2), nullptr);
}

}  // namespace
}  // namespace ibsm::routing
