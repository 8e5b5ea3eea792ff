// HealthJudge (sm/health/health_judge.hpp) on plain inputs and a FakeClock: each
// condition at its threshold and one below, the action table's defaults, the rules
// on top of it (the SM's path, a host's only link, the isolation cap), clearing, and a
// port flapping every sweep costing one decision.
#include "sm/health/health_judge.hpp"

#include <gtest/gtest.h>

namespace ibsm::sm::health {
namespace {

using namespace std::chrono_literals;

PortFacts switch_port(PortNum n = 3, Guid guid = 0x100) {
  return PortFacts{
      .key = {guid, n}, .port_guid = guid, .kind = NodeKind::kSwitch, .node_name = "leaf-1"};
}
PortFacts host_port(Guid guid = 0x200) {
  return PortFacts{.key = {guid, 1},
                   .port_guid = guid + 1,
                   .kind = NodeKind::kCa,
                   .node_name = "host-1",
                   .sole_host_link = true};
}

struct Rig {
  FakeClock clock;
  HealthJudge judge{HealthConfig{}, clock};

  // One sweep in which `s` is the only port seen; the clock moves 10 s.
  Outcome sweep(const PortSweep& s) {
    clock.advance(10s);
    return judge.judge_sweep({s});
  }
  Outcome sweep_nothing() {
    clock.advance(10s);
    return judge.judge_sweep({});
  }
};

PortSweep flapped(PortFacts p) {
  return PortSweep{.port = std::move(p), .flapped = true};
}

// Sweeps until `hits` sweeps saw `hit` within `window` sweeps, the hits last.
Outcome hits_in_window(Rig& rig, const PortSweep& hit, unsigned hits, unsigned window) {
  const PortSweep clean{.port = hit.port};
  for (unsigned i = 0; i + hits < window; ++i)
    EXPECT_TRUE(rig.sweep(clean).empty());
  Outcome last;
  for (unsigned i = 0; i < hits; ++i) {
    last = rig.sweep(hit);
    if (i + 1 < hits) {
      EXPECT_TRUE(last.empty()) << "hit " << i + 1;
    }
  }
  return last;
}

TEST(HealthJudge, FlappingAtFiveOfThirtySweepsNotAtFour) {
  Rig rig;
  const auto out = hits_in_window(rig, flapped(switch_port()), 5, 30);
  ASSERT_EQ(out.unhealthy.size(), 1u);
  EXPECT_EQ(out.unhealthy[0].condition, Condition::kFlapping);
  EXPECT_EQ(out.unhealthy[0].action, Action::kReport);
  EXPECT_EQ(out.unhealthy[0].detail, "flapped in 5 of the last 30 sweeps");
  EXPECT_EQ(out.unhealthy[0].since, rig.clock.now());
}

TEST(HealthJudge, FlapsOlderThanTheWindowDoNotCount) {
  Rig rig;
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(rig.sweep(flapped(switch_port())).empty());
  for (int i = 0; i < 30; ++i)  // the four flaps leave the 30-sweep window
    EXPECT_TRUE(rig.sweep_nothing().empty());
  EXPECT_TRUE(rig.sweep(flapped(switch_port())).empty());  // 1 of 30, not 5
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(rig.sweep(flapped(switch_port())).empty());
  EXPECT_EQ(rig.sweep(flapped(switch_port())).unhealthy.size(), 1u);
}

TEST(HealthJudge, UnresponsiveAtFiveOfSevenNotAtFour) {
  Rig rig;
  const PortSweep hit{.port = switch_port(), .no_response = true};
  const PortSweep clean{.port = switch_port()};
  // Four of seven: hit, clean, hit, clean, hit, clean, hit.
  for (int i = 0; i < 7; ++i)
    EXPECT_TRUE(rig.sweep(i % 2 == 0 ? hit : clean).empty()) << i;
  // The next hit makes it 4 of the last 7 (the first hit left the window).
  EXPECT_TRUE(rig.sweep(hit).empty());
  // Five of the last seven.
  const auto out = rig.sweep(hit);
  ASSERT_EQ(out.unhealthy.size(), 1u);
  EXPECT_EQ(out.unhealthy[0].condition, Condition::kUnresponsive);
}

TEST(HealthJudge, SetErrorsAtFiveOfSevenAreIgnoredByDefault) {
  Rig rig;
  const PortSweep hit{.port = switch_port(), .set_failed = true};
  EXPECT_TRUE(hits_in_window(rig, hit, 5, 7).empty());  // hm_sw_seterr_action ignore
  EXPECT_TRUE(rig.judge.unhealthy_ports().empty());

  HealthConfig c;
  c.set_action(NodeKind::kSwitch, Condition::kSetErr, Action::kReport);
  Rig reporting;
  reporting.judge.set_config(c);
  const auto out = hits_in_window(reporting, hit, 5, 7);
  ASSERT_EQ(out.unhealthy.size(), 1u);
  EXPECT_EQ(out.unhealthy[0].condition, Condition::kSetErr);
}

// The programming's failed Sets join the sweep judge_sweep counted (the SM judges the
// discovery first, the Sets after): no extra sweep, and two hits in one sweep count once.
TEST(HealthJudge, SetErrorsOfTheSameSweepCountInIt) {
  HealthConfig c;
  c.set_action(NodeKind::kSwitch, Condition::kSetErr, Action::kReport);
  Rig rig;
  rig.judge.set_config(c);
  const PortSweep seen{.port = switch_port()};
  const PortSweep hit{.port = switch_port(), .set_failed = true};
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(rig.sweep(hit).empty()) << i;
    EXPECT_TRUE(rig.judge.judge_same_sweep({hit}).empty()) << i;  // still one sweep
  }
  // Two clean sweeps, then one whose Sets fail: 5 of the last 7.
  for (int i = 0; i < 2; ++i)
    EXPECT_TRUE(rig.sweep(seen).empty());
  EXPECT_TRUE(rig.sweep(seen).empty());
  const auto out = rig.judge.judge_same_sweep({hit});
  ASSERT_EQ(out.unhealthy.size(), 1u);
  EXPECT_EQ(out.unhealthy[0].condition, Condition::kSetErr);
  EXPECT_EQ(out.unhealthy[0].detail, "Sets failed in 5 of the last 7 sweeps");
}

TEST(HealthJudge, RebootsTenWithinNineHundredSecondsNotNine) {
  Rig rig;
  const PortSweep reboot{.port = host_port(), .rebooted = true};
  for (int i = 0; i < 9; ++i) {
    rig.clock.advance(80s);
    EXPECT_TRUE(rig.judge.judge_sweep({reboot}).empty()) << i;
  }
  rig.clock.advance(80s);  // the tenth, 720 s after the first
  const auto out = rig.judge.judge_sweep({reboot});
  ASSERT_EQ(out.unhealthy.size(), 1u);
  EXPECT_EQ(out.unhealthy[0].condition, Condition::kReboot);
}

TEST(HealthJudge, RebootsSpreadBeyondThePeriodDoNotCount) {
  Rig rig;
  const PortSweep reboot{.port = host_port(), .rebooted = true};
  for (int i = 0; i < 20; ++i) {
    rig.clock.advance(100s);  // 10 reboots span 900 s: the oldest has left the period
    EXPECT_TRUE(rig.judge.judge_sweep({reboot}).empty()) << i;
  }
}

TEST(HealthJudge, NoisyAtSixtyTrapsWithinNinetySecondsNotFiftyNine) {
  Rig rig;
  for (int i = 0; i < 59; ++i) {
    rig.clock.advance(1s);
    EXPECT_TRUE(rig.judge.on_trap(switch_port()).empty()) << i;
  }
  rig.clock.advance(1s);
  const auto out = rig.judge.on_trap(switch_port());
  ASSERT_EQ(out.unhealthy.size(), 1u);
  EXPECT_EQ(out.unhealthy[0].condition, Condition::kNoisy);
  // Unhealthy already: more traps decide nothing.
  for (int i = 0; i < 1000; ++i)
    EXPECT_TRUE(rig.judge.on_trap(switch_port()).empty());
}

TEST(HealthJudge, TrapsSlowerThanThePeriodAllowsAreNotNoisy) {
  Rig rig;
  for (int i = 0; i < 500; ++i) {
    rig.clock.advance(1600ms);  // 60 traps take 94.4 s
    EXPECT_TRUE(rig.judge.on_trap(switch_port()).empty()) << i;
  }
}

TEST(HealthJudge, IllegalAtTheFirstImpossibleAnswer) {
  Rig rig;
  const auto out = rig.sweep(PortSweep{.port = switch_port(), .illegal = 1});
  ASSERT_EQ(out.unhealthy.size(), 1u);
  EXPECT_EQ(out.unhealthy[0].condition, Condition::kIllegal);

  HealthConfig c;
  c.illegal = 3;
  Rig three;
  three.judge.set_config(c);
  EXPECT_TRUE(three.sweep(PortSweep{.port = switch_port(), .illegal = 2}).empty());
  EXPECT_TRUE(three.sweep_nothing().empty());
  EXPECT_EQ(three.sweep(PortSweep{.port = switch_port(), .illegal = 1}).unhealthy.size(), 1u);
}

TEST(HealthJudge, ErrorRateAtTheHourlyThresholdNotOneBelow) {
  Rig rig;
  const CounterDeltas below{.symbol_errors = 370, .elapsed = 180s};
  rig.clock.advance(180s);
  EXPECT_TRUE(rig.judge.on_counters(switch_port(), below).empty());
  rig.clock.advance(180s);
  const auto out = rig.judge.on_counters(switch_port(), {.symbol_errors = 1, .elapsed = 180s});
  ASSERT_EQ(out.unhealthy.size(), 1u);
  EXPECT_EQ(out.unhealthy[0].condition, Condition::kErrorRate);
  EXPECT_EQ(out.unhealthy[0].detail,
            "SymbolErrorCounter rose by 371 within an hour (threshold 371)");
}

TEST(HealthJudge, ErrorRateCountsOnlyTheLastHour) {
  Rig rig;
  for (int i = 0; i < 40; ++i) {
    rig.clock.advance(10min);  // 60 an hour: 360 within any hour, below 371
    EXPECT_TRUE(
        rig.judge.on_counters(switch_port(), {.symbol_errors = 60, .elapsed = 10min}).empty())
        << i;
  }
  // A delta over two hours counts its hourly share: 740 over 2 h is 370 an hour.
  Rig slow;
  slow.clock.advance(2h);
  EXPECT_TRUE(slow.judge.on_counters(switch_port(), {.symbol_errors = 740, .elapsed = 2h}).empty());
}

TEST(HealthJudge, EachCounterHasItsThreshold) {
  Rig rig;
  rig.clock.advance(180s);
  EXPECT_TRUE(rig.judge.on_counters(switch_port(1), {.link_downed = 9, .elapsed = 180s}).empty());
  EXPECT_EQ(
      rig.judge.on_counters(switch_port(2), {.link_downed = 10, .elapsed = 180s}).unhealthy.size(),
      1u);
  EXPECT_EQ(rig.judge.on_counters(switch_port(3), {.link_error_recovery = 10, .elapsed = 180s})
                .unhealthy.size(),
            1u);
  EXPECT_EQ(rig.judge.on_counters(switch_port(4), {.port_rcv_errors = 371, .elapsed = 180s})
                .unhealthy.size(),
            1u);
  HealthConfig off;
  off.error_rate.link_downed = 0;
  rig.judge.set_config(off);
  EXPECT_TRUE(
      rig.judge.on_counters(switch_port(5), {.link_downed = 1000, .elapsed = 180s}).empty());
}

TEST(HealthJudge, DefaultActionsByNodeKind) {
  const HealthConfig c;
  for (Condition cond : kAllConditions) {
    for (NodeKind k : {NodeKind::kCa, NodeKind::kSwitch}) {
      Action want = Action::kReport;
      if (cond == Condition::kSetErr) want = Action::kIgnore;
      if (cond == Condition::kManual && k == NodeKind::kSwitch) want = Action::kNoDiscover;
      EXPECT_EQ(c.action(k, cond), want) << condition_name(cond);
    }
  }
}

TEST(HealthJudge, TheActionComesFromTheNodeKindsRow) {
  HealthConfig c;
  c.set_action(NodeKind::kSwitch, Condition::kIllegal, Action::kDisable);
  c.set_action(NodeKind::kCa, Condition::kIllegal, Action::kNoDiscover);
  Rig rig;
  rig.judge.set_config(c);
  PortFacts host = host_port();
  host.sole_host_link = false;
  const auto out = rig.judge.judge_sweep(
      {PortSweep{.port = switch_port(), .illegal = 1}, PortSweep{.port = host, .illegal = 1}});
  ASSERT_EQ(out.unhealthy.size(), 2u);
  EXPECT_EQ(out.unhealthy[0].action, Action::kDisable);
  EXPECT_EQ(out.unhealthy[1].action, Action::kNoDiscover);
  EXPECT_EQ(out.unhealthy[1].downgrade, Downgrade::kNone);
}

HealthConfig isolating() {
  HealthConfig c;
  for (NodeKind k : {NodeKind::kCa, NodeKind::kSwitch})
    for (Condition cond : kAllConditions)
      c.set_action(k, cond, Action::kIsolate);
  return c;
}

TEST(HealthJudge, AHostsOnlyLinkIsReportedNotIsolated) {
  Rig rig;
  rig.judge.set_config(isolating());
  PortFacts facing_host = switch_port(7);
  facing_host.sole_host_link = true;  // the switch end of a single-ported host's link
  const auto out = rig.judge.judge_sweep({PortSweep{.port = host_port(), .illegal = 1},
                                          PortSweep{.port = facing_host, .illegal = 1},
                                          PortSweep{.port = switch_port(8), .illegal = 1}});
  ASSERT_EQ(out.unhealthy.size(), 3u);
  EXPECT_EQ(out.unhealthy[0].action, Action::kReport);
  EXPECT_EQ(out.unhealthy[0].asked, Action::kIsolate);
  EXPECT_EQ(out.unhealthy[0].downgrade, Downgrade::kSoleHostLink);
  EXPECT_EQ(out.unhealthy[1].action, Action::kReport);
  EXPECT_EQ(out.unhealthy[1].downgrade, Downgrade::kSoleHostLink);
  EXPECT_EQ(out.unhealthy[2].action, Action::kIsolate);
  EXPECT_EQ(rig.judge.isolated_count(), 1u);
}

TEST(HealthJudge, NothingIsDoneToTheSmsPortOrItsPath) {
  HealthConfig c = isolating();
  c.set_action(NodeKind::kSwitch, Condition::kIllegal, Action::kDisable);
  c.set_action(NodeKind::kCa, Condition::kIllegal, Action::kNoDiscover);
  Rig rig;
  rig.judge.set_config(c);
  PortFacts sm_port = host_port(0x900);
  sm_port.sole_host_link = false;
  rig.judge.set_protected_ports({sm_port.key, switch_port(1).key});
  const auto out = rig.judge.judge_sweep({PortSweep{.port = sm_port, .illegal = 1},
                                          PortSweep{.port = switch_port(1), .illegal = 1},
                                          PortSweep{.port = switch_port(2), .flapped = true}});
  ASSERT_EQ(out.unhealthy.size(), 2u);
  for (const Decision& d : out.unhealthy) {
    EXPECT_EQ(d.action, Action::kReport);
    EXPECT_EQ(d.downgrade, Downgrade::kProtected);
  }
  // A trap storm on the path is reported too.
  for (int i = 0; i < 59; ++i)
    rig.judge.on_trap(switch_port(9));
  rig.judge.set_protected_ports({switch_port(9).key});
  const auto noisy = rig.judge.on_trap(switch_port(9));
  ASSERT_EQ(noisy.unhealthy.size(), 1u);
  EXPECT_EQ(noisy.unhealthy[0].action, Action::kReport);
  EXPECT_EQ(noisy.unhealthy[0].downgrade, Downgrade::kProtected);
}

TEST(HealthJudge, PastTheIsolationCapPortsAreReported) {
  HealthConfig c = isolating();
  c.max_isolated = 2;
  Rig rig;
  rig.judge.set_config(c);
  std::vector<PortSweep> ports;
  for (PortNum n = 1; n <= 4; ++n)
    ports.push_back(PortSweep{.port = switch_port(n), .illegal = 1});
  const auto out = rig.judge.judge_sweep(ports);
  ASSERT_EQ(out.unhealthy.size(), 4u);
  EXPECT_EQ(out.unhealthy[0].action, Action::kIsolate);
  EXPECT_EQ(out.unhealthy[1].action, Action::kIsolate);
  EXPECT_EQ(out.unhealthy[2].action, Action::kReport);
  EXPECT_EQ(out.unhealthy[2].downgrade, Downgrade::kIsolationCap);
  EXPECT_EQ(out.unhealthy[3].downgrade, Downgrade::kIsolationCap);
  EXPECT_EQ(rig.judge.isolated_count(), 2u);
  // A cleared isolated port frees its place for the next one.
  EXPECT_TRUE(rig.judge.clear(switch_port(1).key));
  const auto next = rig.judge.judge_sweep({PortSweep{.port = switch_port(5), .illegal = 1}});
  ASSERT_EQ(next.unhealthy.size(), 1u);
  EXPECT_EQ(next.unhealthy[0].action, Action::kIsolate);

  c.max_isolated = 0;  // none at all
  Rig none;
  none.judge.set_config(c);
  const auto zero = none.judge.judge_sweep({PortSweep{.port = switch_port(1), .illegal = 1}});
  EXPECT_EQ(zero.unhealthy.at(0).downgrade, Downgrade::kIsolationCap);
}

TEST(HealthJudge, APortFlappingEverySweepCostsOneDecisionUntilCleared) {
  HealthConfig c = isolating();
  Rig rig;
  rig.judge.set_config(c);
  int decisions = 0;
  for (int i = 0; i < 300; ++i)  // ten windows of 30 sweeps
    decisions += static_cast<int>(rig.sweep(flapped(switch_port())).unhealthy.size());
  EXPECT_EQ(decisions, 1);
  ASSERT_EQ(rig.judge.unhealthy_ports().size(), 1u);
  EXPECT_EQ(rig.judge.unhealthy_ports()[0].action, Action::kIsolate);
}

TEST(HealthJudge, ClearingForgetsTheWindows) {
  Rig rig;
  for (int i = 0; i < 5; ++i)
    rig.sweep(flapped(switch_port()));
  ASSERT_EQ(rig.judge.unhealthy_ports().size(), 1u);
  EXPECT_TRUE(rig.judge.clear(switch_port().key));
  EXPECT_FALSE(rig.judge.clear(switch_port().key));  // not unhealthy any more
  EXPECT_TRUE(rig.judge.unhealthy_ports().empty());
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(rig.sweep(flapped(switch_port())).empty()) << i;
  EXPECT_EQ(rig.sweep(flapped(switch_port())).unhealthy.size(), 1u);
}

TEST(HealthJudge, ChecksOffJudgesNothing) {
  HealthConfig c;
  c.enabled = false;
  Rig rig;
  rig.judge.set_config(c);
  EXPECT_TRUE(rig.sweep(PortSweep{.port = switch_port(), .illegal = 5}).empty());
  for (int i = 0; i < 100; ++i)
    EXPECT_TRUE(rig.judge.on_trap(switch_port()).empty());
}

HealthPolicy policy(std::string_view text) {
  auto p = HealthPolicy::parse(text, "policy.conf");
  EXPECT_TRUE(p.ok()) << p.error().message;
  return p.ok() ? *p : HealthPolicy{};
}

TEST(HealthJudge, ManualPortsFromThePolicyAreDecidedWhenSeen) {
  Rig rig;
  EXPECT_TRUE(rig.judge.set_policy(policy("0x100 3 UNHEALTHY\n0x201 1 unhealthy\n")).empty());
  const auto out = rig.sweep(PortSweep{.port = switch_port()});
  ASSERT_EQ(out.unhealthy.size(), 1u);
  EXPECT_EQ(out.unhealthy[0].condition, Condition::kManual);
  EXPECT_EQ(out.unhealthy[0].action, Action::kNoDiscover);  // hm_sw_manual_action
  EXPECT_EQ(out.unhealthy[0].detail, "marked UNHEALTHY in policy.conf");
  // A CA port named by its port GUID (0x201 is host_port()'s).
  const auto host = rig.sweep(PortSweep{.port = host_port()});
  ASSERT_EQ(host.unhealthy.size(), 1u);
  EXPECT_EQ(host.unhealthy[0].action, Action::kReport);              // hm_ca_manual_action
  EXPECT_TRUE(rig.sweep(PortSweep{.port = switch_port()}).empty());  // once
}

TEST(HealthJudge, HealthyInThePolicyClearsOnReload) {
  Rig rig;
  for (int i = 0; i < 5; ++i)
    rig.sweep(flapped(switch_port()));
  rig.judge.set_policy(policy("0x200 1 UNHEALTHY\n"));
  rig.sweep(PortSweep{.port = host_port()});
  ASSERT_EQ(rig.judge.unhealthy_ports().size(), 2u);
  // The flapping port is marked HEALTHY; the manual one is no longer in the file.
  const auto out = rig.judge.set_policy(policy("0x100 3 HEALTHY\n"));
  ASSERT_EQ(out.healthy.size(), 2u);
  EXPECT_EQ(out.healthy[0], switch_port().key);
  EXPECT_EQ(out.healthy[1], host_port().key);
  EXPECT_TRUE(rig.judge.unhealthy_ports().empty());
}

TEST(HealthJudge, QuietPortsCostNoState) {
  Rig rig;
  std::vector<PortSweep> fabric;
  for (PortNum n = 1; n <= 36; ++n)
    fabric.push_back(PortSweep{.port = switch_port(n)});
  fabric[4].flapped = true;
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(rig.sweep_nothing().empty());
  rig.clock.advance(10s);
  EXPECT_TRUE(rig.judge.judge_sweep(fabric).empty());
  EXPECT_EQ(rig.judge.tracked_ports(), 1u);  // the port that flapped
  // 31 sweeps later the one flap has aged out of every window; so has its state, and
  // four more flaps are not enough.
  for (int i = 0; i < 32; ++i)
    rig.sweep_nothing();
  EXPECT_EQ(rig.judge.tracked_ports(), 0u);
  // PerfMgr reports every port; one that counted no errors costs nothing either.
  for (PortNum n = 1; n <= 36; ++n)
    EXPECT_TRUE(rig.judge.on_counters(switch_port(n), {.elapsed = 180s}).empty());
  EXPECT_EQ(rig.judge.tracked_ports(), 0u);
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(rig.sweep(flapped(switch_port(5))).empty());
}

}  // namespace
}  // namespace ibsm::sm::health
