// The health policy file (sm/health/policy_file.hpp): NVIDIA's `GUID PORT
// HEALTHY|UNHEALTHY` lines, errors with file:line and a stable ID, the last good
// policy kept when a reload is refused; the dump file's text
// (sm/health/unhealthy_dump.hpp); and the hm_* keys read into a HealthConfig.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "sm/health/errors.hpp"
#include "sm/health/health_config.hpp"
#include "sm/health/policy_file.hpp"
#include "sm/health/unhealthy_dump.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm::health {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace std::chrono_literals;

TEST(HealthPolicy, ReadsNvidiasLines) {
  auto p = HealthPolicy::parse(
      "# manual list\n"
      "\n"
      "0x0002c90300a1b2c3 12 UNHEALTHY\n"
      "  0002C90300A1B2C4\t1 healthy   # back in service\n"
      "0x1 0 Unhealthy\n",
      "health.conf");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->entries().size(), 3u);
  EXPECT_EQ(p->entries()[0].guid, 0x0002c90300a1b2c3u);
  EXPECT_EQ(p->entries()[0].port, 12);
  EXPECT_EQ(p->entries()[0].line, 3u);
  EXPECT_EQ(p->find(0x0002c90300a1b2c3u, 0, 12), PortHealth::kUnhealthy);
  EXPECT_EQ(p->find(0x0002c90300a1b2c4u, 0, 1), PortHealth::kHealthy);
  EXPECT_EQ(p->find(0x99, 0x1, 0), PortHealth::kUnhealthy);  // by the port's own GUID
  EXPECT_EQ(p->find(0x0002c90300a1b2c3u, 0, 11), std::nullopt);
}

TEST(HealthPolicy, SyntaxErrorsNameFileAndLine) {
  const struct {
    const char* text;
    const char* why;
    int line;
  } cases[] = {
      {"0x10 1\n", "2 fields", 1},
      {"# ok\n0x10 1 UNHEALTHY extra\n", "4 fields", 2},
      {"\n\n0xg0 1 UNHEALTHY\n", "'0xg0' is not a GUID", 3},
      {"0x10000000000000000 1 HEALTHY\n", "is not a GUID", 1},
      {"0x10 255 HEALTHY\n", "'255' is not a port number", 1},
      {"0x10 -1 HEALTHY\n", "'-1' is not a port number", 1},
      {"0x10 1 SICK\n", "'SICK' is neither HEALTHY nor UNHEALTHY", 1},
      {"0x10 1 HEALTHY\n0x10 2 HEALTHY\n0x10 1 UNHEALTHY\n", "HEALTHY and UNHEALTHY (line 1)", 3},
  };
  for (const auto& c : cases) {
    auto p = HealthPolicy::parse(c.text, "/etc/opensm/health.conf");
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_EQ(p.error().id, kErrHealthPolicySyntax) << c.text;
    EXPECT_THAT(p.error().message,
                StartsWith("/etc/opensm/health.conf:" + std::to_string(c.line) + ": "))
        << c.text;
    EXPECT_THAT(p.error().message, HasSubstr(c.why)) << c.text;
  }
  // The same word twice is no contradiction.
  EXPECT_TRUE(HealthPolicy::parse("0x10 1 HEALTHY\n0x10 1 healthy\n", "f").ok());
}

// A fabric of one 36-port switch (0x100) and a host (node 0x200, port GUID 0x201).
std::optional<unsigned> num_ports(Guid g) {
  if (g == 0x100) return 36;
  if (g == 0x200 || g == 0x201) return 1;
  return std::nullopt;
}

TEST(HealthPolicy, UnknownGuidsAndImpossiblePortsNameFileAndLine) {
  auto p =
      HealthPolicy::parse("0x100 36 UNHEALTHY\n0x201 1 HEALTHY\n0x300 1 UNHEALTHY\n", "h.conf");
  ASSERT_TRUE(p.ok());
  auto r = p->check_ports(num_ports);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kErrHealthPolicyUnknownPort);
  EXPECT_THAT(r.error().message, StartsWith("h.conf:3: no node has GUID 0x0000000000000300"));

  auto q = HealthPolicy::parse("0x100 37 UNHEALTHY\n", "h.conf");
  ASSERT_TRUE(q.ok());
  auto s = q->check_ports(num_ports);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().id, kErrHealthPolicyUnknownPort);
  EXPECT_THAT(s.error().message, StartsWith("h.conf:1: 0x0000000000000100 has ports 0-36, not 37"));
}

TEST(HealthPolicy, ARefusedReloadKeepsTheLastGoodPolicy) {
  testsupport::TempDir dir;
  const std::string path = dir.path() + "/health.conf";
  const auto write = [&](std::string_view text) { std::ofstream(path) << text; };

  write("0x100 3 UNHEALTHY\n");
  auto first = reload_policy(path, num_ports, HealthPolicy{});
  ASSERT_FALSE(first.error) << first.error->message;
  ASSERT_EQ(first.policy.entries().size(), 1u);

  write("0x100 3 UNHEALTHY\n0x100 4 broken\n");
  auto bad = reload_policy(path, num_ports, first.policy);
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->id, kErrHealthPolicySyntax);
  EXPECT_THAT(bad.error->message, StartsWith(path + ":2: "));
  EXPECT_EQ(bad.policy.find(0x100, 0x100, 3), PortHealth::kUnhealthy);  // kept

  write("0x777 1 UNHEALTHY\n");
  auto unknown = reload_policy(path, num_ports, first.policy);
  ASSERT_TRUE(unknown.error);
  EXPECT_EQ(unknown.error->id, kErrHealthPolicyUnknownPort);
  EXPECT_EQ(unknown.policy.entries().size(), 1u);

  auto missing = reload_policy(dir.path() + "/none.conf", num_ports, first.policy);
  ASSERT_TRUE(missing.error);
  EXPECT_EQ(missing.error->id, kErrHealthPolicyUnreadable);
  EXPECT_EQ(missing.policy.entries().size(), 1u);

  auto unset = reload_policy("", num_ports, first.policy);
  EXPECT_FALSE(unset.error);
  EXPECT_TRUE(unset.policy.entries().empty());
}

