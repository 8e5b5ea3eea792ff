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

std::string installed_unit(const std::string& name) {
  std::ifstream in(std::string(IBSM_SOURCE_DIR) + "/systemd/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const std::string installed = "/usr/sbin/ibsm-agent";
  for (auto pos = text.find(installed); pos != std::string::npos; pos = text.find(installed, pos))
    text.replace(pos, installed.size(), IBSM_AGENT_BIN);
  return text;
}

bool have_systemd_analyze() {
  return std::system("systemd-analyze --version >/dev/null 2>&1") == 0;
}

TEST(SystemdUnits, VerifyCleanly) {
  if (!have_systemd_analyze())
    GTEST_SKIP() << "systemd-analyze not available (apt install systemd)";
  testing::Tree t;
  std::vector<std::string> units{"ibsm-agent.service", "ibsm-agent-reapply.service"};
  for (const auto& u : units) {
    std::string text = installed_unit(u);
    ASSERT_FALSE(text.empty()) << u;
    t.file("/" + u, text);
  }
  auto v = systemd_verify(t, units);
  EXPECT_EQ(v.status, 0) << v.output;
  EXPECT_EQ(v.output, "");
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
