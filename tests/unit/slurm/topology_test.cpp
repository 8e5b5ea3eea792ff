// slurm/topology.hpp and slurm/render.hpp on hand-made fabrics: host and switch names,
// the tree on fat trees with one and several cores, fabrics whose switches all have
// hosts, a host on a spine, rails, filters, and the exact topology.conf and JSON.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include <spdlog/fmt/fmt.h>

#include "slurm/render.hpp"
#include "slurm/topology.hpp"

namespace ibsm::slurm {
namespace {

struct Fabric {
  FabricInput in;
  std::uint64_t next_ca = 0x100000;
  std::uint32_t sw(const std::string& name) {
    in.switches.push_back({0x200000 + in.switches.size(), name, {}});
    return static_cast<std::uint32_t>(in.switches.size() - 1);
  }
  void link(std::uint32_t a, std::uint32_t b) {
    in.switches[a].peers.push_back(b);
    in.switches[b].peers.push_back(a);
  }
  // A CA port; `desc` is its NodeDescription (and name).
  void host(const std::string& desc, std::uint32_t s, std::uint64_t guid = 0,
            std::uint8_t port = 1) {
    in.host_ports.push_back({guid ? guid : next_ca++, port, desc, desc, s, 1});
  }
};

const TreeSwitch* find(const Topology& t, const std::string& name) {
  for (const TreeSwitch& s : t.switches)
    if (s.name == name) return &s;
  return nullptr;
}

// Every host under exactly one leaf, every switch but the top with a parent one level
// up, no switch with both hosts and switches, the top last and above all.
void expect_tree(const Topology& t) {
  ASSERT_FALSE(t.switches.empty());
  std::map<std::string, int> placed;
  for (std::uint32_t i = 0; i < t.switches.size(); ++i) {
    const TreeSwitch& s = t.switches[i];
    EXPECT_TRUE(s.hosts.empty() || s.children.empty()) << s.name;
    for (const std::string& h : s.hosts)
      ++placed[h];
    if (i == t.top()) {
      EXPECT_EQ(s.parent, kNoSwitch);
      continue;
    }
    ASSERT_NE(s.parent, kNoSwitch) << s.name;
    EXPECT_GT(t.switches[s.parent].level, s.level) << s.name;
    EXPECT_LE(s.level, t.switches[t.top()].level);
  }
  EXPECT_EQ(placed.size(), t.hosts);
  for (const auto& [h, n] : placed)
    EXPECT_EQ(n, 1) << h;
}

TEST(SlurmNames, HostIsTheFirstWordIfSlurmTakesIt) {
  EXPECT_EQ(host_name("node001 mlx5_0"), "node001");
  EXPECT_EQ(host_name("  gpu-7.cluster\tHCA-1"), "gpu-7.cluster");
  EXPECT_EQ(host_name("h0_0"), "h0_0");
  EXPECT_EQ(host_name(""), "");
  EXPECT_EQ(host_name("   "), "");
  EXPECT_EQ(host_name("n[1-2] mlx5_0"), "");  // a hostlist in a name
  EXPECT_EQ(host_name("a,b"), "");
  EXPECT_EQ(host_name("caf\xc3\xa9"), "");
}

TEST(SlurmNames, SwitchNamesAreMadeSafe) {
  EXPECT_EQ(safe_switch_name("MF0;ib-sw01:MQM8700/U1"), "MF0_ib-sw01_MQM8700_U1");
  EXPECT_EQ(safe_switch_name("Switch 1"), "Switch_1");
  EXPECT_EQ(safe_switch_name(" leaf-1 "), "leaf-1");
  EXPECT_EQ(safe_switch_name(""), "switch");
  EXPECT_EQ(safe_switch_name("sw[1],x=y#z"), "sw_1__x_y_z");
  EXPECT_EQ(safe_switch_name(std::string(80, 'a')).size(), 48u);
  EXPECT_EQ(safe_switch_name("s12345678901234567890"), "s12345678901234567890_");
  EXPECT_EQ(safe_switch_name("s123456789012345678"), "s123456789012345678");
}

TEST(SlurmTree, RepeatedSwitchNamesGetTheirGuid) {
  Fabric f;
  const auto a = f.sw("Mellanox switch"), b = f.sw("Mellanox switch");
  f.link(a, b);
  f.host("h1", a);
  f.host("h2", b);
  const Topology t = build_topology(f.in, {});
  ASSERT_EQ(t.switches.size(), 3u);
  EXPECT_EQ(t.switches[0].name, "Mellanox_switch");
  EXPECT_EQ(t.switches[1].name, "Mellanox_switch_0000000000200001");
  EXPECT_TRUE(t.virtual_top);
  EXPECT_EQ(t.switches[2].name, "ibsm_top");
}

TEST(SlurmTree, OneSwitchIsItsOwnTop) {
  Fabric f;
  const auto s = f.sw("sw");
  f.host("h1 mlx5_0", s);
  f.host("h2 mlx5_0", s);
  const Topology t = build_topology(f.in, {});
  ASSERT_EQ(t.switches.size(), 1u);
  EXPECT_FALSE(t.virtual_top);
  EXPECT_EQ(topology_conf(t, describe({})),
            "# Slurm topology.conf (TopologyPlugin=topology/tree), written by ibsm from the\n"
            "# InfiniBand fabric of its last heavy sweep.\n"
            "# 2 hosts under 1 leaf switches, 1 switches in all; top: sw\n"
            "# hosts placed by rail 0 of each host\n"
            "SwitchName=sw Nodes=h[1-2]\n");
}

// A two-level fat tree: `spines` spines over `leaves` leaves, `per` hosts each.
Fabric two_level(int spines, int leaves, int per) {
  Fabric f;
  std::vector<std::uint32_t> sp, lf;
  for (int i = 0; i < spines; ++i)
    sp.push_back(f.sw(fmt::format("spine{}", i + 1)));
  for (int i = 0; i < leaves; ++i)
    lf.push_back(f.sw(fmt::format("leaf{:02}", i + 1)));
  for (const auto l : lf)
    for (const auto s : sp)
      f.link(l, s);
  int n = 0;
  for (const auto l : lf)
    for (int k = 0; k < per; ++k)
      f.host(fmt::format("node{:03} mlx5_0", ++n), l);
  return f;
}

TEST(SlurmTree, TwoLevelFatTreeGetsAVirtualTopOverItsLeaves) {
  const Topology t = build_topology(two_level(2, 3, 2).in, {});
  expect_tree(t);
  EXPECT_TRUE(t.virtual_top);
  EXPECT_EQ(topology_conf(t, describe({})),
            "# Slurm topology.conf (TopologyPlugin=topology/tree), written by ibsm from the\n"
            "# InfiniBand fabric of its last heavy sweep.\n"
            "# 6 hosts under 3 leaf switches, 4 switches in all; top: ibsm_top (virtual, over "
            "the switches without a parent)\n"
            "# hosts placed by rail 0 of each host\n"
            "SwitchName=leaf01 Nodes=node[001-002]\n"
            "SwitchName=leaf02 Nodes=node[003-004]\n"
            "SwitchName=leaf03 Nodes=node[005-006]\n"
            "SwitchName=ibsm_top Switches=leaf[01-03]\n");
}

TEST(SlurmTree, OneSpineIsARealTop) {
  const Topology t = build_topology(two_level(1, 3, 2).in, {});
  expect_tree(t);
  EXPECT_FALSE(t.virtual_top);
  EXPECT_EQ(t.switches[t.top()].name, "spine1");
  EXPECT_EQ(t.switches[t.top()].level, 1u);
}

// A three-level fat tree of `pods` pods (2 leaves, 2 middles each, fully linked within
// the pod) and `cores` cores; middle m of every pod links to core group m.
Fabric three_level(int pods, int cores_per_group) {
  Fabric f;
  std::vector<std::vector<std::uint32_t>> core_group(2);
  for (int g = 0; g < 2; ++g)
    for (int c = 0; c < cores_per_group; ++c)
      core_group[g].push_back(f.sw(fmt::format("core{}_{}", g, c)));
  int n = 0;
  for (int p = 0; p < pods; ++p) {
    std::vector<std::uint32_t> mids;
    for (int m = 0; m < 2; ++m) {
      mids.push_back(f.sw(fmt::format("mid{}_{}", p, m)));
      for (const auto c : core_group[m])
        f.link(mids.back(), c);
    }
    for (int l = 0; l < 2; ++l) {
      const auto leaf = f.sw(fmt::format("leaf{}_{}", p, l));
      for (const auto m : mids)
        f.link(leaf, m);
      for (int k = 0; k < 3; ++k)
        f.host(fmt::format("cn{:02}", ++n), leaf);
    }
  }
  return f;
}

TEST(SlurmTree, ThreeLevelsOnePodParentEachAndTheCoresReplacedByTheVirtualTop) {
  const Topology t = build_topology(three_level(3, 2).in, {});
  expect_tree(t);
  EXPECT_TRUE(t.virtual_top);
  EXPECT_EQ(t.hosts, 18u);
  // 6 leaves, one middle per pod (the first), the virtual top over the middles.
  ASSERT_EQ(t.switches.size(), 6u + 3u + 1u);
  const TreeSwitch& top = t.switches[t.top()];
  EXPECT_EQ(top.level, 2u);
  std::set<std::string> under_top;
  for (const auto c : top.children)
    under_top.insert(t.switches[c].name);
  EXPECT_EQ(under_top, (std::set<std::string>{"mid0_0", "mid1_0", "mid2_0"}));
  const TreeSwitch* leaf = find(t, "leaf1_1");
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(t.switches[leaf->parent].name, "mid1_0");
  EXPECT_EQ(leaf->hosts, (std::vector<std::string>{"cn10", "cn11", "cn12"}));
  EXPECT_EQ(find(t, "core0_0"), nullptr);
}

TEST(SlurmTree, ThreeLevelsWithOneCoreKeepIt) {
  Fabric f = three_level(2, 1);
  // Only core group 0 exists as a single core: drop group 1's core links.
  const Topology t = build_topology(f.in, {});
  expect_tree(t);
  // Two cores in all (one per group): the top is virtual.
  EXPECT_TRUE(t.virtual_top);
  Fabric g;
  const auto core = g.sw("core");
  const auto m0 = g.sw("mid0"), m1 = g.sw("mid1");
  g.link(core, m0);
  g.link(core, m1);
  const auto l0 = g.sw("leaf0"), l1 = g.sw("leaf1");
  g.link(l0, m0);
  g.link(l1, m1);
  g.host("a1", l0);
  g.host("b1", l1);
  const Topology u = build_topology(g.in, {});
  expect_tree(u);
  EXPECT_FALSE(u.virtual_top);
  EXPECT_EQ(u.switches[u.top()].name, "core");
  EXPECT_EQ(u.switches[u.top()].level, 2u);
}

TEST(SlurmTree, SwitchesThatAllHaveHostsAreLeavesUnderTheVirtualTop) {
  // A ring of four switches, two hosts each (a dragonfly group, a torus row).
  Fabric f;
  std::vector<std::uint32_t> ring;
  for (int i = 0; i < 4; ++i)
    ring.push_back(f.sw(fmt::format("s{}", i)));
  for (int i = 0; i < 4; ++i) {
    f.link(ring[i], ring[(i + 1) % 4]);
    f.host(fmt::format("h{}a", i), ring[i]);
    f.host(fmt::format("h{}b", i), ring[i]);
  }
  const Topology t = build_topology(f.in, {});
  expect_tree(t);
  EXPECT_TRUE(t.virtual_top);
  EXPECT_EQ(t.switches.size(), 5u);
  EXPECT_EQ(t.switches[t.top()].level, 1u);
}

TEST(SlurmTree, AHostOnASpineMakesItALeafAndStillOneTop) {
  Fabric f = two_level(2, 3, 2);
  f.host("storage1 mlx5_0", 0);  // on spine1
  const Topology t = build_topology(f.in, {});
  expect_tree(t);
  EXPECT_EQ(t.hosts, 7u);
  const TreeSwitch* spine = find(t, "spine1");
  ASSERT_NE(spine, nullptr);
  EXPECT_EQ(spine->level, 0u);
  EXPECT_EQ(spine->hosts, (std::vector<std::string>{"storage1"}));
}

// h1 and h2 with two HCAs each: mlx5_0 on leaf01, mlx5_1 on leaf02.
Fabric two_rails() {
  Fabric f = two_level(2, 2, 0);
  f.host("h1 mlx5_1", 3, 0x100011);
  f.host("h1 mlx5_0", 2, 0x100010);
  f.host("h2 mlx5_0", 2, 0x100020);
  f.host("h2 mlx5_1", 3, 0x100021);
  f.host("h3 mlx5_0", 2, 0x100030);  // one rail only
  return f;
}

TEST(SlurmRails, EachHostGoesUnderItsRailsSwitch) {
  const Fabric f = two_rails();
  Topology t = build_topology(f.in, {});
  expect_tree(t);
  EXPECT_EQ(find(t, "leaf01")->hosts, (std::vector<std::string>{"h1", "h2", "h3"}));
  EXPECT_EQ(find(t, "leaf02"), nullptr);

  t = build_topology(f.in, {Rails::kOne, 1, {}});
  expect_tree(t);
  EXPECT_EQ(find(t, "leaf02")->hosts, (std::vector<std::string>{"h1", "h2"}));
  ASSERT_EQ(t.skipped.size(), 1u);
  EXPECT_EQ(t.skipped[0].name, "h3");
  EXPECT_EQ(t.skipped[0].reason, "no rail 1: 1 port linked to a switch");
  EXPECT_NE(topology_conf(t, describe({Rails::kOne, 1, {}}))
                .find("# 1 host ports left out:\n#   \"h3\" 0x0000000000100030 port 1: no rail 1"),
            std::string::npos);
}

TEST(SlurmRails, AllPortsPutAHostUnderEachOfItsSwitches) {
  const Topology t = build_topology(two_rails().in, {Rails::kAll, 0, {}});
  EXPECT_EQ(find(t, "leaf01")->hosts, (std::vector<std::string>{"h1", "h2", "h3"}));
  EXPECT_EQ(find(t, "leaf02")->hosts, (std::vector<std::string>{"h1", "h2"}));
  EXPECT_EQ(t.hosts, 3u);
}

TEST(SlurmRails, TwoPortsOfOneHcaAreRailsInPortOrder) {
  Fabric f = two_level(2, 2, 0);
  f.host("dual mlx5_0", 3, 0x100050, 2);
  f.host("dual mlx5_0", 2, 0x100050, 1);
  EXPECT_NE(find(build_topology(f.in, {}), "leaf01"), nullptr);
  EXPECT_NE(find(build_topology(f.in, {Rails::kOne, 1, {}}), "leaf02"), nullptr);
}

TEST(SlurmFilter, KeepHostDecidesAndIsCounted) {
  Options o;
  o.keep_host = [](std::string_view h) { return h != "node002" && h != "node005"; };
  const Topology t = build_topology(two_level(2, 3, 2).in, o);
  expect_tree(t);
  EXPECT_EQ(t.hosts, 4u);
  EXPECT_EQ(t.excluded, 2u);
  EXPECT_EQ(find(t, "leaf01")->hosts, (std::vector<std::string>{"node001"}));
  // Excluding every host of a leaf drops the leaf.
  o.keep_host = [](std::string_view h) { return h > "node002"; };
  const Topology u = build_topology(two_level(2, 3, 2).in, o);
  EXPECT_EQ(find(u, "leaf01"), nullptr);
  expect_tree(u);
}

TEST(SlurmFilter, NamesSlurmCannotTakeAreSkippedWithTheReason) {
  Fabric f = two_level(1, 1, 1);
  f.host("", 1);
  f.host("bad,name mlx5_0", 1);
  const Topology t = build_topology(f.in, {});
  EXPECT_EQ(t.hosts, 1u);
  ASSERT_EQ(t.skipped.size(), 2u);
  EXPECT_EQ(t.skipped[1].name, "bad,name mlx5_0");
  EXPECT_NE(t.skipped[1].reason.find("not a name Slurm takes"), std::string::npos);
}

TEST(SlurmFilter, HostileDescriptionsNeverBecomeLinesOfTheFile) {
  // Root on any host sets its NodeDescription; slurmctld reads the file as root.
  Fabric f;
  const auto a = f.sw("sw\nSwitchName=evil Nodes=all"), b = f.sw("sw# x=y [1-9]");
  f.link(a, b);
  f.host("ok1", a);
  f.host("ok2", b);
  for (const char* d : {"evil\nSwitchName=x Nodes=y", "a=b", "x#y", "n[1-3]", "\"q\"\r\n#",
                        "\nSwitchName=top Switches=x"})
    f.host(d, a);
  const std::string conf = topology_conf(build_topology(f.in, {}), describe({}));
  std::size_t lines = 0;
  for (std::size_t at = 0; at < conf.size();) {
    const std::size_t end = conf.find('\n', at);
    const std::string line = conf.substr(at, end - at);
    at = end + 1;
    if (line.starts_with("#")) continue;
    ++lines;
    EXPECT_TRUE(line.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                       "0123456789._-=[], ") == std::string::npos)
        << line;
    EXPECT_TRUE(line.starts_with("SwitchName=sw_") || line.starts_with("SwitchName=ibsm_top"))
        << line;
  }
  EXPECT_EQ(lines, 3u) << conf;
  for (const char* planted : {"\nSwitchName=evil", "\nSwitchName=x", "\nSwitchName=top"})
    EXPECT_EQ(conf.find(planted), std::string::npos) << conf;
}

TEST(SlurmTree, NoHostsNoSwitches) {
  const Topology t = build_topology(two_level(2, 2, 0).in, {});
  EXPECT_TRUE(t.switches.empty());
  EXPECT_EQ(t.top(), kNoSwitch);
  EXPECT_EQ(
      topology_json(t),
      R"({"top":null,"virtual_top":false,"hosts":0,"excluded":0,"switches":[],"skipped":[]})");
}

TEST(SlurmJson, SwitchesWithGuidsLevelsParentsAndChildren) {
  const Topology t = build_topology(two_level(2, 2, 1).in, {});
  EXPECT_EQ(
      topology_json(t),
      R"({"top":"ibsm_top","virtual_top":true,"hosts":2,"excluded":0,"switches":[)"
      R"({"name":"leaf01","guid":"0x0000000000200002","level":0,"parent":"ibsm_top","nodes":["node001"]},)"
      R"({"name":"leaf02","guid":"0x0000000000200003","level":0,"parent":"ibsm_top","nodes":["node002"]},)"
      R"({"name":"ibsm_top","guid":null,"level":1,"parent":null,"switches":["leaf01","leaf02"]}],)"
      R"("skipped":[]})");
}

TEST(SlurmTree, BigThreeLevelTreesStayTrees) {
  for (const int pods : {1, 2, 7}) {
    const Topology t = build_topology(three_level(pods, 3).in, {});
    expect_tree(t);
    EXPECT_EQ(t.hosts, static_cast<std::size_t>(pods * 6));
  }
}

}  // namespace
}  // namespace ibsm::slurm
