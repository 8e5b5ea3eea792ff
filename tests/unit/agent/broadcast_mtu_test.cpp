// broadcast_mtu = "auto": the group MTU is learnt through the GroupMtuSource seam
// before planning, and falls back to 2048 with a warning when the SA cannot say.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/broadcast_mtu.hpp"
#include "agent/errors.hpp"
#include "agent/verify.hpp"
#include "fake_group_mtu_source.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent {
namespace {

using ::testing::Contains;
using testing::described;
using ::testing::ElementsAre;
using testing::error_ids;
using testing::FakeGroupMtuSource;
using ::testing::HasSubstr;
using testing::PlanRun;

// Parses and plans `toml` on the fake host, after resolving "auto" through `sa`.
struct Resolved {
  PlanRun run;
  std::vector<Error> warnings;
  Resolved(const std::string& toml, FakeGroupMtuSource& sa) : run(toml) {
    warnings = resolve_broadcast_mtus(run.config, run.observed, sa);
    run.replan();
  }
  const ResolvedIface& iface(const std::string& name) const {
    for (const auto& r : run.plan.interfaces)
      if (r.name == name) return r;
    throw std::runtime_error("no interface " + name);
  }
};

std::vector<std::uint16_t> ids(const std::vector<Error>& errors) {
  std::vector<std::uint16_t> out;
  for (const auto& e : errors)
    out.push_back(e.id.code);
  return out;
}

TEST(BroadcastMtu, AutoResolvesToTheSasGroupMtu) {
  FakeGroupMtuSource sa;
  sa.groups = {{0xffff, 4096}};
  Resolved r("[[ipoib]]\nport = { device = \"mlx5_0\" }\nmtu = 4092\n", sa);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_TRUE(r.run.plan.errors.empty()) << r.run.plan.errors[0].message;
  EXPECT_THAT(sa.asked, ElementsAre(std::make_tuple("mlx5_0", 1, std::uint16_t{0xffff})));
  EXPECT_THAT(r.run.plan.notes,
              Contains("ib0: broadcast group MTU 4096 (P_Key 0xffff, from the SA)"));
}

TEST(BroadcastMtu, AutoMtuFollowsTheLearntGroup) {
  FakeGroupMtuSource sa;
  sa.groups = {{0xffff, 4096}};
  Resolved r("[[ipoib]]\nport = { device = \"mlx5_0\" }\n", sa);
  EXPECT_EQ(r.iface("ib0").mtu, 4092);  // datagram: group MTU - 4
  EXPECT_TRUE(r.iface("ib0").mtu_auto);
}

TEST(BroadcastMtu, EachChildUsesItsOwnPartitionsGroup) {
  FakeGroupMtuSource sa;
  sa.groups = {{0xffff, 2048}, {0x8002, 4096}, {0x8004, 1024}};
  Resolved r("[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = \"auto\"\n", sa);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.iface("ib0").mtu, 2044);
  EXPECT_EQ(r.iface("ib0.8002").mtu, 4092);
  EXPECT_EQ(r.iface("ib0.8004").mtu, 1020);
  // Asked once per group: the parent's, and the full members of the table (not 0x0003).
  EXPECT_EQ(sa.asked.size(), 3u);
}

TEST(BroadcastMtu, UnreachableSaWarnsOnceAndFallsBackTo2048) {
  FakeGroupMtuSource sa;
  sa.reachable = false;
  Resolved r("[[ipoib]]\nport = { device = \"mlx5_0\" }\nmtu = 4092\npkeys = [2, 4]\n", sa);
  ASSERT_THAT(ids(r.warnings), ElementsAre(kGroupMtuNoAnswer.code));
  EXPECT_THAT(r.warnings[0].message, HasSubstr("using broadcast_mtu 2048"));
  EXPECT_EQ(sa.asked.size(), 1u);  // a silent SA is not asked for the other P_Keys
  // The group's MTU is unknown, not known to be 2048: 4092 is pending, not an error, and
  // the children (mtu "auto") go ahead with 2044.
  EXPECT_TRUE(r.run.plan.errors.empty());
  ASSERT_EQ(r.run.plan.pending.size(), 1u);
  EXPECT_EQ(r.run.plan.pending[0].resource, "ipoib ib0");
  EXPECT_THAT(r.run.plan.pending[0].reason, HasSubstr("mtu 4092 needs a broadcast group MTU of "
                                                      "at least 4096"));
  EXPECT_EQ(r.iface("ib0.8002").mtu, 2044);
}

