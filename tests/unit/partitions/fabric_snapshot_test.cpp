#include "partitions/fabric_snapshot.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace ibsm::partitions {
namespace {

TEST(FabricSnapshot, ReadsTheIbsimSnapshot) {
  auto s = read_fabric_snapshot(test::read_data("net.2sw2path4hca.snapshot"));
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->fabric.ports.size(), 14u);
  const FabricPort& sm = s->fabric.ports[0];
  EXPECT_TRUE(sm.is_sm_port);
  EXPECT_EQ(sm.node_type, NodeType::kSwitch);
  EXPECT_EQ(sm.pkey_capacity, 8);
  EXPECT_EQ(sm.pkeys.size(), 32u);  // padded to whole blocks
  EXPECT_EQ(sm.pkeys[0], 0xffff);
  const FabricPort& sw1p1 = s->fabric.ports[1];
  EXPECT_EQ(sw1p1.peer, FabricPort::Peer::kEndPort);
  EXPECT_EQ(sw1p1.peer_port_guid, 0x100001u);
  EXPECT_EQ(s->descriptions[10], "Hca1");
}

TEST(FabricSnapshot, WriteThenReadGivesTheSameFabric) {
  FabricSnapshot s;
  FabricPort p;
  p.node_guid = 0x11;
  p.port_num = 3;
  p.node_type = NodeType::kSwitch;
  p.port_guid = 0x11;
  p.pkey_capacity = 32;
  p.pkeys.assign(32, 0);
  p.pkeys[0] = 0xffff;
  p.pkeys[4] = 0x8002;
  p.peer = FabricPort::Peer::kEndPort;
  p.peer_port_guid = 0x22;
  p.enforcement = {true, false};
  s.fabric.ports.push_back(p);
  s.descriptions.push_back("leaf 1 (rack 4)");
  const std::string text = write_fabric_snapshot(s);
  auto back = read_fabric_snapshot(text);
  ASSERT_TRUE(back.ok());
  const FabricPort& q = back->fabric.ports[0];
  EXPECT_EQ(q.pkeys, p.pkeys);
  EXPECT_EQ(q.enforcement, p.enforcement);
  EXPECT_EQ(q.peer_port_guid, 0x22u);
  EXPECT_EQ(back->descriptions[0], "leaf 1 (rack 4)");
  EXPECT_EQ(write_fabric_snapshot(*back), text);
}

TEST(FabricSnapshot, RejectsOtherVersionsAndBadLines) {
  auto v = read_fabric_snapshot("ibsm-fabric-snapshot 2\n");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().id, kSnapshotVersion);
  auto b = read_fabric_snapshot("ibsm-fabric-snapshot 1\nport 0x1 1 hub 0x1\n");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().id, kSnapshotSyntax);
  EXPECT_EQ(b.error().line, 2);
  EXPECT_FALSE(read_fabric_snapshot("").ok());
}

}  // namespace
}  // namespace ibsm::partitions
