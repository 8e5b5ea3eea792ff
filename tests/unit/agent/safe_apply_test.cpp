// Safe apply: every file apply writes keeps its previous version and a failed apply
// restores them; NetworkManager checkpoints around nmcli; plan's unified diffs; --prune
// removing the live connection or interface too.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/apply.hpp"
#include "agent/errors.hpp"
#include "agent/nm_checkpoint.hpp"
#include "agent/report.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent {
namespace {

using ::testing::Contains;
using testing::described;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::PlanRun;

// TreeKernel whose manager commands fail (nmcli, networkctl): the backend tool failing.
class FailingManagerKernel final : public Kernel {
 public:
  explicit FailingManagerKernel(TreeKernel& k) : k_(k) {}
  Status create_ipoib_child(const std::string& p, const std::string& n, std::uint16_t k,
                            const std::string& m) override {
    return k_.create_ipoib_child(p, n, k, m);
  }
  Status set_ipoib_mode(const std::string& i, const std::string& m) override {
    return k_.set_ipoib_mode(i, m);
  }
  Status set_mtu(const std::string& i, int m) override { return k_.set_mtu(i, m); }
  Status set_alias(const std::string& i, const std::string& a) override {
    return k_.set_alias(i, a);
  }
  Status set_up(const std::string& i) override { return k_.set_up(i); }
  Status delete_link(const std::string& i) override { return k_.delete_link(i); }
  std::vector<std::string> addresses(const std::string& i) const override {
    return k_.addresses(i);
  }
  Status add_address(const std::string& i, const std::string& c) override {
    return k_.add_address(i, c);
  }
  Status add_rdma_link(const std::string& n, const std::string& t, const std::string& d) override {
    return k_.add_rdma_link(n, t, d);
  }
  Status load_module(const std::string& m) override { return k_.load_module(m); }
  Status configfs_mkdir(const std::string& p) override { return k_.configfs_mkdir(p); }
  Status run(const std::vector<std::string>& argv) override {
    return fail(kCommandFailed, argv[0] + " exited 1: Error: connection activation failed");
  }

