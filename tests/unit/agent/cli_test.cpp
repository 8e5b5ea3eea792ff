// The command line end to end on a --root tree: verbs, exit codes, JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "agent/cli.hpp"
#include "agent/run_lock.hpp"
#include "host_fixture.hpp"

namespace ibsm::agent {
namespace {

using ::testing::HasSubstr;

struct Cli {
  testing::Tree tree;
  std::string out, err;
  Cli() {
    testing::build_host(tree);
    tree.file("/node.toml", "[[ipoib]]\nport = { guid = 0x0002c90300001234 }\npkeys = \"auto\"\n");
  }
  int run(std::vector<std::string> args) {
    std::vector<const char*> argv{"ibsm-agent"};
    for (const auto& a : args)
      argv.push_back(a.c_str());
    std::ostringstream o, e;
    int rc = run_cli(static_cast<int>(argv.size()), argv.data(), o, e);
    out = o.str();
    err = e.str();
    return rc;
  }
  int verb(const std::string& v, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{
        v, "--root", tree.root(), "-c", tree.root() + "/node.toml", "--backend", "direct"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }
};

TEST(Cli, ShowListsPortsPKeysAndNetdevs) {
  Cli c;
  EXPECT_EQ(c.verb("show"), kExitOk);
  EXPECT_THAT(
      c.out,
      HasSubstr(
          "mlx5_0    1    ACTIVE  LinkUp    17    1     InfiniBand 0x0002c90300001234  ib0\n"));
  EXPECT_THAT(c.out,
              HasSubstr("pkeys: [0]0xffff full [1]0x8002 full [2]0x0003 limited [3]0x8004 full"));
  EXPECT_THAT(c.out, HasSubstr("gid[1]: fe80:0000:0000:0000:0a0b:0cff:fe0d:0e0f  RoCE v2  eth2"));
  EXPECT_EQ(c.verb("show", {"--format", "json"}), kExitOk);
  EXPECT_THAT(c.out, HasSubstr("\"membership\" : \"limited\""));
  EXPECT_THAT(c.out, HasSubstr("\"port_guid\" : \"0x0002c90300001234\""));
}

TEST(Cli, TreeWithSysfsPortsHoldsAnMtuTheUnknownGroupMayNotAllowWithoutAskingTheSa) {
  Cli c;
  c.tree.file("/node.toml",
              "[[ipoib]]\nport = { guid = 0x0002c90300001234 }\nmtu = 4092\n"
              "[memlock]\ngroup = \"rdma\"\n");
  EXPECT_EQ(c.verb("plan"), kExitChanges);
  EXPECT_THAT(c.out, HasSubstr("pending ipoib ib0: mtu 4092 needs a broadcast group MTU"));
  EXPECT_THAT(c.out, HasSubstr("  ~ set ib0 mtu 4092  [waits]\n"));
  EXPECT_EQ(c.err, "");  // no SA, no warning: a tree has no port to send from
  EXPECT_EQ(c.verb("apply"), kExitPending);
  EXPECT_THAT(c.out, HasSubstr("pending: ipoib ib0: mtu 4092"));
  EXPECT_THAT(c.tree.read("/etc/security/limits.d/90-ibsm-agent-memlock.conf"),
              HasSubstr("memlock"));
  EXPECT_EQ(c.verb("verify", {"--format", "json"}), kExitPending);
  EXPECT_THAT(c.out, HasSubstr("\"state\" : \"pending\""));
}

TEST(Cli, PlanApplyPlanVerifyExitCodes) {
  Cli c;
  EXPECT_EQ(c.verb("plan"), kExitChanges);
  EXPECT_THAT(c.out, HasSubstr("+ create ib0.8002 on ib0 (P_Key 0x8002, datagram)"));
  EXPECT_EQ(c.verb("verify"), kExitDrift);
  EXPECT_EQ(c.verb("apply"), kExitOk);
  EXPECT_THAT(c.out, HasSubstr("7 change(s) applied"));
  EXPECT_EQ(c.verb("apply", {"--format", "json"}), kExitOk);
  EXPECT_THAT(c.out, HasSubstr("\"changes\" : 0"));
  EXPECT_EQ(c.verb("plan"), kExitOk);
  EXPECT_EQ(c.verb("verify"), kExitOk);
}

TEST(Cli, PlanErrorsExitOneAndApplyChangesNothing) {
  Cli c;
  c.tree.file("/node.toml", "[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [0x8000]\n");
  EXPECT_EQ(c.verb("plan", {"--format", "json"}), kExitError);
  EXPECT_THAT(c.out, HasSubstr("\"id\" : \"IBSM-6101\""));
  EXPECT_EQ(c.verb("apply"), kExitError);
  EXPECT_EQ(c.tree.read("/sys/class/net/ib0/ifalias"), "\n");
}

TEST(Cli, RefusedApplyExitsFive) {
  Cli c;
  c.tree.file("/node.toml",
              "[agent]\nprotected_interfaces = [\"ib0\"]\n[[ipoib]]\nport = { device = \"mlx5_0\" "
              "}\nmtu = 1500\n");
  EXPECT_EQ(c.verb("apply"), kExitRefused);
  EXPECT_EQ(c.verb("apply", {"--force"}), kExitOk);
}

TEST(Cli, ApplyWaitsForNoOneAndFailsWhileAnotherRunHoldsTheLock) {
  Cli c;
  auto held = RunLock::acquire(c.tree.root() + "/run/ibsm-agent.lock");
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(c.verb("apply"), kExitError);
  EXPECT_THAT(c.err, HasSubstr("IBSM-6205"));
  EXPECT_EQ(c.tree.read("/sys/class/net/ib0/ifalias"), "\n");
}

TEST(Cli, UsageAndNodeFileErrors) {
  Cli c;
  EXPECT_EQ(c.run({"frobnicate"}), kExitError);
  EXPECT_THAT(c.err, HasSubstr("IBSM-6401: unknown verb"));
  EXPECT_EQ(c.run({"plan", "--root", c.tree.root(), "-c", "/nonexistent.toml"}), kExitError);
  EXPECT_THAT(c.err, HasSubstr("IBSM-6001"));
  c.tree.file("/node.toml", "[agent]\nbakend = \"direct\"\n");
  EXPECT_EQ(c.verb("plan"), kExitError);
  EXPECT_THAT(c.err, HasSubstr("node.toml:2:1: agent.bakend: unknown key"));
}

}  // namespace
}  // namespace ibsm::agent
