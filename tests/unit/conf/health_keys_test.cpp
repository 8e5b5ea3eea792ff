// The fabric health keys (issue 35): NVIDIA's SM's hm_* keys, ibsm's error rate
// thresholds and the topology check's keys, rows of the one option table. Their
// defaults are NVIDIA's; a bad value (an action word that is not one of the five, a
// window over 31, a count of 0) is refused naming the place, the key and the value;
// they read and write through opensm.conf and TOML like every key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "conf/errors.hpp"
#include "conf/opensm_conf_reader.hpp"
#include "conf/opensm_conf_writer.hpp"
#include "conf/option_table.hpp"
#include "conf/option_value.hpp"
#include "conf/toml_reader.hpp"
#include "conf/toml_writer.hpp"

namespace ibsm::conf {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(HealthKeys, DefaultsAreNvidiasSm) {
  const Options o;
  EXPECT_TRUE(o.hm_unhealthy_ports_checks);
  EXPECT_EQ(o.hm_ports_health_policy_file, "");
  EXPECT_EQ(o.hm_num_reboots, 10u);
  EXPECT_EQ(o.hm_reboots_period_secs, 900u);
  EXPECT_EQ(o.hm_num_flapping_sweeps, 5);
  EXPECT_EQ(o.hm_num_flapping_sweeps_window, 30);
  EXPECT_EQ(o.hm_num_no_resp_sweeps, 5);
  EXPECT_EQ(o.hm_num_no_resp_sweeps_window, 7);
  EXPECT_EQ(o.hm_num_set_err_sweeps, 5);
  EXPECT_EQ(o.hm_num_set_err_sweeps_window, 7);
  EXPECT_EQ(o.hm_num_traps, 60u);
  EXPECT_EQ(o.hm_num_traps_period_secs, 90u);
  EXPECT_EQ(o.hm_num_illegal, 1u);
  EXPECT_EQ(o.hm_max_isolated_ports, 10u);
  EXPECT_EQ(o.topo_config_file, "");
  EXPECT_FALSE(o.topo_config_enabled);
}

TEST(HealthKeys, ActionDefaultsReportButSeterrIgnoreAndSwitchManualNoDiscover) {
  int rows = 0;
  for (const OptionRow& row : option_rows()) {
    const std::string key(row.key);
    if (!key.starts_with("hm_") || !key.ends_with("_action")) continue;
    ++rows;
    EXPECT_EQ(row.section, Section::kIbsm) << key;
    EXPECT_EQ(allowed_values(row), "ignore, report, isolate, no_discover, disable") << key;
    std::string want = "report";
    if (key.find("_seterr_") != std::string::npos) want = "ignore";
    if (key == "hm_sw_manual_action") want = "no_discover";
    EXPECT_EQ(format_default(row), want) << key;
  }
  EXPECT_EQ(rows,
            16);  // {ca,sw} x {reboot,unresponsive,noisy,seterr,flapping,illegal,manual,error_rate}
}

TEST(HealthKeys, UnknownActionWordNamesFileLineKeyAndValue) {
  Options o;
  auto r = apply_opensm_conf("hm_sw_flapping_action shutdown\n", "opensm.conf", o, false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kBadValue);
  EXPECT_THAT(r.error().message,
              AllOf(StartsWith("opensm.conf:1: "), HasSubstr("hm_sw_flapping_action"),
                    HasSubstr("'shutdown'"), HasSubstr("no_discover")));
  EXPECT_EQ(o.hm_sw_flapping_action, "report");
}

TEST(HealthKeys, WindowOverThirtyOneAndZeroCountsAreRefused) {
  for (const char* line : {"hm_num_flapping_sweeps_window 32", "hm_num_no_resp_sweeps_window 40",
                           "hm_num_set_err_sweeps 0", "hm_num_flapping_sweeps 0",
                           "hm_num_reboots 0", "hm_reboots_period_secs 0", "hm_num_traps 0",
                           "hm_num_traps_period_secs 0", "hm_num_illegal 0"}) {
    Options o;
    auto r = apply_opensm_conf(std::string(line) + "\n", "f.conf", o, false);
    ASSERT_FALSE(r.ok()) << line;
    EXPECT_EQ(r.error().id, kBadValue) << line;
    const std::string key(std::string_view(line).substr(0, std::string_view(line).find(' ')));
    EXPECT_THAT(r.error().message, AllOf(StartsWith("f.conf:1: "), HasSubstr(key))) << line;
  }
}

TEST(HealthKeys, ZeroIsAllowedWhereItMeansOff) {
  Options o;
  auto r = apply_opensm_conf("hm_max_isolated_ports 0\nhm_symbol_errors_per_hour 0\n", "f.conf", o,
                             false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(o.hm_max_isolated_ports, 0u);
  EXPECT_EQ(o.hm_symbol_errors_per_hour, 0u);
}

Options changed() {
  Options o;
  o.hm_unhealthy_ports_checks = false;
  o.hm_ports_health_policy_file = "/etc/opensm/health-policy.conf";
  o.hm_num_flapping_sweeps = 3;
  o.hm_num_flapping_sweeps_window = 31;
  o.hm_sw_flapping_action = "isolate";
  o.hm_ca_noisy_action = "disable";
  o.hm_sw_unresponsive_action = "no_discover";
  o.hm_ca_reboot_action = "ignore";
  o.hm_max_isolated_ports = 4;
  o.hm_link_downed_per_hour = 3;
  o.topo_config_file = "/etc/opensm/topo.csv";
  o.topo_config_enabled = true;
  return o;
}

TEST(HealthKeys, OpensmConfRoundTrip) {
  const Options o = changed();
  const std::string text = write_opensm_conf(o);
  EXPECT_NE(text.find("\n#ibsm: hm_sw_flapping_action isolate\n"), std::string::npos);
  Options back;
  auto r = apply_opensm_conf(text, "written", back, true);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(back, o);
}

TEST(HealthKeys, TomlRoundTrip) {
  const Options o = changed();
  Options back;
  auto r = apply_toml(write_toml(o), "ibsm.toml", back);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(back, o);
}

TEST(HealthKeys, TomlBadActionNamesPositionAndKey) {
  Options o;
  auto r = apply_toml("[ibsm]\nhm_ca_manual_action = \"remove\"\n", "ibsm.toml", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kBadValue);
  EXPECT_THAT(r.error().message, AllOf(StartsWith("ibsm.toml:2:"), HasSubstr("hm_ca_manual_action"),
                                       HasSubstr("'remove'")));
}

}  // namespace
}  // namespace ibsm::conf
