// Deep verify: the live interface against the plan for every backend, soft RDMA
// devices ACTIVE, and memlock for systemd services (LimitMEMLOCK drop-ins).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/errors.hpp"
#include "agent/verify.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent {
namespace {

using testing::described;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::PlanRun;

std::vector<std::string> lines(const std::vector<Verdict>& verdicts) {
  std::vector<std::string> out;
  for (const auto& v : verdicts)
    out.push_back(v.resource + " " + std::string(state_name(v.state)) + ": " + v.reason);
  return out;
}

TEST(DeepVerify, LiveMtuAndAddressesAreComparedWithThePlanUnderNetworkManager) {
  PlanRun r(
      "[[ipoib]]\nport = { device = \"mlx5_0\" }\nmtu = 2000\naddresses = [\"10.0.0.5/16\"]\n");
  r.replan(Backend::kNetworkManager);
  ASSERT_TRUE(r.apply());
  // NetworkManager (played by hand here) applied the profile.
  r.tree.file("/sys/class/net/ib0/mtu", "2000\n");
  r.tree.file("/sys/class/net/ib0/ibsm-tree-addresses", "10.0.0.5/16\n");
  r.replan(Backend::kNetworkManager);
  EXPECT_EQ(verify_exit_code(verify(r.plan, r.observed, r.tree.fs())), 0);
  // Someone changes the live interface; the profile on disk still matches.
  r.tree.file("/sys/class/net/ib0/mtu", "1500\n");
  r.replan(Backend::kNetworkManager);
  EXPECT_THAT(described(r.plan), ::testing::IsEmpty());
  EXPECT_THAT(lines(verify(r.plan, r.observed, r.tree.fs())),
              ElementsAre("ipoib ib0 drift: live mtu is 1500, the plan says 2000"));
  r.tree.file("/sys/class/net/ib0/mtu", "2000\n");
  r.tree.file("/sys/class/net/ib0/ibsm-tree-addresses", "");
  r.replan(Backend::kNetworkManager);
  EXPECT_THAT(lines(verify(r.plan, r.observed, r.tree.fs())),
              ElementsAre("ipoib ib0 drift: address 10.0.0.5/16 is not on the live interface"));
}

TEST(DeepVerify, SoftRdmaDeviceMustBeActive) {
  PlanRun r("[[soft_rdma]]\nname = \"rxe0\"\ntype = \"rxe\"\nnetdev = \"eth1\"\n");
  ASSERT_TRUE(r.apply());
  r.replan();
  EXPECT_THAT(lines(verify(r.plan, r.observed, r.tree.fs())),
              ElementsAre("soft_rdma rxe0 ok: rxe0 on eth1, port 1 ACTIVE"));
  r.tree.file("/sys/class/infiniband/rxe0/ports/1/state", "1: DOWN\n");
  r.replan();
  auto v = verify(r.plan, r.observed, r.tree.fs());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].state, VerifyState::kFailed);
  EXPECT_THAT(v[0].reason, HasSubstr("port 1 is DOWN, not ACTIVE (is eth1 up?)"));
}

TEST(Memlock, ServicesGetLimitMemlockDropInsAndADaemonReload) {
  PlanRun r("[memlock]\nhard = 1048576\nservices = [\"nfs-server.service\"]\n");
  EXPECT_THAT(described(r.plan),
              ElementsAre("write /etc/security/limits.d/90-ibsm-agent-memlock.conf (mode 0644)",
                          "write /etc/systemd/system/nfs-server.service.d/"
                          "90-ibsm-agent-memlock.conf (mode 0644)",
                          "run systemctl daemon-reload"));
  ASSERT_TRUE(r.apply());
  EXPECT_THAT(r.tree.read("/etc/systemd/system/nfs-server.service.d/90-ibsm-agent-memlock.conf"),
              HasSubstr("[Service]\nLimitMEMLOCK=1048576K\n"));
  r.replan();
  EXPECT_THAT(described(r.plan), ::testing::IsEmpty());
  PlanRun inf("[memlock]\nservices = [\"slurmd.service\"]\n");
  ASSERT_TRUE(inf.apply());
  EXPECT_THAT(inf.tree.read("/etc/systemd/system/slurmd.service.d/90-ibsm-agent-memlock.conf"),
              HasSubstr("LimitMEMLOCK=infinity\n"));
}

TEST(Memlock, BadServiceNamesAreNodeFileErrorsWithFileAndLine) {
  for (const char* bad : {"services = [\"nfs server.service\"]", "services = [\"nfs-server\"]",
                          "services = [\"../x.service\"]", "services = \"nfs-server.service\""}) {
    auto c = parse_node_file(std::string("[memlock]\n") + bad + "\n", "node.toml");
    ASSERT_FALSE(c.ok()) << bad;
    // A string that is not one a bad value; a string outside the name grammar a bad name.
    EXPECT_EQ(c.error().id, std::string(bad).find('[') == std::string::npos ? kNodeFileBadValue
                                                                            : kNodeFileBadName)
        << bad;
    EXPECT_THAT(c.error().message, HasSubstr("node.toml:2:")) << bad;
    EXPECT_THAT(c.error().message, HasSubstr("memlock.services")) << bad;
  }
}

}  // namespace
}  // namespace ibsm::agent

namespace ibsm::agent {
namespace {

TEST(DeepVerify, EachAddressOnTheRoceNetdevNeedsARoceV2Gid) {
  testing::PlanRun r("[[roce]]\ndevice = \"mlx5_2\"\n");
  ASSERT_TRUE(r.apply());
  // eth2 carries the fixture's GIDs; give it an address and the kernel's v2 GID for it.
  r.tree.file("/sys/class/net/eth2/ibsm-tree-addresses", "10.1.0.5/24\nfd00:1::5/64\n");
  const std::string port = "/sys/class/infiniband/mlx5_2/ports/1";
  r.tree.file(port + "/gids/2", "0000:0000:0000:0000:0000:ffff:0a01:0005\n");
  r.tree.file(port + "/gid_attrs/types/2", "RoCE v2\n");
  r.tree.file(port + "/gid_attrs/ndevs/2", "eth2\n");
  r.tree.file(port + "/gids/3", "0000:0000:0000:0000:0000:ffff:0a01:0005\n");
  r.tree.file(port + "/gid_attrs/types/3", "IB/RoCE v1\n");
  r.tree.file(port + "/gid_attrs/ndevs/3", "eth2\n");
  r.replan();
  auto v = verify(r.plan, r.observed, r.tree.fs());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].state, VerifyState::kFailed);
  EXPECT_THAT(v[0].reason, HasSubstr("no RoCE v2 GID for fd00:1::5/64 on eth2"));
  r.tree.file(port + "/gids/4", "fd00:0001:0000:0000:0000:0000:0000:0005\n");
  r.tree.file(port + "/gid_attrs/types/4", "RoCE v2\n");
  r.tree.file(port + "/gid_attrs/ndevs/4", "eth2\n");
  r.replan();
  v = verify(r.plan, r.observed, r.tree.fs());
  EXPECT_EQ(v[0].state, VerifyState::kOk);
  EXPECT_EQ(v[0].reason, "default mode set; 2 address(es) with a RoCE v2 GID");
}

}  // namespace
}  // namespace ibsm::agent
