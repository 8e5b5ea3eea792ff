#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/apply.hpp"
#include "agent/errors.hpp"
#include "agent/verify.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent::apply_test {
namespace {

using testing::described;
using ::testing::ElementsAre;
using testing::error_ids;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::PlanRun;

const char* const kNode = R"([[ipoib]]
port = { guid = 0x0002c90300001234 }
addresses = ["10.0.0.5/16"]
pkeys = "auto"
[[ipoib.child]]
pkey = 0x0006
mode = "connected"
addresses = ["10.6.0.5/16", "fd00:6::5/64"]
)";

TEST(ApplyDirect, SecondApplyHasNothingToDo) {
  PlanRun r(kNode);
  ASSERT_THAT(r.plan.errors, IsEmpty());
  EXPECT_FALSE(r.plan.actions.empty());
  ASSERT_TRUE(r.apply());
  r.replan();
  EXPECT_THAT(described(r.plan), IsEmpty());
  EXPECT_EQ(r.tree.read("/sys/class/net/ib0.8006/mode"), "connected\n");
  EXPECT_EQ(r.tree.read("/sys/class/net/ib0.8006/pkey"), "0x8006\n");
  EXPECT_EQ(r.tree.read("/sys/class/net/ib0.8006/ifalias"), "ibsm-agent:ib0.8006\n");
  EXPECT_EQ(r.tree.read("/sys/class/net/ib0.8006/ibsm-tree-addresses"),
            "10.6.0.5/16\nfd00:6::5/64\n");
}

TEST(ApplyDirect, VerifyAfterApplySeparatesOkPendingAndFailed) {
  PlanRun r(kNode);
  ASSERT_TRUE(r.apply());
  r.replan();
  auto verdicts = verify(r.plan, r.observed, r.tree.fs());
  std::vector<std::string> lines;
  for (const auto& v : verdicts)
    lines.push_back(v.resource + " " + std::string(state_name(v.state)));
  // 0x8006 is not in the port's table: the SM has not programmed it (yet).
  // Explicit children come first, then the ones pkeys = "auto" found.
  EXPECT_THAT(lines, ElementsAre("ipoib ib0 ok", "ipoib ib0.8006 pending-sm", "ipoib ib0.8002 ok",
                                 "ipoib ib0.8004 ok"));
  EXPECT_EQ(verify_exit_code(verdicts), 2);
}

TEST(ApplyDirect, LimitedMembershipFailsVerifyWhenFullIsRequired) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [3]\n");
  ASSERT_TRUE(r.apply());
  r.replan();
  auto verdicts = verify(r.plan, r.observed, r.tree.fs());
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(verdicts[1].state, VerifyState::kFailed);
  EXPECT_THAT(verdicts[1].reason, HasSubstr("only a limited member of 0x8003"));
  EXPECT_EQ(verify_exit_code(verdicts), 3);
}

TEST(ApplyDirect, PortNotActiveIsPendingSm) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\n");
  ASSERT_TRUE(r.apply());
  r.tree.file("/sys/class/infiniband/mlx5_0/ports/1/state", "2: INIT\n");
  r.replan();
  auto verdicts = verify(r.plan, r.observed, r.tree.fs());
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].state, VerifyState::kPendingSm);
  EXPECT_THAT(verdicts[0].reason, HasSubstr("INIT, not ACTIVE"));
}

TEST(ApplyDirect, ForeignInterfaceIsReportedAndNeverTouched) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [2]\n", true);
  testing::add_netdev(r.tree, "ib0.8002", 32, testing::kIb0Address, 2044, "connected", "0x8002");
  r.tree.file("/sys/class/net/ib0.8002/ifalias", "made-by-admin\n");
  r.tree.file("/sys/class/net/ib0.8002/parent", "ib0\n");
  r.replan();
  ASSERT_THAT(error_ids(r.plan), ElementsAre(kForeignObject.code));
  EXPECT_FALSE(r.apply());
  EXPECT_EQ(r.tree.read("/sys/class/net/ib0.8002/mode"), "connected\n");
  EXPECT_EQ(r.tree.read("/sys/class/net/ib0.8002/ifalias"), "made-by-admin\n");
}

TEST(ApplyDirect, DisruptiveChangeOnProtectedInterfaceNeedsForce) {
  PlanRun r(R"([agent]
protected_interfaces = ["ib0"]
[[ipoib]]
port = { device = "mlx5_0" }
mode = "connected"
pkeys = [2]
)");
  auto report =
      apply_plan(r.plan, r.tree.fs(), r.kernel, protected_interfaces(r.config, r.observed), false);
  EXPECT_EQ(report.error->id, kDisruptiveRefused);
  // mtu "auto": the mode switch sets 65520 by itself, so the switch is the only change.
  EXPECT_THAT(report.refused, ElementsAre(HasSubstr("set ib0 mode connected: ib0 listed in")));
  EXPECT_THAT(report.done, IsEmpty());  // nothing half-applied
  EXPECT_FALSE(r.tree.fs().exists("/sys/class/net/ib0.8002"));
  EXPECT_EQ(r.tree.read("/sys/class/net/ib0/mode"), "datagram\n");
  ASSERT_TRUE(r.apply(/*force=*/true));
  EXPECT_EQ(r.tree.read("/sys/class/net/ib0/mode"), "connected\n");
}

