// SIGHUP re-reads the configuration with OpenSM's rules.
#include "conf/reload.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "conf/errors.hpp"
#include "test_util.hpp"

namespace ibsm::conf {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

conf::Run start(const std::vector<std::string>& args) {
  auto r = testing::invoke(args);
  EXPECT_TRUE(r.ok());
  return std::get<conf::Run>(*r);
}

TEST(Reload, ChangedReloadableKeysAreApplied) {
  testing::TempDir dir;
  const auto file = dir.write("f.conf", "sm_priority 3\nsweep_interval 10\n");
  const conf::Run run = start({"-F", file});
  dir.write("f.conf", "sm_priority 5\nsweep_interval 10\n");
  auto r = reload_config(run.options, run.file_values, run.config_files);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->options.sm_priority, 5);
  EXPECT_THAT(r->changed, ElementsAre("sm_priority 3 -> 5"));
  EXPECT_TRUE(r->need_restart.empty());
}

TEST(Reload, RestartOnlyKeysAreReportedNotApplied) {
  testing::TempDir dir;
  const auto file = dir.write("f.conf", "lmc 0\n");
  const conf::Run run = start({"-F", file});
  dir.write("f.conf", "lmc 2\n");
  auto r = reload_config(run.options, run.file_values, run.config_files);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->options.lmc, 0);
  EXPECT_THAT(r->need_restart, ElementsAre("lmc 2"));
}

TEST(Reload, CommandLineOverrideSurvivesUntilTheLineChanges) {
  testing::TempDir dir;
  const auto file = dir.write("f.conf", "sm_priority 3\nsweep_interval 10\n");
  const conf::Run run = start({"-F", file, "-p", "9"});
  EXPECT_EQ(run.options.sm_priority, 9);
  dir.write("f.conf", "sm_priority 3\nsweep_interval 20\n");
  auto r1 = reload_config(run.options, run.file_values, run.config_files);
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(r1->options.sm_priority, 9);  // line unchanged: override kept
  EXPECT_EQ(r1->options.sweep_interval, 20u);
  dir.write("f.conf", "sm_priority 4\nsweep_interval 20\n");
  auto r2 = reload_config(r1->options, r1->file_values, run.config_files);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->options.sm_priority, 4);
}

TEST(Reload, BadValueLeavesEverythingAsItWas) {
  testing::TempDir dir;
  const auto file = dir.write("f.conf", "sm_priority 3\n");
  const conf::Run run = start({"-F", file});
  dir.write("f.conf", "sm_priority 30\n");
  auto r = reload_config(run.options, run.file_values, run.config_files);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kBadValue);
  EXPECT_THAT(r.error().message, HasSubstr(":1"));
}

}  // namespace
}  // namespace ibsm::conf
