// RoCE lossless settings through iproute2's dcb: the node file's [roce.dcb], what dcb
// shows, the commands planned from the difference, and the skipped verdict where the
// NIC or the installed dcb cannot do a part.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "agent/apply.hpp"
#include "agent/dcb.hpp"
#include "agent/errors.hpp"
#include "agent/node_file.hpp"
#include "agent/verify.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent::dcb_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::PlanRun;

constexpr const char* kNode =
    "[[roce]]\ndevice = \"mlx5_2\"\n[roce.dcb]\npfc = [3]\ntrust = \"dscp\"\n"
    "dscp_prio = [\"26:3\", \"48:6\"]\nprio_tc = [0, 1, 2, 3, 4, 5, 6, 7]\n"
    "tc_bw = [10, 10, 10, 40, 10, 10, 5, 5]\n";

// What iproute2 6.1's dcb prints for a ConnectX port left at its defaults.
constexpr const char* kPfcShow = "prio-pfc 0:off 1:off 2:off 3:off 4:off 5:off 6:off 7:off\n";
constexpr const char* kEtsShow =
    "tc-bw 0:12 1:12 2:12 3:12 4:13 5:13 6:13 7:13\n"
    "tc-tsa 0:ets 1:ets 2:ets 3:ets 4:ets 5:ets 6:ets 7:ets\n"
    "prio-tc 0:1 1:0 2:2 3:3 4:4 5:5 6:6 7:7\n";

