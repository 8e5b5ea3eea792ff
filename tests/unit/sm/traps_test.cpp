// sm/traps/ alone (no SubnetManager): TrapHandler on a FakeFabric's SMP client and a
// fabric model read by Discovery. Every trap is acknowledged with TrapRepress; the
// decision names the sweep a trap asks for (Trap 144 at most once per kSmTrapGap, the
// rest held back until take_deferred_sm_trap), whether a targeted sweep can serve it,
// and whether it goes to InformInfo subscribers; repeated traps are held back; with
// babbling_port_policy the port that keeps sending port-error traps is disabled on the
// wire, and forged ones (naming another node's port) disable nothing.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "mad/attr/notice.hpp"
#include "mad/smp_client.hpp"
#include "sm/discovery/discovery.hpp"
#include "sm/traps/trap_handler.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/hand_drawn.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"

namespace ibsm::sm::traps {
namespace {

using mad::AttrId;
using mad::Method;
using namespace std::chrono_literals;

mad::Notice generic_trap(std::uint16_t number, mad::Lid issuer) {
  mad::Notice n;
  n.is_generic = true;
  n.type = 4;
  n.producer_type = 2;
  n.trap_number = number;
  n.issuer_lid = issuer;
  n.details[0] = static_cast<std::uint8_t>(issuer >> 8);
  n.details[1] = static_cast<std::uint8_t>(issuer);
  return n;
}

// Trap 129-131 about `port` of the node with LID `lid`.
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

// kTwoSwitchNet (SM on "ha"; "hd" hangs off switch a's port 3) with LIDs in the fake
// ports, read into a model by Discovery as a heavy sweep would.
class Rig {
 public:
  Rig() {
    auto d = testsupport::parse_net(testsupport::kTwoSwitchNet);
    if (!d.ok()) std::abort();
    desc = *d;
    fabric = std::make_unique<fake::FakeFabric>(desc, clock);
    client = std::make_unique<mad::SmpClient>(*fabric, clock, null_logger(),
                                              mad::SmpClientSettings{4, 200ms, 1});
    mad::Lid next = 1;
    for (const char* id : {"a", "b", "ha", "hc", "hd"}) {
      auto& n = fabric->node(fabric->index(id));
      n.ports[n.is_switch() ? 0 : 1].info.lid = next++;
    }
    SweepReport report;
    Discovery discovery(model, *client, report, null_logger());
    discovery.start();
    drain();
    discovery.finish();
    EXPECT_TRUE(report.clean());
    // Ports keep the LIDs they report (what LID assignment leaves in the model).
    for (const auto& h : model.lid_holders()) {
      Port& p = model.node(h.node).ports[h.port];
      p.lid = p.info.lid;
    }
    options.sweep_on_trap = true;
  }
  void drain() {
    while (!client->idle())
      client->poll(100ms);
  }
  mad::Lid lid_of(const char* id) const {
    const auto& n = fabric->node(fabric->index(id));
    return n.ports[n.is_switch() ? 0 : 1].info.lid;
  }
  TrapDecision trap(const mad::Notice& n, mad::Lid slid, bool master = true) {
    mad::Smp smp = mad::Smp::request(Method::kTrap, AttrId::kNotice, 0, mad::Lid{1}, tid_++);
    smp.set_attribute(n);
    return handler.on_trap(smp, slid, {model, *client, options, clock.now(), master, 3});
  }
  std::size_t represses() const {
    std::size_t k = 0;
    for (const auto& r : fabric->sm_responses())
      k += r.method() == Method::kTrapRepress;
    return k;
  }
  const mad::PortInfo& port(const char* id, mad::PortNum p) const {
    return fabric->node(fabric->index(id)).ports[p].info;
  }

  FakeClock clock;
  testsupport::Fabric desc;
  std::unique_ptr<fake::FakeFabric> fabric;
  std::unique_ptr<mad::SmpClient> client;
  Fabric model;
  conf::Options options;
  std::ostringstream log_text;
  TrapHandler handler{testsupport::capture_log(log_text, "traps")};

