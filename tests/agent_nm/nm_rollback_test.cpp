// A real NetworkManager rollback: run by nm_rollback.py inside a private network and
// mount namespace with its own D-Bus system bus and NetworkManager. The agent plans the
// fake host's IPoIB profiles for the NetworkManager backend, then applies that plan to
// this NetworkManager through the real code (keyfile writes, nmcli, the checkpoint over
// busctl). The namespace has no IPoIB device, so activating the first profile fails
// (the third action: write the changed keyfile, load it, bring it up); apply must then
// leave NetworkManager's connections and the keyfiles as they were.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "agent/apply.hpp"
#include "agent/errors.hpp"
#include "agent/nm_checkpoint.hpp"
#include "tests/unit/agent/plan_fixture.hpp"

namespace ibsm::agent {
namespace {

using ::testing::HasSubstr;

std::string nmcli(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"nmcli"};
  argv.insert(argv.end(), args.begin(), args.end());
  return ProcessRunner().run(argv).output;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What NetworkManager holds: every connection, and the settings of the agent's profile.
std::string connections() {
  std::string list = nmcli({"-t", "-f", "NAME,UUID,TYPE", "connection", "show"});
  std::istringstream in(list);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines)
    out += l + "\n";
  return out + nmcli({"-g", "connection.id,infiniband.mtu,infiniband.transport-mode,ipv4.addresses",
                      "connection", "show", "ibsm-ib0"});
}

const Action* write_of(const Plan& p, const std::string& path) {
  for (const auto& a : p.actions)
    if (a.kind == ActionKind::kWriteFile && a.path == path) return &a;
  return nullptr;
}

TEST(NmRollback, AFailedApplyLeavesTheConnectionsAsTheyWere) {
  if (!std::getenv("IBSM_NM_TEST"))
    GTEST_SKIP() << "needs the namespace nm_rollback.py sets up (a private NetworkManager)";
  const std::string keyfile = "/etc/NetworkManager/system-connections/ibsm-ib0.nmconnection";
  // Yesterday's node file: ib0 at MTU 1500, applied and loaded into NetworkManager.
  testing::PlanRun old(
      "[[ipoib]]\nport = { device = \"mlx5_0\" }\nmtu = 1500\n"
      "addresses = [\"10.9.0.5/16\"]\n");
  old.replan(Backend::kNetworkManager);
  const Action* before = write_of(old.plan, keyfile);
  ASSERT_NE(before, nullptr);
  RootFs host("/");
  ASSERT_TRUE(host.write_atomic(keyfile, before->content, 0600).ok());
  ASSERT_THAT(nmcli({"connection", "load", keyfile}), ::testing::Not(HasSubstr("rror")));
  // A foreign profile the agent never touches.
  nmcli({"connection", "add", "type", "ethernet", "ifname", "v0", "con-name", "site-eth",
         "ipv4.method", "manual", "ipv4.addresses", "10.77.0.1/24"});
  const std::string connections_before = connections();
  ASSERT_THAT(connections_before, HasSubstr("ibsm-ib0:"));
  ASSERT_THAT(connections_before, HasSubstr("site-eth:"));
  ASSERT_THAT(connections_before, HasSubstr("\n1500\n"));

  // Today's node file: MTU 2000 and two children. The tree holds the same keyfile.
  testing::PlanRun now(
      "[[ipoib]]\nport = { device = \"mlx5_0\" }\nmtu = 2000\n"
      "addresses = [\"10.9.0.5/16\"]\npkeys = [2, 4]\n");
  now.tree.file(keyfile, before->content);
  now.replan(Backend::kNetworkManager);
  ASSERT_FALSE(now.plan.has_errors()) << to_string(now.plan.errors.front());
  ProcessRunner runner;
  LiveKernel kernel(host, runner);
  BusctlCheckpointer checkpoint(runner);
  ApplyOptions options;
  options.checkpoint = &checkpoint;
  ApplyReport report = apply_plan(now.plan, host, kernel, {}, options);

  ASSERT_TRUE(report.error.has_value());
  EXPECT_EQ(report.error->id, kRolledBack) << report.error->message;
  EXPECT_THAT(report.error->message, HasSubstr("nmcli connection up id ibsm-ib0"));
  // In NetworkManager changed and applied: the new keyfile was loaded (MTU 2000).
  EXPECT_EQ(report.done.size(), 2u);
  EXPECT_EQ(connections(), connections_before);
  EXPECT_EQ(read_file(keyfile), before->content);
  std::string rolled;
  for (const auto& r : report.rolled_back)
    rolled += r + "\n";
  EXPECT_THAT(rolled, HasSubstr("NetworkManager checkpoint /org/freedesktop/NetworkManager/"
                                "Checkpoint/"));
  EXPECT_THAT(rolled, HasSubstr("reloaded " + keyfile + " into NetworkManager\n"));
  EXPECT_THAT(rolled, ::testing::Not(HasSubstr("FAILED")));
}

}  // namespace
}  // namespace ibsm::agent

namespace ibsm::agent {
namespace {

// A new child's profile: written and loaded (NetworkManager now has a connection it did
// not have), then activating it fails. The checkpoint (DELETE_NEW_CONNECTIONS) deletes
// the connection and apply removes the keyfile.
TEST(NmRollback, ANewProfileIsGoneAgainAfterAFailedApply) {
  if (!std::getenv("IBSM_NM_TEST"))
    GTEST_SKIP() << "needs the namespace nm_rollback.py sets up (a private NetworkManager)";
  const std::string node = "[[ipoib]]\nport = { device = \"mlx5_0\" }\nmtu = 1500\n";
  const std::string parent = "/etc/NetworkManager/system-connections/ibsm-ib0.nmconnection";
  const std::string child = "/etc/NetworkManager/system-connections/ibsm-ib0.8002.nmconnection";
  testing::PlanRun old(node);
  old.replan(Backend::kNetworkManager);
  const Action* profile = write_of(old.plan, parent);
  ASSERT_NE(profile, nullptr);
  RootFs host("/");
  ASSERT_TRUE(host.write_atomic(parent, profile->content, 0600).ok());
  nmcli({"connection", "load", parent});
  const std::string before = connections();

  testing::PlanRun now(node + "pkeys = [2]\n");
  ASSERT_TRUE(now.tree.fs().write_atomic(parent, profile->content, 0600).ok());
  now.replan(Backend::kNetworkManager);
  ASSERT_NE(write_of(now.plan, child), nullptr);
  ProcessRunner runner;
  LiveKernel kernel(host, runner);
  BusctlCheckpointer checkpoint(runner);
  ApplyOptions options;
  options.checkpoint = &checkpoint;
  ApplyReport report = apply_plan(now.plan, host, kernel, {}, options);
  ASSERT_TRUE(report.error.has_value());
  EXPECT_EQ(report.error->id, kRolledBack) << report.error->message;
  EXPECT_THAT(report.done, ::testing::Contains("run nmcli connection load " + child));
  EXPECT_EQ(connections(), before);
  EXPECT_THAT(connections(), ::testing::Not(HasSubstr("ibsm-ib0.8002")));
  EXPECT_FALSE(host.exists(child));
}

}  // namespace
}  // namespace ibsm::agent