TEST(DcbNodeFile, EveryPartParses) {
  auto c = parse_node_file(kNode, "node.toml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->roce[0].dcb);
  const DcbSettings& d = *c->roce[0].dcb;
  EXPECT_EQ(*d.pfc, std::vector<int>{3});
  EXPECT_EQ(d.trust, DcbTrust::kDscp);
  EXPECT_THAT(d.dscp_prio, ElementsAre(std::pair{26, 3}, std::pair{48, 6}));
  EXPECT_EQ(d.tc_bw->at(3), 40);
}

TEST(DcbNodeFile, BadValuesAreErrorsWithFileAndLine) {
  const std::map<std::string, std::string> bad = {
      {"pfc = [8]", "outside 0..7"},
      {"pfc = [3, 3]", "3 listed twice"},
      {"pfc = 3", "expected an array of integers"},
      {"trust = \"l2\"", "expected one of \"pcp\", \"dscp\""},
      {"dscp_prio = [\"64:3\"]", "\"64:3\" is not DSCP:PRIORITY"},
      {"dscp_prio = [\"26:8\"]", "\"26:8\" is not DSCP:PRIORITY"},
      {"dscp_prio = [\"af31\"]", "is not DSCP:PRIORITY"},
      {"dscp_prio = [\"26:3\", \"26:4\"]", "DSCP 26 mapped twice"},
      {"prio_tc = [0, 1, 2, 3, 4, 5, 6]", "expected 8 entries"},
      {"tc_bw = [50, 40, 0, 0, 0, 0, 0, 0]", "add up to 90, not 100"},
      {"pfc_prio = [3]", "unknown key"},
  };
  for (const auto& [line, why] : bad) {
    auto c =
        parse_node_file("[[roce]]\ndevice = \"mlx5_2\"\n[roce.dcb]\n" + line + "\n", "node.toml");
    ASSERT_FALSE(c.ok()) << line;
    EXPECT_THAT(c.error().message, HasSubstr("node.toml:4:")) << line;
    EXPECT_THAT(c.error().message, HasSubstr("roce[0].dcb")) << line;
    EXPECT_THAT(c.error().message, HasSubstr(why)) << line;
  }
}

TEST(DcbShow, ParsesWhatDcbPrints) {
  DcbState s;
  read_pfc("prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n", s);
  EXPECT_EQ(s.pfc, (std::vector<bool>{false, false, false, true, false, false, false, false}));
  read_ets(kEtsShow, s);
  EXPECT_EQ(s.prio_tc, (std::vector<int>{1, 0, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(s.tc_bw[7], 13);
  EXPECT_EQ(s.tc_tsa[0], "ets");
  read_app("dscp-prio 0:0 26:3\ndscp-prio 48:6 99:1 7:9\n", s);
  EXPECT_EQ(s.dscp_prio, (std::map<int, int>{{0, 0}, {26, 3}, {48, 6}}));
  read_apptrust("order: pcp dscp\n", s);
  EXPECT_EQ(s.trust, (std::vector<std::string>{"pcp", "dscp"}));
  DcbState junk;
  read_ets("tc-bw 9:1 x: :4 0:\nprio-tc\n", junk);  // never throws, keeps nothing bogus
  EXPECT_EQ(junk.tc_bw, std::vector<int>(8, -1));
}

class ScriptedDcb final : public CommandRunner {
 public:
  std::map<std::string, CommandResult> answers;  // argv[1] (or argv[2] after -N) -> result
  mutable std::vector<std::string> ran;
  CommandResult run(const std::vector<std::string>& argv) const override {
    std::string s;
    for (const auto& a : argv)
      s += (s.empty() ? "" : " ") + a;
    ran.push_back(s);
    auto it = answers.find(argv[1] == "-N" ? argv[2] : argv[1]);
    return it == answers.end() ? CommandResult{127, "dcb: not found"} : it->second;
  }
};

TEST(DcbShow, ToolAsksEachObjectAndSaysWhyAPartCannotBeRead) {
  ScriptedDcb run;
  run.answers["pfc"] = {0, kPfcShow};
  run.answers["ets"] = {1, "Attribute ets not supported: Operation not supported\n"};
  run.answers["app"] = {0, ""};
  run.answers["apptrust"] = {255, "Object \"apptrust\" is unknown, try \"dcb help\".\n"};
  DcbState s = DcbTool(run).read("eth2");
  EXPECT_THAT(
      run.ran,
      ElementsAre("dcb pfc show dev eth2 prio-pfc", "dcb ets show dev eth2 prio-tc tc-bw tc-tsa",
                  "dcb -N app show dev eth2 dscp-prio", "dcb apptrust show dev eth2 order"));
  EXPECT_EQ(s.pfc_unsupported, "");
  EXPECT_THAT(s.ets_unsupported, HasSubstr("the NIC driver has no DCB ETS support"));
  EXPECT_THAT(s.trust_unsupported, HasSubstr("iproute2 6.3 or later"));
  run.answers.clear();
  EXPECT_EQ(DcbTool(run).read("eth2").pfc_unsupported, "dcb (iproute2) is not installed");
}

// Plans [roce.dcb] against the fixture's mlx5_2 (RoCE on eth2) with `state` as dcb read it.
Plan plan_with(PlanRun& r, const std::optional<DcbState>& state) {
  Observed o = testing::observe_tree(r.tree);
  if (state) o.dcb["eth2"] = *state;
  r.observed = o;
  PlanContext ctx{r.config, r.observed, r.tree.fs(), r.kernel, Backend::kDirect, false};
  return make_plan(ctx);
}

std::vector<std::string> dcb_actions(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& a : p.actions)
    if (a.resource.rfind("dcb ", 0) == 0) out.push_back(a.resource + ": " + a.describe());
  return out;
}

std::vector<Verdict> dcb_verdicts(const Plan& p, PlanRun& r) {
  std::vector<Verdict> out;
  for (const auto& v : verify(p, r.observed, r.tree.fs()))
    if (v.resource.rfind("dcb ", 0) == 0) out.push_back(v);
  return out;
}

DcbState defaults() {
  DcbState s;
  read_pfc(kPfcShow, s);
  read_ets(kEtsShow, s);
  read_apptrust("order: pcp\n", s);
  return s;
}

TEST(DcbPlan, DifferencesBecomeDcbCommandsAndVerifyCallsThemDrift) {
  PlanRun r(kNode);
  Plan p = plan_with(r, defaults());
  EXPECT_THAT(
      dcb_actions(p),
      ElementsAre(
          "dcb eth2 pfc: run dcb pfc set dev eth2 prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off "
          "6:off 7:off",
          "dcb eth2 ets: run dcb ets set dev eth2 tc-tsa all:ets tc-bw 0:10 1:10 2:10 3:40 4:10 "
          "5:10 6:5 7:5 prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7",
          "dcb eth2 dscp: run dcb app replace dev eth2 dscp-prio 26:3 48:6",
          "dcb eth2 trust: run dcb apptrust set dev eth2 order dscp"));
  auto ets = std::find_if(p.actions.begin(), p.actions.end(),
                          [](const Action& a) { return a.resource == "dcb eth2 ets"; });
  EXPECT_EQ(ets->reason,
            "ETS shares 12,12,12,12,13,13,13,13, priority->TC 1,0,2,3,4,5,6,7 differ from the node "
            "file");
  EXPECT_EQ(verify_exit_code(dcb_verdicts(p, r)), 3);
}

TEST(DcbPlan, SettingsInForceAreOk) {
  PlanRun r(kNode);
  DcbState s = defaults();
  read_pfc("prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n", s);
  read_ets("tc-bw 0:10 1:10 2:10 3:40 4:10 5:10 6:5 7:5\nprio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7\n",
           s);
  read_app("dscp-prio 26:3 48:6\n", s);
  s.trust = {"dscp"};
  Plan p = plan_with(r, s);
  EXPECT_THAT(dcb_actions(p), ::testing::IsEmpty());
  for (const auto& v : verify(p, r.observed, r.tree.fs()))
    if (v.resource.rfind("dcb ", 0) == 0) {
      EXPECT_EQ(v.state, VerifyState::kOk) << v.resource;
    }
}

TEST(DcbPlan, WhatTheNicOrDcbCannotDoIsSkippedWithTheReasonNotAFailure) {
  PlanRun r(kNode);
  DcbState s = defaults();
  s.ets_unsupported = "the NIC driver has no DCB ETS support (Operation not supported)";
  s.trust_unsupported = "the installed dcb has no apptrust (iproute2 6.3 or later has it)";
  Plan p = plan_with(r, s);
  EXPECT_THAT(dcb_actions(p),
              ElementsAre(HasSubstr("dcb eth2 pfc: "), HasSubstr("dcb eth2 dscp: ")));
  ASSERT_EQ(p.skipped.size(), 2u);
  EXPECT_EQ(p.skipped[0].resource, "dcb eth2 ets");
  // Once PFC and the DSCP map are in place, the skipped parts do not make verify fail.
  read_pfc("prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n", s);
  read_app("dscp-prio 26:3 48:6\n", s);
  p = plan_with(r, s);
  std::vector<std::string> lines;
  for (const auto& v : dcb_verdicts(p, r))
    lines.push_back(v.resource + " " + std::string(state_name(v.state)));
  EXPECT_THAT(lines, ElementsAre("dcb eth2 pfc ok", "dcb eth2 ets skipped", "dcb eth2 dscp ok",
                                 "dcb eth2 trust skipped"));
  EXPECT_EQ(verify_exit_code(dcb_verdicts(p, r)), 0);
}

TEST(DcbPlan, ATreeHasNoNicToAsk) {
  PlanRun r("[[roce]]\ndevice = \"mlx5_2\"\n[roce.dcb]\npfc = [3]\n");
  Plan p = plan_with(r, std::nullopt);
  ASSERT_EQ(p.skipped.size(), 1u);
  EXPECT_EQ(p.skipped[0].reason, "DCB not read: a --root tree has no NIC to ask");
}

}  // namespace
}  // namespace ibsm::agent::dcb_test

namespace ibsm::agent::dcb_test {
namespace {

// Records every command; the DSCP map's `dcb app replace` fails.
class DcbKernel final : public Kernel {
 public:
  explicit DcbKernel(TreeKernel& tree) : tree_(tree) {}
  std::vector<std::string> ran;
  Status create_ipoib_child(const std::string&, const std::string&, std::uint16_t,
                            const std::string&) override {
    return {};
  }
  Status set_ipoib_mode(const std::string&, const std::string&) override { return {}; }
  Status set_mtu(const std::string&, int) override { return {}; }
  Status set_alias(const std::string&, const std::string&) override { return {}; }
  Status set_up(const std::string&) override { return {}; }
  Status delete_link(const std::string&) override { return {}; }
  std::vector<std::string> addresses(const std::string&) const override { return {}; }
  Status add_address(const std::string&, const std::string&) override { return {}; }
  Status add_rdma_link(const std::string&, const std::string&, const std::string&) override {
    return {};
  }
  Status load_module(const std::string&) override { return {}; }
  Status configfs_mkdir(const std::string& path) override { return tree_.configfs_mkdir(path); }
  Status run(const std::vector<std::string>& argv) override {
    std::string s;
    for (const auto& a : argv)
      s += (s.empty() ? "" : " ") + a;
    ran.push_back(s);
    if (s.rfind("dcb app replace", 0) == 0 && s.find("26:3") != std::string::npos)
      return fail(kCommandFailed, "dcb exited 1: Error: Invalid argument");
    return {};
  }

 private:
  TreeKernel& tree_;
};

TEST(DcbPlan, AFailedApplyPutsBackWhatDcbShowedBefore) {
  PlanRun r(kNode);
  DcbState s = defaults();
  s.dscp_prio = {{48, 2}};
  Plan p = plan_with(r, s);
  DcbKernel kernel(r.kernel);
  ApplyReport report = apply_plan(p, r.tree.fs(), kernel, {}, false);
  ASSERT_TRUE(report.error.has_value());
  EXPECT_EQ(report.error->id, kRolledBack) << report.error->message;
  std::vector<std::string> dcb;
  for (const auto& c : kernel.ran)
    if (c.rfind("dcb ", 0) == 0) dcb.push_back(c);
  EXPECT_THAT(dcb,
              ElementsAre("dcb pfc set dev eth2 prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off "
                          "7:off",
                          "dcb ets set dev eth2 tc-tsa all:ets tc-bw 0:10 1:10 2:10 3:40 4:10 5:10 "
                          "6:5 7:5 prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7",
                          "dcb app replace dev eth2 dscp-prio 26:3 48:6",
                          // the rollback, newest first, with the values dcb showed
                          "dcb ets set dev eth2 tc-tsa 0:ets 1:ets 2:ets 3:ets 4:ets 5:ets 6:ets "
                          "7:ets tc-bw 0:12 1:12 2:12 3:12 4:13 5:13 6:13 7:13 prio-tc 0:1 1:0 "
                          "2:2 3:3 4:4 5:5 6:6 7:7",
                          "dcb pfc set dev eth2 prio-pfc 0:off 1:off 2:off 3:off 4:off 5:off "
                          "6:off 7:off"));
  // The DSCP map's own undo (48 back to 2, 26 deleted) is not run: it never applied.
  EXPECT_EQ(p.actions.back().undo.size(), 1u);  // apptrust: back to "pcp"
  const Action* dscp = nullptr;
  for (const auto& a : p.actions)
    if (a.resource == "dcb eth2 dscp") dscp = &a;
  ASSERT_NE(dscp, nullptr);
  ASSERT_EQ(dscp->undo.size(), 2u);
  EXPECT_EQ(dscp->undo[0].back(), "48:2");
  EXPECT_EQ(dscp->undo[1][2], "del");
}

}  // namespace
}  // namespace ibsm::agent::dcb_test