TEST(BroadcastMtu, UnreachableSaLeavesIpoibPendingAndAppliesModulesAndMemlock) {
  FakeGroupMtuSource sa;
  sa.reachable = false;
  Resolved r(
      "[[ipoib]]\nport = { device = \"mlx5_0\" }\nmtu = 4092\n"
      "[modules]\nrdma = [\"rdma_ucm\"]\n[memlock]\ngroup = \"rdma\"\n",
      sa);
  ASSERT_TRUE(r.run.plan.errors.empty());
  // The whole resource waits: its adoption (alias) too.
  EXPECT_THAT(described(r.run.plan.held),
              ElementsAre("set ib0 alias ibsm-agent:ib0", "set ib0 mtu 4092"));
  ASSERT_TRUE(r.run.apply());
  EXPECT_THAT(r.run.tree.read("/etc/rdma/modules/rdma.conf"), HasSubstr("rdma_ucm\n"));
  EXPECT_THAT(r.run.tree.read("/etc/security/limits.d/90-ibsm-agent-memlock.conf"),
              HasSubstr("@rdma hard memlock unlimited"));
  EXPECT_EQ(r.run.tree.read("/sys/class/net/ib0/mtu"), "2044\n");  // held
  r.run.replan();
  auto verdicts = verify(r.run.plan, r.run.observed, r.run.tree.fs());
  std::vector<std::string> lines;
  for (const auto& v : verdicts)
    lines.push_back(v.resource + " " + std::string(state_name(v.state)));
  EXPECT_THAT(lines, ElementsAre("ipoib ib0 pending", "modules rdma ok", "memlock rdma ok"));
  EXPECT_EQ(verify_exit_code(verdicts), 2);

  // The SA answers later: the held MTU goes ahead.
  FakeGroupMtuSource up;
  up.groups = {{0xffff, 4096}};
  resolve_broadcast_mtus(r.run.config, r.run.observed, up);
  r.run.replan();
  EXPECT_TRUE(r.run.plan.pending.empty());
  EXPECT_THAT(described(r.run.plan.actions),
              ElementsAre("set ib0 alias ibsm-agent:ib0", "set ib0 mtu 4092"));
}

TEST(BroadcastMtu, KnownSmallGroupIsStillAnError) {
  FakeGroupMtuSource sa;
  sa.groups = {{0xffff, 2048}};
  Resolved r("[[ipoib]]\nport = { device = \"mlx5_0\" }\nmtu = 4092\n", sa);
  EXPECT_THAT(error_ids(r.run.plan), ElementsAre(kMtuTooLarge.code));
  EXPECT_TRUE(r.run.plan.pending.empty());
}

TEST(BroadcastMtu, MissingGroupWarnsForThatPKeyOnly) {
  FakeGroupMtuSource sa;
  sa.groups = {{0xffff, 4096}};
  Resolved r("[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [2]\n", sa);
  ASSERT_THAT(ids(r.warnings), ElementsAre(kGroupMtuRejected.code));
  EXPECT_THAT(r.warnings[0].message, HasSubstr("P_Key 0x8002"));
  EXPECT_EQ(r.iface("ib0").mtu, 4092);
  EXPECT_EQ(r.iface("ib0.8002").mtu, 2044);
}

TEST(BroadcastMtu, ExplicitNumberIsUntouchedAndNotAsked) {
  FakeGroupMtuSource sa;
  sa.groups = {{0xffff, 4096}};
  Resolved r("[[ipoib]]\nport = { device = \"mlx5_0\" }\nbroadcast_mtu = 1024\n", sa);
  EXPECT_TRUE(sa.asked.empty());
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.iface("ib0").mtu, 1020);
}

TEST(BroadcastMtu, PortNotActiveIsNotAsked) {
  FakeGroupMtuSource sa;
  PlanRun run("[[ipoib]]\nport = { device = \"mlx5_0\" }\n");
  for (auto& d : run.observed.devices)
    for (auto& p : d.ports)
      p.state_code = 2, p.state = "INIT";
  auto warnings = resolve_broadcast_mtus(run.config, run.observed, sa);
  EXPECT_TRUE(sa.asked.empty());
  ASSERT_THAT(ids(warnings), ElementsAre(kGroupMtuNoAnswer.code));
  EXPECT_THAT(warnings[0].message, HasSubstr("mlx5_0/1: port is INIT"));
}

TEST(BroadcastMtu, ConnectedModeKeepsItsOwnLimit) {
  FakeGroupMtuSource sa;
  sa.groups = {{0xffff, 4096}};
  Resolved r("[[ipoib]]\nport = { device = \"mlx5_0\" }\nmode = \"connected\"\n", sa);
  EXPECT_EQ(r.iface("ib0").mtu, 65520);
}

}  // namespace
}  // namespace ibsm::agent
