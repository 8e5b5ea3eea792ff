// Traps at the master: TrapFilter's counting (OpenSM's trap suppression, unhealthy and
// babbling ports) alone, then SubnetManager on a FakeFabric: a burst of traps costs one
// heavy sweep, sweep_on_trap FALSE costs none, a noisy port one, and
// babbling_port_policy disables a port that does not stop.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "mad/attr/notice.hpp"
#include "sm/subnet_manager.hpp"
#include "sm/traps/trap_filter.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/hand_drawn.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm::trap_filter_test {
namespace {

using mad::AttrId;
using mad::Method;
using mad::SmState;
using namespace std::chrono_literals;

mad::Notice port_error_trap(std::uint16_t number, mad::Lid lid, mad::PortNum port) {
  mad::Notice n;
  n.is_generic = true;
  n.type = 1;  // urgent
  n.producer_type = 2;
  n.trap_number = number;
  n.issuer_lid = lid;
  n.details[2] = static_cast<std::uint8_t>(lid >> 8);
  n.details[3] = static_cast<std::uint8_t>(lid);
  n.details[4] = port;
  return n;
}

mad::Notice link_trap(mad::Lid issuer) {
  mad::Notice n;
  n.is_generic = true;
  n.type = 4;
  n.producer_type = 2;
  n.trap_number = 128;
  n.issuer_lid = issuer;
  n.details[0] = static_cast<std::uint8_t>(issuer >> 8);
  n.details[1] = static_cast<std::uint8_t>(issuer);
  return n;
}

// Trap 145 (SystemImageGUID changed): a trap the master counts, unlike 128 and 144.
mad::Notice image_guid_trap(mad::Lid issuer) {
  mad::Notice n = link_trap(issuer);
  n.trap_number = 145;
  return n;
}

// ---------------------------------------------------------------- TrapFilter alone

TEST(TrapFilter, TheTenthIdenticalTrapIsIgnored) {
  TrapFilter f;
  Clock::TimePoint t{};
  const auto n = image_guid_trap(4);
  for (int i = 0; i < 10; ++i) {
    const auto v = f.admit(n, 4, t, false);
    EXPECT_FALSE(v.ignore) << i;
    EXPECT_EQ(v.repeats, static_cast<unsigned>(i));
    t += 1s;
  }
  EXPECT_TRUE(f.admit(n, 4, t, false).ignore);
  // Another notice from the same port is another trap.
  EXPECT_FALSE(f.admit(image_guid_trap(5), 4, t, false).ignore);
}

TEST(TrapFilter, CountsAgeOutAfterFiveQuietSeconds) {
  TrapFilter f;
  Clock::TimePoint t{};
  const auto n = image_guid_trap(4);
  for (int i = 0; i < 10; ++i)
    (void)f.admit(n, 4, t, false);
  EXPECT_TRUE(f.admit(n, 4, t + 4s, false).ignore);
  // 5 s after the last one: a fresh start.
  const auto v = f.admit(n, 4, t + 9s + 1ms, false);
  EXPECT_FALSE(v.ignore);
  EXPECT_EQ(v.repeats, 0u);
}

TEST(TrapFilter, PortErrorTrapsMarkThePortUnhealthyOnce) {
  TrapFilter f;
  Clock::TimePoint t{};
  const auto n = port_error_trap(129, 7, 3);
  int sweeps = 0;
  for (int i = 0; i < 100; ++i) {
    const auto v = f.admit(n, 7, t, false);
    sweeps += v.sweep;
    EXPECT_FALSE(v.disable_port);
    EXPECT_EQ(v.port_lid, 7);
    EXPECT_EQ(v.port_num, 3);
    t += 100ms;
  }
  EXPECT_EQ(sweeps, 1);
  EXPECT_EQ(f.unhealthy_ports(), 1u);
  // Unhealthy ports age out after 60 s, not 5.
  EXPECT_TRUE(f.admit(n, 7, t + 30s, false).ignore);
}

TEST(TrapFilter, BabblingPortIsDisabledAtTheThresholdOnlyWithThePolicy) {
  for (bool policy : {false, true}) {
    TrapFilter f;
    Clock::TimePoint t{};
    const auto n = port_error_trap(130, 7, 3);
    int disabled_at = -1;
    for (int i = 0; i < 300 && disabled_at < 0; ++i) {
      if (f.admit(n, 7, t, policy).disable_port) disabled_at = i;
      t += 10ms;
    }
    EXPECT_EQ(disabled_at, policy ? static_cast<int>(TrapFilter::kBabblingThreshold) : -1);
  }
}

TEST(TrapFilter, OnlyPortErrorTrapsAreDisabledForBabbling) {
  TrapFilter f;
  Clock::TimePoint t{};
  for (int i = 0; i < 300; ++i)
    EXPECT_FALSE(f.admit(image_guid_trap(4), 4, t, true).disable_port);
}

// ---------------------------------------------------------------- SubnetManager

// SM on "ha"; another SM can run on "hc" or "hd"; "hd" hangs off switch a's port 3.
constexpr std::string_view kFabric = testsupport::kTwoSwitchNet;

class TrapRig {
 public:
  TrapRig() {
    auto d = testsupport::parse_net(kFabric);
    if (!d.ok()) std::abort();
    desc = *d;
    fabric = std::make_unique<fake::FakeFabric>(desc, clock);
    options.cache_dir = dir.path() + "/cache";
    options.sweep_interval = 10;
  }
  void bring_up() {
    sm = std::make_unique<SubnetManager>(*fabric, clock, null_logger(), options);
    ASSERT_TRUE(run_until(
        [&] { return sm->state() == SmState::kMaster && fabric->inactive_ports().empty(); }));
    ASSERT_FALSE(run_until([] { return false; }, 1s));  // settled
  }
  bool run_until(const std::function<bool()>& done, Clock::Duration limit = 30s) {
    const auto deadline = clock.now() + limit;
    while (!done()) {
      if (clock.now() >= deadline) return false;
      (void)sm->step(control);
    }
    return true;
  }
  void inject(const mad::Notice& n, mad::Lid slid) {
    mad::Smp trap = mad::Smp::request(Method::kTrap, AttrId::kNotice, 0, mad::Lid{1}, next_tid_++);
    trap.set_attribute(n);
    fabric->inject(trap, slid);
  }
  std::uint64_t node_infos() const {
    return fabric->stats().count(Method::kGet, AttrId::kNodeInfo);
  }
  mad::Lid lid_of(const std::string& id) const {
    const auto& n = fabric->node(fabric->index(id));
    return n.ports[n.is_switch() ? 0 : 1].info.lid;
  }
  std::size_t trap_represses() const {
    std::size_t k = 0;
    for (const auto& r : fabric->sm_responses())
      k += r.method() == Method::kTrapRepress;
    return k;
  }

