// memlock in force: verify reads what processes run with (/proc/<pid>/limits), what
// systemd has loaded (MainPID, LimitMEMLOCK) and whether PAM applies limits.d at all.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/memlock_check.hpp"
#include "agent/service_probe.hpp"
#include "agent/verify.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent {
namespace {

using ::testing::HasSubstr;
using testing::PlanRun;

std::string limits(const std::string& soft, const std::string& hard) {
  return "Limit                     Soft Limit           Hard Limit           Units     \n"
         "Max cpu time              unlimited            unlimited            seconds   \n"
         "Max locked memory         " +
         soft + "              " + hard + "              bytes     \n";
}

Verdict verdict_of(PlanRun& r, const std::string& resource) {
  r.replan();
  for (const auto& v : verify(r.plan, r.observed, r.tree.fs()))
    if (v.resource == resource) return v;
  ADD_FAILURE() << "no verdict for " << resource;
  return {};
}

TEST(MemlockInForce, ProcAndSystemctlParsing) {
  EXPECT_EQ(parse_proc_memlock(limits("8388608", "8388608")),
            (std::pair<std::string, std::string>{"8388608", "8388608"}));
  EXPECT_EQ(parse_proc_memlock(limits("unlimited", "unlimited"))->second, "unlimited");
  EXPECT_EQ(parse_proc_memlock("Max locked memory  lots  more  bytes\n"), std::nullopt);
  EXPECT_EQ(parse_proc_memlock(""), std::nullopt);
  EXPECT_EQ(systemd_memlock("unlimited"), "infinity");
  EXPECT_EQ(systemd_memlock("1048576"), "1073741824");
  auto props = parse_systemctl_show("MainPID=4242\nLimitMEMLOCK=infinity\n");
  EXPECT_EQ(props["MainPID"], "4242");
  EXPECT_EQ(props["LimitMEMLOCK"], "infinity");
}

// The group: members' processes, PAM, /etc/group.
struct GroupHost {
  PlanRun run{"[memlock]\ngroup = \"rdma\"\n"};
  GroupHost() {
    EXPECT_TRUE(run.apply());
    run.tree.file("/etc/group", "root:x:0:\nrdma:x:125:alice\n");
    run.tree.file("/etc/pam.d/common-session",
                  "# comment pam_limits.so\nsession required pam_limits.so\n");
    // alice's shell (in rdma through Groups:) and a root daemon outside the group.
    run.tree.file("/proc/300/status", "Name:\tbash\nUid:\t1000\nGid:\t1000\nGroups:\t27 125 \n");
    run.tree.file("/proc/300/limits", limits("unlimited", "unlimited"));
    run.tree.file("/proc/1/status", "Name:\tsystemd\nGid:\t0\t0\t0\t0\nGroups:\t\n");
    run.tree.file("/proc/1/limits", limits("8388608", "8388608"));
  }
};

TEST(MemlockInForce, GroupMembersRunningWithTheLimitAreOk) {
  GroupHost h;
  auto v = verdict_of(h.run, "memlock rdma");
  EXPECT_EQ(v.state, VerifyState::kOk) << v.reason;
  EXPECT_EQ(v.reason,
            "1 process(es) of group rdma run with the limit (soft unlimited, hard unlimited)");
}

TEST(MemlockInForce, ASessionStartedBeforeTheLimitIsDrift) {
  GroupHost h;
  h.run.tree.file("/proc/301/status", "Name:\tsrun\nGid:\t125\t125\t125\t125\nGroups:\t\n");
  h.run.tree.file("/proc/301/limits", limits("65536", "65536"));
  auto v = verdict_of(h.run, "memlock rdma");
  EXPECT_EQ(v.state, VerifyState::kDrift);
  EXPECT_THAT(v.reason, HasSubstr("1 of 2 process(es) of group rdma run with less than the limit"));
  EXPECT_THAT(v.reason, HasSubstr("PID 301 (srun): soft 65536 bytes, hard 65536 bytes"));
}

TEST(MemlockInForce, WithoutPamLimitsOrTheGroupTheLimitAppliesToNobody) {
  GroupHost h;
  h.run.tree.file("/etc/pam.d/common-session", "session optional pam_systemd.so\n");
  auto v = verdict_of(h.run, "memlock rdma");
  EXPECT_EQ(v.state, VerifyState::kFailed);
  EXPECT_THAT(v.reason, HasSubstr("pam_limits.so is in none of /etc/pam.d/common-session"));
  h.run.tree.file("/etc/pam.d/sshd", "session    required     pam_limits.so\n");
  EXPECT_EQ(verdict_of(h.run, "memlock rdma").state, VerifyState::kOk);
  h.run.tree.file("/etc/group", "root:x:0:\n");
  v = verdict_of(h.run, "memlock rdma");
  EXPECT_EQ(v.state, VerifyState::kFailed);
  EXPECT_THAT(v.reason, HasSubstr("group rdma is not in /etc/group"));
}

// A service: LimitMEMLOCK loaded by systemd and in force for its MainPID.
struct ServiceHost {
  PlanRun run{"[memlock]\nhard = 1048576\nservices = [\"slurmd.service\"]\n"};
  ServiceHost() { EXPECT_TRUE(run.apply()); }
  Verdict check(unsigned pid, const std::string& loaded) {
    run.replan();
    run.observed.unit_memlock["slurmd.service"] = UnitMemlock{pid, loaded};
    for (const auto& v : verify(run.plan, run.observed, run.tree.fs()))
      if (v.resource == "memlock slurmd.service") return v;
    ADD_FAILURE();
    return {};
  }
};

TEST(MemlockInForce, ServiceLimitLoadedAndInForceForItsMainPid) {
  ServiceHost h;
  h.run.tree.file("/proc/4242/limits", limits("1073741824", "1073741824"));
  auto v = h.check(4242, "1073741824");
  EXPECT_EQ(v.state, VerifyState::kOk) << v.reason;
  EXPECT_EQ(v.reason,
            "slurmd.service's main process (PID 4242) runs with memlock 1073741824 bytes");
  v = h.check(0, "1073741824");
  EXPECT_EQ(v.state, VerifyState::kOk);
  EXPECT_THAT(v.reason, HasSubstr("has no main process now"));
}

TEST(MemlockInForce, DropInNotReloadedOrServiceNotRestartedIsDrift) {
  ServiceHost h;
  auto v = h.check(4242, "8388608");
  EXPECT_EQ(v.state, VerifyState::kDrift);
  EXPECT_EQ(v.reason,
            "systemd has LimitMEMLOCK=8388608 loaded for slurmd.service, the drop-in says "
            "1073741824: run `systemctl daemon-reload`");
  h.run.tree.file("/proc/4242/limits", limits("8388608", "8388608"));
  v = h.check(4242, "1073741824");
  EXPECT_EQ(v.state, VerifyState::kDrift);
  EXPECT_EQ(v.reason,
            "slurmd.service's main process (PID 4242) runs with memlock soft 8388608 bytes, hard "
            "8388608 bytes; the drop-in says 1073741824 bytes: restart it (`systemctl restart "
            "slurmd.service`)");
}

class ScriptedSystemctl final : public CommandRunner {
 public:
  CommandResult answer;
  mutable std::vector<std::string> argv;
  CommandResult run(const std::vector<std::string>& a) const override {
    argv = a;
    return answer;
  }
};

TEST(MemlockInForce, SystemctlProbeAsksForMainPidAndLimitMemlock) {
  ScriptedSystemctl run;
  testing::Tree tree;
  RunDirProbe none(tree.fs());
  SystemctlProbe probe(run, none);
  run.answer = {0, "MainPID=77\nLimitMEMLOCK=infinity\n"};
  auto m = probe.memlock("nfs-server.service");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->main_pid, 77u);
  EXPECT_EQ(m->limit_memlock, "infinity");
  EXPECT_EQ(run.argv, (std::vector<std::string>{"systemctl", "show", "-p", "MainPID", "-p",
                                                "LimitMEMLOCK", "nfs-server.service"}));
  run.answer = {1, "System has not been booted with systemd"};
  EXPECT_FALSE(probe.memlock("nfs-server.service"));
}

}  // namespace
}  // namespace ibsm::agent