TEST(ApplyDirect, DefaultRouteInterfaceIsProtected) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\nmtu = 1500\n");
  r.tree.file("/proc/net/route",
              "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n"
              "ib0\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\n");
  r.replan();
  EXPECT_FALSE(r.apply());
  EXPECT_EQ(r.tree.read("/sys/class/net/ib0/mtu"), "2044\n");
}

TEST(ApplyDirect, ManagementConnectionInterfaceIsProtected) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\nmode = \"connected\"\n");
  ASSERT_TRUE(r.kernel.add_address("ib0", "10.0.0.5/16"));
  r.replan();
  r.observed.management_interfaces = interfaces_with_address(r.observed, r.kernel, "10.0.0.5");
  EXPECT_EQ(r.observed.management_interfaces, std::set<std::string>{"ib0"});
  auto guarded = protected_interfaces(r.config, r.observed);
  EXPECT_EQ(guarded["ib0"], "carries the management connection");
  auto report = apply_plan(r.plan, r.tree.fs(), r.kernel, guarded, false);
  EXPECT_EQ(report.error->id, kDisruptiveRefused);
  EXPECT_EQ(r.tree.read("/sys/class/net/ib0/mode"), "datagram\n");
}

TEST(ApplyDirect, OwnedChildNoLongerWantedIsDeletedOnlyWithPrune) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [2, 4]\n");
  ASSERT_TRUE(r.apply());
  // A child someone else made stays whatever happens.
  testing::add_netdev(r.tree, "ib0.8006", 32, testing::kIb0Address, 2044, "datagram", "0x8006");
  r.tree.file("/sys/class/net/ib0.8006/parent", "ib0\n");
  r.config.ipoib[0].children.pop_back();
  r.replan();
  EXPECT_THAT(described(r.plan), IsEmpty());
  EXPECT_THAT(r.plan.notes,
              ElementsAre(HasSubstr("ib0.8004 was created by ibsm-agent but is no longer")));
  r.replan(Backend::kDirect, /*prune=*/true);
  EXPECT_THAT(described(r.plan), ElementsAre("delete ib0.8004"));
  ASSERT_TRUE(r.apply());
  EXPECT_FALSE(r.tree.fs().exists("/sys/class/net/ib0.8004"));
  EXPECT_TRUE(r.tree.fs().exists("/sys/class/net/ib0.8006"));
  EXPECT_TRUE(r.tree.fs().exists("/sys/class/net/ib0.8002"));
}

// A kernel whose n-th change fails, to check that a failure midway is reported and
// rolled back. Deleting a link (what a rollback does) always works.
class FailingKernel final : public Kernel {
 public:
  FailingKernel(Kernel& inner, int fail_at) : inner_(inner), left_(fail_at) {}
  Status create_ipoib_child(const std::string& p, const std::string& n, std::uint16_t k,
                            const std::string& m) override {
    return step() ? inner_.create_ipoib_child(p, n, k, m) : broken();
  }
  Status set_ipoib_mode(const std::string& i, const std::string& m) override {
    return step() ? inner_.set_ipoib_mode(i, m) : broken();
  }
  Status set_mtu(const std::string& i, int m) override {
    return step() ? inner_.set_mtu(i, m) : broken();
  }
  Status set_alias(const std::string& i, const std::string& a) override {
    return step() ? inner_.set_alias(i, a) : broken();
  }
  Status set_up(const std::string& i) override { return step() ? inner_.set_up(i) : broken(); }
  Status delete_link(const std::string& i) override { return inner_.delete_link(i); }
  std::vector<std::string> addresses(const std::string& i) const override {
    return inner_.addresses(i);
  }
  Status add_address(const std::string& i, const std::string& c) override {
    return step() ? inner_.add_address(i, c) : broken();
  }
  Status add_rdma_link(const std::string& n, const std::string& t, const std::string& d) override {
    return step() ? inner_.add_rdma_link(n, t, d) : broken();
  }
  Status load_module(const std::string& m) override {
    return step() ? inner_.load_module(m) : broken();
  }
  Status configfs_mkdir(const std::string& p) override {
    return step() ? inner_.configfs_mkdir(p) : broken();
  }
  Status run(const std::vector<std::string>& a) override {
    return step() ? inner_.run(a) : broken();
  }

 private:
  bool step() { return left_-- > 0; }
  static Status broken() {
    return fail(kCommandFailed, "RTNETLINK answers: Operation not permitted");
  }
  Kernel& inner_;
  int left_;
};

TEST(ApplyDirect, FailureMidwayDeletesTheChildrenItCreatedAndTheNextPlanShowsTheRest) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [2, 4]\n");
  std::size_t total = r.plan.actions.size();
  auto before = described(r.plan);
  FailingKernel k(r.kernel, 4);
  auto report = apply_plan(r.plan, r.tree.fs(), k, {}, false);
  ASSERT_TRUE(report.error.has_value());
  EXPECT_EQ(report.error->id, kRolledBack);
  EXPECT_THAT(report.error->message, HasSubstr("Operation not permitted"));
  EXPECT_EQ(report.done.size(), 4u);
  EXPECT_EQ(report.done.size() + report.not_done.size(), total);
  // The child created before the failure (the 5th change, creating ib0.8004, failed) is
  // deleted again; ib0's alias, a change to an interface that existed, stays.
  EXPECT_THAT(report.rolled_back, ElementsAre("deleted ib0.8002"));
  r.replan();
  before.erase(before.begin());
  EXPECT_EQ(described(r.plan), before);
}

}  // namespace
}  // namespace ibsm::agent::apply_test
