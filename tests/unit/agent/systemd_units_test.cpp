// systemd/ibsm-agent*.service checked by systemd's own verifier: no warnings,
// no errors. ExecStart points at the built binary, since the installed path
// does not exist on a build machine and verify checks it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tree.hpp"

namespace ibsm::agent {
namespace {

struct Verified {
  int status;
  std::string output;
};

Verified systemd_verify(testing::Tree& t, const std::vector<std::string>& units) {
  std::string cmd = "cd " + t.root() + " && systemd-analyze verify --man=no";
  for (const auto& u : units)
    cmd += " ./" + u;
  cmd += " > out 2>&1";
  int rc = std::system(cmd.c_str());
  return {rc, t.read("/out")};
}

// The units as meson configured them (build/systemd/, beside build/agent/ibsm-agent),
// with the installed binary's path replaced by the built one for the verifier.
std::string configured_unit(const std::string& name) {
  std::string bin = IBSM_AGENT_BIN;
  std::string build = bin.substr(0, bin.rfind("/agent/"));
  std::ifstream in(build + "/systemd/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string installed_unit(const std::string& name) {
  std::string text = configured_unit(name);
  const std::string tail = "/ibsm-agent ";
  for (auto pos = text.find(tail); pos != std::string::npos; pos = text.find(tail, pos)) {
    auto start = text.rfind('=', pos) + 1;
    text.replace(start, pos + tail.size() - 1 - start, IBSM_AGENT_BIN);
    pos = start + std::string(IBSM_AGENT_BIN).size();
  }
  return text;
}

bool have_systemd_analyze() {
  return std::system("systemd-analyze --version >/dev/null 2>&1") == 0;
}

TEST(SystemdUnits, VerifyCleanly) {
  if (!have_systemd_analyze())
    GTEST_SKIP() << "systemd-analyze not available (apt install systemd)";
  testing::Tree t;
  std::vector<std::string> units{"ibsm-agent.service", "ibsm-agent-reapply.service",
                                 "ibsm-agent-ping-responder.service"};
  for (const auto& u : units) {
    std::string text = installed_unit(u);
    ASSERT_FALSE(text.empty()) << u;
    t.file("/" + u, text);
  }
  auto v = systemd_verify(t, units);
  EXPECT_EQ(v.status, 0) << v.output;
  EXPECT_EQ(v.output, "");
}

TEST(SystemdUnits, PathsComeFromMesonAndEachUnitDoesItsJob) {
  std::string watch = configured_unit("ibsm-agent.service");
  std::string reapply = configured_unit("ibsm-agent-reapply.service");
  ASSERT_FALSE(watch.empty());
  ASSERT_FALSE(reapply.empty());
  EXPECT_EQ(watch.find('@'), std::string::npos) << "unconfigured placeholder";
  EXPECT_EQ(reapply.find('@'), std::string::npos) << "unconfigured placeholder";
  EXPECT_THAT(watch, ::testing::HasSubstr("Type=notify\n"));
  EXPECT_THAT(watch, ::testing::HasSubstr("/ibsm-agent watch -c /"));
  EXPECT_THAT(watch, ::testing::HasSubstr("ExecReload=/bin/kill -HUP $MAINPID\n"));
  // At boot only the in-memory state: the network belongs to the network service.
  EXPECT_THAT(reapply, ::testing::HasSubstr("/ibsm-agent apply --runtime-only -c /"));
}

TEST(SystemdUnits, VerifierReportsAMistake) {
  if (!have_systemd_analyze())
    GTEST_SKIP() << "systemd-analyze not available (apt install systemd)";
  testing::Tree t;
  t.file("/bad.service",
         installed_unit("ibsm-agent.service") + "[Service]\nExecStartt=/bin/true\n");
  EXPECT_THAT(systemd_verify(t, {"bad.service"}).output, ::testing::HasSubstr("Unknown key"));
}

}  // namespace
}  // namespace ibsm::agent