 private:
  std::uint32_t tid_ = 0x7000;
};

TEST(TrapHandler, ANonMasterDropsTrapsWithoutAnAnswer) {
  Rig rig;
  const auto d = rig.trap(generic_trap(128, rig.lid_of("a")), rig.lid_of("a"), false);
  EXPECT_FALSE(d.admitted);
  EXPECT_EQ(d.sweep, TrapSweep::kNone);
  EXPECT_EQ(rig.represses(), 0u);
}

TEST(TrapHandler, LinkTrapAsksForASweepATargetedOneCanServe) {
  Rig rig;
  const auto d = rig.trap(generic_trap(128, rig.lid_of("b")), rig.lid_of("b"));
  EXPECT_EQ(rig.represses(), 1u);
  ASSERT_TRUE(d.admitted);
  EXPECT_EQ(d.admitted->trap_number, 128);
  EXPECT_EQ(d.sweep, TrapSweep::kTrap);
  EXPECT_FALSE(d.full_sweep);
  EXPECT_TRUE(d.forward);
  EXPECT_FALSE(d.security);
  // The log names the issuer by its node.
  EXPECT_NE(rig.log_text.str().find("trap 128 from LID 2 (b)"), std::string::npos)
      << rig.log_text.str();
}

TEST(TrapHandler, SystemImageTrapNeedsAFullSweep) {
  Rig rig;
  const auto d = rig.trap(generic_trap(145, rig.lid_of("b")), rig.lid_of("b"));
  EXPECT_EQ(d.sweep, TrapSweep::kTrap);
  EXPECT_TRUE(d.full_sweep);
}

TEST(TrapHandler, SweepOnTrapFalseAcknowledgesAndForwardsWithoutSweeping) {
  Rig rig;
  rig.options.sweep_on_trap = false;
  const auto d = rig.trap(generic_trap(128, rig.lid_of("b")), rig.lid_of("b"));
  EXPECT_EQ(rig.represses(), 1u);
  EXPECT_EQ(d.sweep, TrapSweep::kNone);
  EXPECT_TRUE(d.admitted);
  EXPECT_TRUE(d.forward);
}

TEST(TrapHandler, SmTrapsSweepAtMostOncePerGapAndTheHeldBackOneLater) {
  Rig rig;
  const mad::Lid hc = rig.lid_of("hc");
  EXPECT_EQ(rig.trap(generic_trap(144, hc), hc).sweep, TrapSweep::kSmTrap);
  rig.clock.advance(500ms);
  EXPECT_EQ(rig.trap(generic_trap(144, hc), hc).sweep, TrapSweep::kNone);
  EXPECT_EQ(rig.trap(generic_trap(144, hc), hc).sweep, TrapSweep::kNone);
  EXPECT_FALSE(rig.handler.take_deferred_sm_trap(rig.clock.now()));
  rig.clock.advance(1500ms);  // kSmTrapGap after the first
  EXPECT_TRUE(rig.handler.take_deferred_sm_trap(rig.clock.now()));
  EXPECT_FALSE(rig.handler.take_deferred_sm_trap(rig.clock.now() + 1h)) << "only once";
  // The held-back sweep counts as the last: the next 144 waits the gap again.
  EXPECT_EQ(rig.trap(generic_trap(144, hc), hc).sweep, TrapSweep::kNone);
  EXPECT_EQ(rig.represses(), 4u);
}

TEST(TrapHandler, RepeatedTrapsAreHeldBackAndSaidSoOnce) {
  Rig rig;
  const mad::Lid b = rig.lid_of("b");
  unsigned admitted = 0;
  for (int i = 0; i < 30; ++i)
    admitted += rig.trap(generic_trap(145, b), b).admitted.has_value();
  EXPECT_EQ(admitted, 10u);
  EXPECT_EQ(rig.represses(), 30u) << "every trap is still acknowledged";
  const std::string log = rig.log_text.str();
  EXPECT_NE(log.find("IBSM-2221: trap 145 from LID 2 (b) repeated 10 times"), std::string::npos)
      << log;
  EXPECT_EQ(log.find("IBSM-2221"), log.rfind("IBSM-2221")) << "once";
}

TEST(TrapHandler, RepeatedPortErrorTrapsSweepOnceAndAreNeverForwarded) {
  Rig rig;
  const mad::Lid a = rig.lid_of("a");
  unsigned admitted = 0;
  unsigned sweeps = 0;
  for (int i = 0; i < 30; ++i) {
    const auto d = rig.trap(port_error_trap(129, a, 3), a);
    admitted += d.admitted.has_value();
    sweeps += d.sweep == TrapSweep::kTrap;
    EXPECT_FALSE(d.forward);
    // The one that marks the port unhealthy asks for a full sweep to look at it.
    if (d.sweep == TrapSweep::kTrap) {
      EXPECT_TRUE(d.full_sweep);
    }
  }
  EXPECT_EQ(admitted, 11u);  // ten, and the one that marks the port unhealthy
  EXPECT_EQ(sweeps, 1u);
  EXPECT_EQ(rig.represses(), 30u);
}

TEST(TrapHandler, BabblingPortIsDisabledOnTheWireOnlyWithThePolicy) {
  for (const bool policy : {false, true}) {
    Rig rig;
    rig.options.babbling_port_policy = policy;
    const mad::Lid a = rig.lid_of("a");
    for (unsigned i = 0; i < 260; ++i)
      (void)rig.trap(port_error_trap(129, a, 3), a);
    rig.drain();
    // Switch a's port 3 is the end of the a-hd link nearer the SM (on ha).
    EXPECT_EQ(rig.port("a", 3).phys_state,
              policy ? mad::PhysState::kDisabled : mad::PhysState::kLinkUp)
        << policy;
    EXPECT_EQ(rig.log_text.str().find("IBSM-2220") != std::string::npos, policy);
  }
}

TEST(TrapHandler, ForgedPortErrorTrapsDisableNothing) {
  Rig rig;
  rig.options.babbling_port_policy = true;
  const mad::Lid a = rig.lid_of("a");
  const mad::Lid hc = rig.lid_of("hc");
  for (unsigned i = 0; i < 260; ++i) {
    (void)rig.trap(port_error_trap(129, a, 3), hc);       // about a, from hc
    (void)rig.trap(port_error_trap(130, 0x2345, 1), hc);  // about no such LID
  }
  rig.drain();
  EXPECT_EQ(rig.port("a", 3).phys_state, mad::PhysState::kLinkUp);
  EXPECT_EQ(rig.port("hd", 1).phys_state, mad::PhysState::kLinkUp);
  EXPECT_NE(rig.log_text.str().find("a node reports only its own ports"), std::string::npos);
  EXPECT_NE(rig.log_text.str().find("the SM knows no such port"), std::string::npos);
}

}  // namespace
}  // namespace ibsm::sm::traps
