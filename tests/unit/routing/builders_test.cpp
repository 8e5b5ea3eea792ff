// Generated fabrics have the shape their wiring rule promises.
#include <gtest/gtest.h>

#include <map>

#include "tests/support/builders.hpp"

namespace ibsm::testsupport {
namespace {

// Every cable joins existing ports, and no port carries two cables.
void expect_well_formed(const Fabric& f) {
  std::map<std::pair<std::uint32_t, int>, int> used;
  for (const Cable& c : f.cables)
    for (const PortRef& p : {c.a, c.b}) {
      ASSERT_LT(p.node, f.nodes.size());
      EXPECT_GE(p.port, 1);
      EXPECT_LE(p.port, f.nodes[p.node].num_ports) << f.nodes[p.node].id;
      EXPECT_EQ(++used[std::pair(p.node, int{p.port})], 1)
          << f.nodes[p.node].id << " port " << int{p.port};
    }
}

std::size_t count(const Fabric& f, NodeType t) {
  std::size_t n = 0;
  for (const Node& node : f.nodes)
    n += node.type == t;
  return n;
}

TEST(Builders, TwoLevelFatTree) {
  const Fabric f = two_level_fat_tree(4, 3, 2, 2);
  expect_well_formed(f);
  EXPECT_EQ(count(f, NodeType::kSwitch), 6U);
  EXPECT_EQ(count(f, NodeType::kCa), 12U);
  EXPECT_EQ(f.cables.size(), 12U + 4U * 2U * 2U);
  // leaf1's second cable to spine1 is its port 3 + 1*2 + 2 and spine1's port 1*2 + 2.
  EXPECT_EQ(f.peer({*f.find("leaf1"), 7}), (PortRef{*f.find("spine1"), 4}));
}

TEST(Builders, KaryNTree) {
  const Fabric f = kary_ntree(3, 3);
  expect_well_formed(f);
  EXPECT_EQ(count(f, NodeType::kSwitch), 27U);
  EXPECT_EQ(count(f, NodeType::kCa), 27U);
  EXPECT_EQ(f.cables.size(), 27U + 2U * 9U * 3U);
  // sw0_4 (digits 1,1) up port 3+1+2 reaches sw1_<digit 0 := 2> = sw1_5 on port 1+1.
  EXPECT_EQ(f.peer({*f.find("sw0_4"), 6}), (PortRef{*f.find("sw1_5"), 2}));
}

TEST(Builders, FoldedClos) {
  const Fabric f = folded_clos3(3, 4, 2, 5, 6);
  expect_well_formed(f);
  EXPECT_EQ(count(f, NodeType::kSwitch), 3U * (4 + 2) + 2U * 5);
  EXPECT_EQ(count(f, NodeType::kCa), 3U * 4 * 6);
  EXPECT_EQ(f.peer({*f.find("p2l3"), 6 + 1 + 1}), (PortRef{*f.find("p2a1"), 4}));
  EXPECT_EQ(f.peer({*f.find("p2a1"), 4 + 1 + 4}), (PortRef{*f.find("c1_4"), 3}));
}

TEST(Builders, TorusWrapsAndMeshDoesNot) {
  const Fabric t = torus({3, 3, 3}, 1);
  expect_well_formed(t);
  EXPECT_EQ(t.cables.size(), 27U + 27U * 3U);
  EXPECT_EQ(t.peer({*t.find("s2_0_1"), 2}), (PortRef{*t.find("s0_0_1"), 3}));
  const Fabric m = torus({3, 3, 1}, 0, {false, false, false});
  expect_well_formed(m);
  EXPECT_EQ(m.cables.size(), 12U);
}

TEST(Builders, GuidsFollowIbsimNumbering) {
  const Fabric f = two_level_fat_tree(1, 2, 1);  // spine0, leaf0, h0_0, h0_1
  EXPECT_EQ(f.nodes[0].node_guid, 0x200000U);
  EXPECT_EQ(f.nodes[1].node_guid, 0x200001U);
  EXPECT_EQ(f.nodes[2].node_guid, 0x100000U);
  EXPECT_EQ(f.nodes[3].port_guid(1), 0x100003U);
}

}  // namespace
}  // namespace ibsm::testsupport