TEST(UnhealthyDump, OnePortALine) {
  const WallAnchor anchor{Clock::TimePoint(1000s),
                          std::chrono::system_clock::time_point(1796683200s)};  // 2026-12-07T22:40Z
  Decision a;
  a.port = PortFacts{.key = {0x0002c90300a1b2c3, 12}, .node_name = "leaf-01"};
  a.condition = Condition::kFlapping;
  a.action = Action::kIsolate;
  a.since = Clock::TimePoint(1005s);
  Decision b;
  b.port = PortFacts{.key = {0x200, 1}, .node_name = "host \"b\" mlx5_0"};
  b.condition = Condition::kErrorRate;
  b.action = Action::kReport;
  b.since = Clock::TimePoint(400s);
  EXPECT_EQ(format_unhealthy_dump({a, b}, anchor),
            "# ibsm unhealthy ports: GUID PORT \"NODE NAME\" CONDITION ACTION SINCE\n"
            "0x0002c90300a1b2c3 12 \"leaf-01\" flapping isolate 2026-12-07T22:40:05Z\n"
            "0x0000000000000200 1 \"host \\\"b\\\" mlx5_0\" error_rate report "
            "2026-12-07T22:30:00Z\n");
  EXPECT_EQ(format_unhealthy_dump({}, anchor),
            "# ibsm unhealthy ports: GUID PORT \"NODE NAME\" CONDITION ACTION SINCE\n");
}

TEST(HealthConfigFromOptions, ReadsEveryKey) {
  conf::Options o;
  o.hm_unhealthy_ports_checks = false;
  o.hm_num_reboots = 3;
  o.hm_reboots_period_secs = 60;
  o.hm_num_flapping_sweeps = 2;
  o.hm_num_flapping_sweeps_window = 4;
  o.hm_num_traps = 7;
  o.hm_num_traps_period_secs = 8;
  o.hm_num_illegal = 2;
  o.hm_max_isolated_ports = 1;
  o.hm_symbol_errors_per_hour = 5;
  o.hm_sw_flapping_action = "isolate";
  o.hm_ca_noisy_action = "disable";
  o.hm_sw_error_rate_action = "no_discover";
  const auto r = health_config_from(o);
  EXPECT_TRUE(r.warnings.empty());
  const HealthConfig& c = r.config;
  EXPECT_FALSE(c.enabled);
  EXPECT_EQ(c.reboots.count, 3u);
  EXPECT_EQ(c.reboots.period, 60s);
  EXPECT_EQ(c.flapping.count, 2u);
  EXPECT_EQ(c.flapping.window, 4u);
  EXPECT_EQ(c.unresponsive.count, 5u);
  EXPECT_EQ(c.traps.count, 7u);
  EXPECT_EQ(c.traps.period, 8s);
  EXPECT_EQ(c.illegal, 2u);
  EXPECT_EQ(c.max_isolated, 1u);
  EXPECT_EQ(c.error_rate.symbol_errors, 5u);
  EXPECT_EQ(c.error_rate.link_downed, 10u);
  EXPECT_EQ(c.action(NodeKind::kSwitch, Condition::kFlapping), Action::kIsolate);
  EXPECT_EQ(c.action(NodeKind::kCa, Condition::kFlapping), Action::kReport);
  EXPECT_EQ(c.action(NodeKind::kCa, Condition::kNoisy), Action::kDisable);
  EXPECT_EQ(c.action(NodeKind::kSwitch, Condition::kErrorRate), Action::kNoDiscover);
  EXPECT_EQ(c.action(NodeKind::kSwitch, Condition::kManual), Action::kNoDiscover);
  EXPECT_EQ(c.action(NodeKind::kCa, Condition::kSetErr), Action::kIgnore);
}

TEST(HealthConfigFromOptions, DefaultOptionsGiveTheDefaultConfig) {
  const auto r = health_config_from(conf::Options{});
  EXPECT_TRUE(r.warnings.empty());
  const HealthConfig d;
  EXPECT_EQ(r.config.actions, d.actions);
  EXPECT_EQ(r.config.flapping.count, d.flapping.count);
  EXPECT_EQ(r.config.flapping.window, d.flapping.window);
  EXPECT_EQ(r.config.error_rate.symbol_errors, d.error_rate.symbol_errors);
  EXPECT_EQ(r.config.error_rate.port_rcv_errors, d.error_rate.port_rcv_errors);
}

TEST(HealthConfigFromOptions, ACountAboveItsWindowIsWarnedAndCapped) {
  conf::Options o;
  o.hm_num_no_resp_sweeps = 9;
  o.hm_num_no_resp_sweeps_window = 7;
  const auto r = health_config_from(o);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_THAT(r.warnings[0], StartsWith("IBSM-2805: hm_num_no_resp_sweeps 9 is more than "
                                        "hm_num_no_resp_sweeps_window 7"));
  EXPECT_EQ(r.config.unresponsive.count, 7u);
}

}  // namespace
}  // namespace ibsm::sm::health