  FakeClock clock;
  testsupport::TempDir dir;
  testsupport::Fabric desc;
  std::unique_ptr<fake::FakeFabric> fabric;
  conf::Options options;
  ControlFlags control;
  std::unique_ptr<SubnetManager> sm;

 private:
  std::uint32_t next_tid_ = 0x7000;
};

// NodeInfo Gets one heavy sweep of the rig's fabric costs.
std::uint64_t per_sweep(TrapRig& rig) {
  const auto before = rig.node_infos();
  rig.sm->request_heavy_sweep(HeavyReason::kForced);
  EXPECT_TRUE(rig.run_until([&] { return rig.node_infos() > before; }));
  EXPECT_FALSE(rig.run_until([] { return false; }, 1s));
  return rig.node_infos() - before;
}

TEST(TrapsAtTheMaster, ABurstOfTrapsCostsOneHeavySweep) {
  TrapRig rig;
  rig.bring_up();
  const auto cost = per_sweep(rig);
  ASSERT_GT(cost, 0u);
  const auto before = rig.node_infos();
  // 50 traps from both switches and every port, all before the SM gets to sweep.
  for (int i = 0; i < 50; ++i)
    rig.inject(link_trap(static_cast<mad::Lid>(1 + i % 5)), rig.lid_of(i % 2 ? "a" : "b"));
  ASSERT_FALSE(rig.run_until([] { return false; }, 2s));
  EXPECT_EQ((rig.node_infos() - before) / cost, 1u);
  EXPECT_EQ(rig.trap_represses(), 50u) << "every trap is acknowledged";
}

TEST(TrapsAtTheMaster, SweepOnTrapFalseAcknowledgesWithoutSweeping) {
  TrapRig rig;
  rig.options.sweep_on_trap = false;
  rig.bring_up();
  const auto before = rig.node_infos();
  rig.inject(link_trap(rig.lid_of("a")), rig.lid_of("a"));
  ASSERT_FALSE(rig.run_until([] { return false; }, 2s));
  EXPECT_EQ(rig.node_infos(), before);
  EXPECT_EQ(rig.trap_represses(), 1u);
}

TEST(TrapsAtTheMaster, ANoisyPortCostsOneSweepNotOnePerTrap) {
  TrapRig rig;
  rig.bring_up();
  const auto cost = per_sweep(rig);
  const auto before = rig.node_infos();
  const mad::Lid a = rig.lid_of("a");
  for (int i = 0; i < 100; ++i) {
    rig.inject(port_error_trap(129, a, 3), a);
    ASSERT_FALSE(rig.run_until([] { return false; }, 50ms));
  }
  ASSERT_FALSE(rig.run_until([] { return false; }, 2s));
  EXPECT_EQ((rig.node_infos() - before) / cost, 1u);
  EXPECT_EQ(rig.trap_represses(), 100u);
  EXPECT_EQ(rig.fabric->node(rig.fabric->index("a")).ports[3].info.phys_state,
            mad::PhysState::kLinkUp)
      << "babbling_port_policy is off: the port stays up";
}

TEST(TrapsAtTheMaster, BabblingPortIsDisabledWithThePolicy) {
  TrapRig rig;
  rig.options.babbling_port_policy = true;
  rig.bring_up();
  const mad::Lid a = rig.lid_of("a");
  for (int i = 0; i < 260; ++i) {
    rig.inject(port_error_trap(129, a, 3), a);
    ASSERT_FALSE(rig.run_until([] { return false; }, 10ms));
  }
  ASSERT_FALSE(rig.run_until([] { return false; }, 2s));
  const auto& port = rig.fabric->node(rig.fabric->index("a")).ports[3];
  EXPECT_EQ(port.info.phys_state, mad::PhysState::kDisabled);
  EXPECT_EQ(port.info.port_state, mad::PortState::kDown);
  EXPECT_EQ(rig.fabric->node(rig.fabric->index("hd")).ports[1].info.port_state,
            mad::PortState::kDown)
      << "the link is down at the far end too";
  // The rest of the fabric stays up.
  EXPECT_EQ(rig.sm->state(), SmState::kMaster);
  EXPECT_EQ(rig.fabric->node(rig.fabric->index("hc")).ports[1].info.port_state,
            mad::PortState::kActive);
}

TEST(TrapsAtTheMaster, ForgedPortErrorTrapsDisableNothing) {
  TrapRig rig;
  rig.options.babbling_port_policy = true;
  rig.bring_up();
  const mad::Lid a = rig.lid_of("a");
  const mad::Lid hc = rig.lid_of("hc");
  // Host hc claims to be switch a's port 3, then names a LID nobody holds and a port
  // switch a does not have: 260 of each, as fast as it can.
  for (int i = 0; i < 260; ++i) {
    rig.inject(port_error_trap(129, a, 3), hc);
    rig.inject(port_error_trap(130, 0x2345, 1), hc);
    rig.inject(port_error_trap(131, a, 200), a);
    ASSERT_FALSE(rig.run_until([] { return false; }, 10ms));
  }
  ASSERT_FALSE(rig.run_until([] { return false; }, 2s));
  EXPECT_EQ(rig.trap_represses(), 3u * 260u) << "every trap is still acknowledged";
  EXPECT_EQ(rig.sm->state(), SmState::kMaster);
  EXPECT_TRUE(rig.fabric->inactive_ports().empty()) << "no port was disabled";
  const auto& port = rig.fabric->node(rig.fabric->index("a")).ports[3];
  EXPECT_EQ(port.info.phys_state, mad::PhysState::kLinkUp);
}

}  // namespace
}  // namespace ibsm::sm::trap_filter_test
