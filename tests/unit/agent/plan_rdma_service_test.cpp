#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/errors.hpp"
#include "agent/verify.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent {
namespace {

using testing::described;
using ::testing::ElementsAre;
using testing::error_ids;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::PlanRun;

TEST(PlanRoce, MkdirThenWriteModeAndTosAndSecondApplyIsQuiet) {
  PlanRun r("[[roce]]\ndevice = \"mlx5_2\"\ndefault_mode = \"v2\"\ntos = 106\n");
  EXPECT_THAT(
      described(r.plan),
      ElementsAre(
          "mkdir /sys/kernel/config/rdma_cm/mlx5_2",
          "write \"RoCE v2\" to /sys/kernel/config/rdma_cm/mlx5_2/ports/1/default_roce_mode",
          "write \"106\" to /sys/kernel/config/rdma_cm/mlx5_2/ports/1/default_roce_tos"));
  ASSERT_TRUE(r.apply());
  EXPECT_EQ(r.tree.read("/sys/kernel/config/rdma_cm/mlx5_2/ports/1/default_roce_mode"), "RoCE v2");
  r.replan();
  EXPECT_THAT(described(r.plan), IsEmpty());
}

TEST(PlanRoce, ExistingEntryWithOtherModeIsRewritten) {
  PlanRun r("[[roce]]\ndevice = \"mlx5_2\"\ndefault_mode = \"v1\"\n");
  r.tree.file("/sys/kernel/config/rdma_cm/mlx5_2/ports/1/default_roce_mode", "RoCE v2\n");
  r.replan();
  EXPECT_THAT(
      described(r.plan),
      ElementsAre(
          "write \"IB/RoCE v1\" to /sys/kernel/config/rdma_cm/mlx5_2/ports/1/default_roce_mode"));
  EXPECT_EQ(r.plan.actions[0].reason, "mode is RoCE v2");
}

TEST(PlanRoce, ValidationErrors) {
  EXPECT_THAT(error_ids(PlanRun("[[roce]]\ndevice = \"mlx5_0\"\n").plan),
              ElementsAre(kNotInfiniBand.code));
  PlanRun missing("[[roce]]\ndevice = \"mlx5_9\"\n");
  ASSERT_THAT(error_ids(missing.plan), ElementsAre(kDeviceNotFound.code));
  EXPECT_THAT(missing.plan.errors[0].message, HasSubstr("devices here: mlx5_0, mlx5_1, mlx5_2"));
  PlanRun noconfigfs("[[roce]]\ndevice = \"mlx5_2\"\n");
  ASSERT_TRUE(noconfigfs.tree.fs().remove("/sys/kernel/config/rdma_cm"));
  EXPECT_THAT(error_ids(noconfigfs.replan()), ElementsAre(kKernelSupportMissing.code));
}

TEST(PlanSoftRdma, RxeAndSiwOnANetdev) {
  PlanRun r(R"([[soft_rdma]]
name = "rxe0"
type = "rxe"
netdev = "eth1"
[[soft_rdma]]
name = "siw0"
type = "siw"
netdev = "eth1"
)");
  EXPECT_THAT(described(r.plan),
              ElementsAre("load module rdma_rxe", "rdma link add rxe0 type rxe netdev eth1",
                          "load module siw", "rdma link add siw0 type siw netdev eth1"));
  ASSERT_TRUE(r.apply());
  r.replan();
  EXPECT_THAT(described(r.plan), IsEmpty());
}

TEST(PlanSoftRdma, ValidationErrors) {
  PlanRun nodev("[[soft_rdma]]\nname = \"rxe0\"\ntype = \"rxe\"\nnetdev = \"eth7\"\n");
  ASSERT_THAT(error_ids(nodev.plan), ElementsAre(kNetdevNotFound.code));
  EXPECT_THAT(nodev.plan.errors[0].message, HasSubstr("netdevs here: eth0, eth1, eth2, ib0, ib1"));
  PlanRun nomod("[[soft_rdma]]\nname = \"rxe0\"\ntype = \"rxe\"\nnetdev = \"eth1\"\n");
  nomod.tree.file("/lib/modules/6.1.0-test/modules.dep", "");
  EXPECT_THAT(error_ids(nomod.replan()), ElementsAre(kKernelSupportMissing.code));
  // A device of that name on hardware (not ours) is reported, not replaced.
  PlanRun taken("[[soft_rdma]]\nname = \"mlx5_2\"\ntype = \"rxe\"\nnetdev = \"eth1\"\n");
  EXPECT_THAT(error_ids(taken.plan), ElementsAre(kForeignObject.code));
}

TEST(PlanModules, AppendsMissingModulesBelowAMarkerAndKeepsTheOriginal) {
  PlanRun r("[modules]\nrdma = [\"ib_uverbs\", \"rdma_ucm\"]\n[nfs_rdma]\nclient = true\n");
  EXPECT_THAT(
      described(r.plan),
      ElementsAre(
          "load module rdma_ucm", "load module xprtrdma",
          "write /etc/rdma/modules/rdma.conf (mode 0644, original kept as .ibsm-agent-bak)"));
  ASSERT_TRUE(r.apply());
  EXPECT_EQ(r.tree.read("/etc/rdma/modules/rdma.conf"),
            "# Load RDMA modules\nib_uverbs\n# rds_rdma\n# Added by ibsm-agent from the node "
            "file:\nrdma_ucm\nxprtrdma\n");
  EXPECT_EQ(r.tree.read("/etc/rdma/modules/rdma.conf.ibsm-agent-bak"),
            "# Load RDMA modules\nib_uverbs\n# rds_rdma\n");
  r.replan();
  EXPECT_THAT(described(r.plan), IsEmpty());
}

TEST(PlanModules, UnknownModuleIsMissingKernelSupport) {
  PlanRun r("[modules]\ninfiniband = [\"ib_srpt\"]\n");
  EXPECT_THAT(error_ids(r.plan), ElementsAre(kKernelSupportMissing.code));
}

TEST(PlanMemlock, WritesAnOwnedLimitsFile) {
  PlanRun r("[memlock]\ngroup = \"rdma\"\n");
  ASSERT_THAT(described(r.plan),
              ElementsAre("write /etc/security/limits.d/90-ibsm-agent-memlock.conf (mode 0644)"));
  ASSERT_TRUE(r.apply());
  EXPECT_THAT(r.tree.read("/etc/security/limits.d/90-ibsm-agent-memlock.conf"),
              HasSubstr("@rdma soft memlock unlimited\n@rdma hard memlock unlimited\n"));
  r.replan();
  EXPECT_THAT(described(r.plan), IsEmpty());
}

TEST(PlanMemlock, ForeignFileAtThePathIsNotTouched) {
  PlanRun r("[memlock]\n");
  r.tree.file("/etc/security/limits.d/90-ibsm-agent-memlock.conf", "* soft memlock 1024\n");
  EXPECT_THAT(error_ids(r.replan()), ElementsAre(kForeignObject.code));
}

TEST(PlanNfs, ServerDropInSetsRdmaAndPort) {
  PlanRun r("[nfs_rdma]\nserver = true\nport = 20049\n");
  ASSERT_TRUE(r.apply());
  // rdma-port is read only together with rdma=y (nfs-utils configure_listeners).
  EXPECT_THAT(r.tree.read("/etc/nfs.conf.d/90-ibsm-agent-rdma.conf"),
              HasSubstr("[nfsd]\nrdma=y\nrdma-port=20049\n"));
  r.replan();
  EXPECT_THAT(described(r.plan), IsEmpty());
  r.tree.file("/proc/fs/nfsd/portlist", "tcp 2049\n");
  r.replan();
  auto verdicts = verify(r.plan, r.observed, r.tree.fs());
  ASSERT_EQ(verdicts.back().resource, "nfs_rdma server");
  EXPECT_EQ(verdicts.back().state, VerifyState::kFailed);
  r.tree.file("/proc/fs/nfsd/portlist", "rdma 20049\ntcp 2049\n");
  EXPECT_EQ(verify(r.plan, r.observed, r.tree.fs()).back().state, VerifyState::kOk);
}

TEST(PlanUdev, PersistentNameRuleMatchesTheGuidBytes) {
  PlanRun r(
      "[[ipoib]]\nport = { device = \"mlx5_0\" }\nname = \"ib-storage\"\npersistent_name = true\n");
  EXPECT_THAT(r.plan.errors, IsEmpty());
  EXPECT_THAT(r.plan.notes,
              ElementsAre(HasSubstr("ib0 will be named ib-storage by the udev rule")));
  ASSERT_THAT(described(r.plan),
              ElementsAre("write /etc/udev/rules.d/70-ibsm-agent-ipoib.rules (mode 0644)"));
  EXPECT_THAT(r.plan.actions[0].content,
              HasSubstr("ATTR{type}==\"32\", ATTR{address}==\"?*:00:02:c9:03:00:00:12:34\", "
                        "NAME=\"ib-storage\"\n"));
}

}  // namespace
}  // namespace ibsm::agent
