#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/errors.hpp"
#include "agent/node_file.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent {
namespace {

using testing::described;
using ::testing::ElementsAre;
using testing::error_ids;
using ::testing::HasSubstr;
using testing::PlanRun;

TEST(PlanIpoib, AutoPKeysCreateChildrenForFullMembersOnly) {
  PlanRun r("[[ipoib]]\nport = { guid = 0x0002c90300001234 }\npkeys = \"auto\"\n");
  EXPECT_TRUE(r.plan.errors.empty());
  // 0x8002 and 0x8004 are full members; 0x0003 is limited and 0xffff is the parent's own.
  EXPECT_THAT(
      described(r.plan),
      ElementsAre("set ib0 alias ibsm-agent:ib0", "create ib0.8002 on ib0 (P_Key 0x8002, datagram)",
                  "set ib0.8002 alias ibsm-agent:ib0.8002", "set ib0.8002 up",
                  "create ib0.8004 on ib0 (P_Key 0x8004, datagram)",
                  "set ib0.8004 alias ibsm-agent:ib0.8004", "set ib0.8004 up"));
}

TEST(PlanIpoib, ExplicitChildIsNormalisedAndKeepsItsSettings) {
  PlanRun r(R"([[ipoib]]
port = { device = "mlx5_0", port = 1 }
mode = "connected"
[[ipoib.child]]
pkey = 0x0002
mode = "connected"
mtu = 65520
addresses = ["10.2.0.5/16"]
)");
  EXPECT_TRUE(r.plan.errors.empty()) << r.plan.errors[0].message;
  EXPECT_THAT(described(r.plan),
              ElementsAre("set ib0 alias ibsm-agent:ib0", "set ib0 mode connected",
                          "create ib0.8002 on ib0 (P_Key 0x8002, connected)",
                          "set ib0.8002 alias ibsm-agent:ib0.8002", "set ib0.8002 up",
                          "add address 10.2.0.5/16 to ib0.8002"));
  EXPECT_TRUE(r.plan.actions[1].disruptive);
}

TEST(PlanIpoib, ReservedPKeysAreRejected) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [0x8000, 0]\n");
  EXPECT_THAT(error_ids(r.plan), ElementsAre(kInvalidPKey.code, kInvalidPKey.code));
}

TEST(PlanIpoib, NamesOver15CharactersAreRejected) {
  // Refused where it enters (the node file), naming the line; nothing is planned.
  auto c = parse_node_file(
      "[[ipoib]]\nport = { device = \"mlx5_0\" }\n[[ipoib.child]]\npkey = 2\nname = "
      "\"storage-net.8002\"\n",
      "node.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().id, kNodeFileBadName);
  EXPECT_THAT(c.error().message, HasSubstr("node.toml:5:"));
}

TEST(PlanIpoib, ConnectedModeOnEnhancedIpoibIsRejected) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_1\" }\nmode = \"connected\"\n");
  ASSERT_THAT(error_ids(r.plan), ElementsAre(kConnectedModeUnsupported.code));
  EXPECT_THAT(r.plan.errors[0].message, HasSubstr("ib1 is datagram-only"));
}

TEST(PlanIpoib, DatagramMtuIsBoundByTheBroadcastGroup) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\nmtu = 2045\nbroadcast_mtu = 2048\n");
  ASSERT_THAT(error_ids(r.plan), ElementsAre(kMtuTooLarge.code));
  EXPECT_THAT(r.plan.errors[0].message, HasSubstr("above 2044 allowed in datagram mode"));
  PlanRun big("[[ipoib]]\nport = { device = \"mlx5_0\" }\nmtu = 4092\nbroadcast_mtu = 4096\n");
  EXPECT_TRUE(big.plan.errors.empty());
  PlanRun cm("[[ipoib]]\nport = { device = \"mlx5_0\" }\nmode = \"connected\"\nmtu = 65520\n");
  EXPECT_TRUE(cm.plan.errors.empty());
}

TEST(PlanIpoib, EthernetPortIsRejected) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_2\" }\n");
  EXPECT_THAT(error_ids(r.plan), ElementsAre(kNotInfiniBand.code));
}

TEST(PlanIpoib, UnknownPortListsWhatExists) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx4_0\" }\n");
  ASSERT_THAT(error_ids(r.plan), ElementsAre(kDeviceNotFound.code));
  EXPECT_THAT(r.plan.errors[0].message,
              HasSubstr("ports here: mlx5_0/1 (0x0002c90300001234, InfiniBand), mlx5_1/1"));
  PlanRun g("[[ipoib]]\nport = { guid = 0x42 }\n");
  EXPECT_THAT(error_ids(g.plan), ElementsAre(kDeviceNotFound.code));
}

TEST(PlanIpoib, WrongParentNameListsIpoibInterfaces) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\nname = \"ibp5s0\"\n");
  ASSERT_THAT(error_ids(r.plan), ElementsAre(kNetdevNotFound.code));
  EXPECT_THAT(r.plan.errors[0].message, HasSubstr("carries ib0, not ibp5s0"));
}

TEST(PlanIpoib, MissingIpoibModuleIsAPlanError) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\n");
  ASSERT_TRUE(r.tree.fs().remove("/sys/module/ib_ipoib"));
  r.replan();
  EXPECT_THAT(error_ids(r.plan), ElementsAre(kKernelSupportMissing.code));
}

TEST(PlanIpoib, DuplicateChildIsRejected) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [0x0002, 0x8002]\n");
  EXPECT_THAT(error_ids(r.plan), ElementsAre(kDuplicateInterface.code));
}

TEST(PlanIpoib, UnprogrammedAndLimitedPKeysAreNotedNotRefused) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [0x0003, 0x0005]\n");
  EXPECT_TRUE(r.plan.errors.empty());
  EXPECT_THAT(r.plan.notes,
              ElementsAre(HasSubstr("ib0.8003: mlx5_0/1 is only a limited member"),
                          HasSubstr("ib0.8005: P_Key 0x8005 is not in mlx5_0/1's table yet")));
}

TEST(PlanIpoib, BadAddressIsRejected) {
  auto c = parse_node_file(
      "[[ipoib]]\nport = { device = \"mlx5_0\" }\naddresses = [\"10.0.0.1\"]\n", "node.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().id, kNodeFileBadAddress);
  EXPECT_THAT(c.error().message, HasSubstr("node.toml:3:"));
}

}  // namespace
}  // namespace ibsm::agent
