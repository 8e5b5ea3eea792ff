// The guide's partition check: verify reads each planned partition's broadcast group
// and the port's NeighborMTU from the SA (a fake here) and fails an interface whose
// group is faster or has a larger MTU than the port, naming P_Key, group and port.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/errors.hpp"
#include "agent/partition_fit.hpp"
#include "agent/verify.hpp"
#include "fake_group_mtu_source.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent {
namespace {

using testing::FakeGroupMtuSource;
using ::testing::HasSubstr;
using testing::PlanRun;

TEST(PartitionFit, GroupRateAndMtuAgainstThePort) {
  EXPECT_EQ(group_misfit({2048, 3}, 10, 2048), std::nullopt);  // 10 Gb/s, 2048 exactly
  EXPECT_EQ(group_misfit({4096, 16}, 0, 0), std::nullopt);     // nothing known: no verdict
  EXPECT_EQ(*group_misfit({2048, 7}, 10, 4096), "rate 40 Gb/s above the port's 10 Gb/s");
  EXPECT_EQ(*group_misfit({4096, 3}, 100, 2048), "MTU 4096 above the port's 2048");
  EXPECT_EQ(*group_misfit({4096, 2}, 2.5, 1024), "MTU 4096 above the port's 1024");
  EXPECT_EQ(*group_misfit({4096, 7}, 2.5, 2048),
            "rate 40 Gb/s above the port's 2.5 Gb/s and MTU 4096 above the port's 2048");
  EXPECT_EQ(group_misfit({2048, 2}, 2.5, 2048), std::nullopt);
}

// ib0 on mlx5_0/1 (100 Gb/s here) with a child for 0x8002; the SA is the fake.
struct Host {
  PlanRun run{"[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [0x0002]\n"};
  FakeGroupMtuSource sa;
  Host() {
    run.tree.file("/sys/class/infiniband/mlx5_0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
    EXPECT_TRUE(run.apply());
    run.tree.file("/sys/class/net/ib0/carrier", "1\n");
    run.tree.file("/sys/class/net/ib0.8002/carrier", "1\n");
    sa.groups = {{0xffff, 2048}, {0x8002, 2048}};
  }
  std::vector<Verdict> verify_now() {
    run.replan();
    read_group_facts(run.plan, run.observed, sa);
    return verify(run.plan, run.observed, run.tree.fs());
  }
};

TEST(PartitionFit, VerifyPassesWhenTheGroupsSuitThePortAndSaysSo) {
  Host h;
  auto v = h.verify_now();
  ASSERT_EQ(v.size(), 2u);
  for (const auto& x : v) {
    EXPECT_EQ(x.state, VerifyState::kOk) << x.resource << ": " << x.reason;
    EXPECT_THAT(x.reason, HasSubstr("group 10 Gb/s/2048 suits the port"));
  }
}

TEST(PartitionFit, AGroupFasterThanThePortFailsNamingPKeyGroupAndPort) {
  Host h;
  h.sa.rates[0x8002] = 17;  // 200 Gb/s on a 100 Gb/s port
  auto v = h.verify_now();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].state, VerifyState::kOk);
  EXPECT_EQ(v[1].resource, "ipoib ib0.8002");
  EXPECT_EQ(v[1].state, VerifyState::kFailed);
  EXPECT_EQ(v[1].reason,
            "IBSM-6120: P_Key 0x8002 broadcast group ff12:401b:8002::ffff:ffff has rate 200 Gb/s "
            "and MTU 2048; port mlx5_0/1 runs at 100 Gb/s with MTU 4096: rate 200 Gb/s above the "
            "port's 100 Gb/s, so the SA refuses the join (lower the partition's rate=/mtu= in the "
            "SM's partitions.conf)");
  EXPECT_EQ(verify_exit_code(v), 3);
}

TEST(PartitionFit, AGroupMtuAboveThePortsNeighborMtuFails) {
  Host h;
  h.sa.groups[0xffff] = 4096;
  h.sa.neighbor_mtu = 2048;
  auto v = h.verify_now();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].state, VerifyState::kFailed);
  EXPECT_THAT(v[0].reason, HasSubstr("P_Key 0xffff broadcast group ff12:401b:ffff::ffff:ffff"));
  EXPECT_THAT(v[0].reason, HasSubstr("MTU 4096 above the port's 2048"));
  EXPECT_EQ(v[1].state, VerifyState::kOk);
}

TEST(PartitionFit, AnSaThatDoesNotAnswerSkipsTheCheckAndIsAskedOncePerPort) {
  Host h;
  h.sa.reachable = false;
  auto v = h.verify_now();
  for (const auto& x : v) {
    EXPECT_EQ(x.state, VerifyState::kOk);
    EXPECT_THAT(x.reason, ::testing::Not(HasSubstr("group")));
  }
  EXPECT_EQ(h.sa.asked.size(), 1u);
}

}  // namespace
}  // namespace ibsm::agent