 private:
  TreeKernel& k_;
};

class FakeCheckpointer final : public Checkpointer {
 public:
  std::vector<std::string> calls;
  Result<std::string> create(unsigned timeout) override {
    calls.push_back("create " + std::to_string(timeout));
    return std::string("/org/freedesktop/NetworkManager/Checkpoint/7");
  }
  Status rollback(const std::string& id) override {
    calls.push_back("rollback " + id);
    return {};
  }
  Status destroy(const std::string& id) override {
    calls.push_back("destroy " + id);
    return {};
  }
};

const char* const kChild = "[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [2]\n";
const std::string kKeyfile = "/etc/NetworkManager/system-connections/ibsm-ib0.8002.nmconnection";

TEST(SafeApply, NetworkManagerFailureRollsBackTheCheckpointAndLeavesTheProfilesAsTheyWere) {
  PlanRun r(kChild);
  r.replan(Backend::kNetworkManager);
  ASSERT_TRUE(r.apply());
  // An older profile of ours is in place; the node file now wants another address.
  const std::string before = r.tree.read(kKeyfile);
  r.config.ipoib[0].children = {PKeyChild{2, "", {}, {}, {"10.2.0.5/16"}, {}}};
  r.config.ipoib[0].auto_pkeys = false;
  r.replan(Backend::kNetworkManager);
  ASSERT_THAT(described(r.plan), Contains("write " + kKeyfile + " (mode 0600)"));
  FailingManagerKernel kernel(r.kernel);
  FakeCheckpointer nm;
  ApplyOptions options;
  options.checkpoint = &nm;
  auto report = apply_plan(r.plan, r.tree.fs(), kernel, {}, options);
  ASSERT_TRUE(report.error);
  EXPECT_EQ(report.error->id, kRolledBack);
  EXPECT_THAT(report.error->message, HasSubstr("connection activation failed"));
  EXPECT_THAT(nm.calls, ElementsAre("create 120",
                                    "rollback /org/freedesktop/NetworkManager/"
                                    "Checkpoint/7"));
  EXPECT_EQ(r.tree.read(kKeyfile), before);  // restored
  EXPECT_EQ(r.tree.read("/var/lib/ibsm-agent/previous" + kKeyfile), before);
  EXPECT_THAT(report.rolled_back, Contains("restored " + kKeyfile));
}

TEST(SafeApply, SuccessDestroysTheCheckpointAndNoNmcliTakesNone) {
  PlanRun r(kChild);
  r.replan(Backend::kNetworkManager);
  FakeCheckpointer nm;
  ApplyOptions options;
  options.checkpoint = &nm;
  EXPECT_TRUE(apply_plan(r.plan, r.tree.fs(), r.kernel, {}, options).ok());
  EXPECT_THAT(nm.calls, ElementsAre("create 120",
                                    "destroy /org/freedesktop/NetworkManager/"
                                    "Checkpoint/7"));
  nm.calls.clear();
  PlanRun direct("[memlock]\n");
  EXPECT_TRUE(apply_plan(direct.plan, direct.tree.fs(), direct.kernel, {}, options).ok());
  EXPECT_THAT(nm.calls, IsEmpty());
}

TEST(SafeApply, WithoutNetworkManagerAFailedApplyRestoresEveryFileAndDeletesNewChildren) {
  testing::Tree t;
  t.file("/etc/a.conf", "# Managed by ibsm-agent\nold a\n");
  t.file("/etc/c.conf", "# Managed by ibsm-agent\nold c\n");
  auto file = [](ActionKind k, const std::string& path, const std::string& content) {
    Action a;
    a.kind = k;
    a.resource = "file " + path;
    a.path = path;
    a.content = content;
    return a;
  };
  Plan plan;
  plan.actions = {file(ActionKind::kWriteFile, "/etc/a.conf", "new a\n"),
                  file(ActionKind::kWriteFile, "/etc/b.conf", "new b\n"),
                  file(ActionKind::kRemoveFile, "/etc/c.conf", ""), Action{}};
  plan.actions[3].kind = ActionKind::kRun;
  plan.actions[3].resource = "networkd";
  plan.actions[3].argv = {"networkctl", "reload"};
  TreeKernel tree_kernel(t.fs());
  FailingManagerKernel kernel(tree_kernel);
  auto report = apply_plan(plan, t.fs(), kernel, {}, ApplyOptions{});
  ASSERT_TRUE(report.error);
  EXPECT_EQ(report.error->id, kRolledBack);
  EXPECT_THAT(report.error->message, HasSubstr("run networkctl reload failed"));
  EXPECT_THAT(report.rolled_back,
              ElementsAre("restored /etc/c.conf", "removed /etc/b.conf", "restored /etc/a.conf"));
  EXPECT_EQ(t.read("/etc/a.conf"), "# Managed by ibsm-agent\nold a\n");
  EXPECT_FALSE(t.fs().exists("/etc/b.conf"));
  EXPECT_EQ(t.read("/etc/c.conf"), "# Managed by ibsm-agent\nold c\n");
  // Every file written or removed keeps its previous version for the operator.
  EXPECT_EQ(t.read("/var/lib/ibsm-agent/previous/etc/a.conf"), "# Managed by ibsm-agent\nold a\n");
  EXPECT_EQ(t.read("/var/lib/ibsm-agent/previous/etc/c.conf"), "# Managed by ibsm-agent\nold c\n");

  // Direct backend: a child created before the failure is deleted again.
  PlanRun d(
      "[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [2]\n[[soft_rdma]]\nname = "
      "\"rxe0\"\ntype = \"rxe\"\nnetdev = \"eth9\"\n");
  d.tree.file("/sys/class/net/eth9/type", "1\n");  // appears after planning...
  d.replan();
  ASSERT_TRUE(d.tree.fs().remove("/sys/class/net/eth9/type").ok());
  ASSERT_TRUE(
      d.tree.fs().remove("/sys/class/net/eth9").ok());  // ...and is gone when the link is added
  auto rep = apply_plan(d.plan, d.tree.fs(), d.kernel, {}, ApplyOptions{});
  ASSERT_TRUE(rep.error);
  EXPECT_THAT(rep.rolled_back, Contains("deleted ib0.8002"));
  EXPECT_FALSE(d.tree.fs().exists("/sys/class/net/ib0.8002"));
}

TEST(PlanDiff, NewAndChangedFilesShowExactUnifiedDiffsInTextAndJson) {
  PlanRun r("[modules]\nrdma = [\"rdma_ucm\"]\n[memlock]\n");
  std::string text = render_plan(r.plan, {}, Format::kText);
  EXPECT_THAT(text, HasSubstr("      --- /etc/rdma/modules/rdma.conf\n"
                              "      +++ /etc/rdma/modules/rdma.conf\n"
                              "      @@ -1,3 +1,5 @@\n"
                              "       # Load RDMA modules\n"
                              "       ib_uverbs\n"
                              "       # rds_rdma\n"
                              "      +# Added by ibsm-agent from the node file:\n"
                              "      +rdma_ucm\n"));
  EXPECT_THAT(text, HasSubstr("      --- /dev/null\n"
                              "      +++ /etc/security/limits.d/90-ibsm-agent-memlock.conf\n"
                              "      @@ -0,0 +1,4 @@\n"
                              "      +# Managed by ibsm-agent"));
  std::string json = render_plan(r.plan, {}, Format::kJson);
  EXPECT_THAT(json, HasSubstr("\"diff\" : \"--- /etc/rdma/modules/rdma.conf\\n+++ "
                              "/etc/rdma/modules/rdma.conf\\n@@ -1,3 +1,5 @@\\n"));
}

TEST(Prune, NetworkManagerDeletesTheLiveConnection) {
  PlanRun r(kChild);
  r.replan(Backend::kNetworkManager);
  ASSERT_TRUE(r.apply());
  r.config.ipoib[0].auto_pkeys = false;
  r.config.ipoib[0].children.clear();
  r.replan(Backend::kNetworkManager, true);
  EXPECT_THAT(described(r.plan),
              ElementsAre("run nmcli connection delete id ibsm-ib0.8002", "remove " + kKeyfile));
  EXPECT_TRUE(r.plan.actions[0].disruptive);
}

TEST(Prune, NetworkdDeletesTheInterfaceAndIfupdownTakesItDown) {
  PlanRun r(kChild);
  r.replan(Backend::kNetworkd);
  ASSERT_TRUE(r.apply());
  r.config.ipoib[0].children.clear();
  r.replan(Backend::kNetworkd, true);
  // The parent's .network loses the child from IPoIB=; the child's units go, then the
  // interface itself, then networkd reads the units again.
  EXPECT_THAT(
      described(r.plan),
      ElementsAre("write /etc/systemd/network/60-ibsm-ib0.network (mode 0644)",
                  "run networkctl reload", "run networkctl reconfigure ib0",
                  "remove /etc/systemd/network/60-ibsm-ib0.8002.netdev",
                  "run networkctl delete ib0.8002",
                  "remove /etc/systemd/network/60-ibsm-ib0.8002.network", "run networkctl reload"));

  PlanRun u(kChild);
  u.tree.file("/etc/network/interfaces", "source /etc/network/interfaces.d/*\n");
  u.replan(Backend::kIfupdown);
  ASSERT_TRUE(u.apply());
  u.config.ipoib[0].children.clear();
  u.replan(Backend::kIfupdown, true);
  EXPECT_THAT(described(u.plan),
              ElementsAre("run ifdown ib0.8002", "remove /etc/network/interfaces.d/ibsm-ib0-8002"));
}

TEST(NmCheckpoint, ParsesBusctlsObjectPath) {
  auto p = parse_checkpoint_path("o \"/org/freedesktop/NetworkManager/Checkpoint/3\"\n");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, "/org/freedesktop/NetworkManager/Checkpoint/3");
  EXPECT_FALSE(parse_checkpoint_path("Call failed: Access denied\n").ok());
  EXPECT_FALSE(parse_checkpoint_path("o \"/etc/passwd\"\n").ok());
}

}  // namespace
}  // namespace ibsm::agent
