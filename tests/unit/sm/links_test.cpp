// Link and port settings as a sweep component (sm/links/), without a SubnetManager: the
// PortInfo Sets a discovered FakeFabric gets for the Armed and Active passes, what the
// answers leave in the model, the M_Key round and its accepted keys, a targeted sweep's
// marked nodes, failures, ports that ignore fields, and the PortPolicy made from the
// options.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "sm/errors.hpp"
#include "sm/links/port_programmer.hpp"
#include "tests/unit/sm/component_rig.hpp"

namespace ibsm::sm::links {
namespace {

using mad::AttrId;
using mad::Method;
using mad::PortState;
using testrig::ComponentRig;

struct LinkRig : ComponentRig {
  explicit LinkRig(fake::FakeOptions fo = {}) : ComponentRig(testrig::two_switches(), fo) {
    discover();
    // LIDs as sm/lids would give them: in holder order from 1, the SM's port first.
    Lid next = 2;
    for (const auto& h : model.lid_holders()) {
      Port& p = model.node(h.node).ports[h.port];
      const bool sm = h.node == model.sm_node && h.port == model.sm_port;
      p.lid = sm ? 1 : next++;
    }
  }
  // One pass, drained; returns the PortInfo Sets it sent.
  std::uint64_t pass(PortState target, bool key_holders_only = false,
                     const std::vector<bool>* only = nullptr) {
    fabric->reset_stats();
    SweepContext c = ctx();
    c.sm_lid = 1;
    c.only_nodes = only;
    c.on_failure = [this](const mad::SmpOutcome&) { ++failures; };
    PortPass p;
    p.target = target;
    p.key_holders_only = key_holders_only;
    p.mkey = mkey;
    p.key_accepted = [this](Guid g, std::uint64_t k) { accepted[g] = k; };
    programmer.program(c, p);
    drain();
    return fabric->stats().count(Method::kSet, AttrId::kPortInfo);
  }
  mad::PortInfo fake_port(const std::string& id) const {
    const auto i = fabric->index(id);
    return fabric->port_info(i, fabric->node(i).is_switch() ? 0 : 1);
  }

  PortProgrammer programmer{log};
  mkey::MkeySettings mkey;
  std::map<Guid, std::uint64_t> accepted;
  int failures = 0;
};

TEST(PortProgrammer, ArmedThenActiveBringsEveryLinkUpWithTheModelsLids) {
  LinkRig rig;
  // Armed: each switch's port 0 and both ends of the four cables.
  EXPECT_EQ(rig.pass(PortState::kArmed), 2u + 2u * 4u);
  EXPECT_TRUE(rig.report.clean());
  for (const auto& id : {"s1", "s2", "h1", "h2", "h3"}) {
    const mad::PortInfo pi = rig.fake_port(id);
    EXPECT_EQ(pi.lid, rig.port(id).lid) << id;
    EXPECT_EQ(pi.master_sm_lid, 1) << id;
    // The GetResp of each Set went into the model.
    EXPECT_EQ(rig.port(id).info.lid, rig.port(id).lid) << id;
  }
  EXPECT_EQ(rig.port("h2").info.port_state, PortState::kArmed);
  EXPECT_FALSE(rig.fabric->inactive_ports().empty());
  // Active: both ends of every cable.
  EXPECT_EQ(rig.pass(PortState::kActive), 2u * 4u);
  EXPECT_TRUE(rig.fabric->inactive_ports().empty());
  EXPECT_EQ(rig.port("h2").info.port_state, PortState::kActive);
  // Nothing differs any more: nothing is sent.
  EXPECT_EQ(rig.pass(PortState::kActive), 0u);
  EXPECT_EQ(rig.failures, 0);
  EXPECT_TRUE(rig.accepted.empty());  // no M_Key managed
}

TEST(PortProgrammer, KeyRoundWritesKeyHoldersOnlyAndReportsEachAcceptedKey) {
  LinkRig rig;
  rig.mkey.m_key = 0x1234;
  rig.mkey.protect_bits = 1;
  rig.mkey.lease_period = 60;
  // Three CA ports and two switch ports 0; no switch external port.
  EXPECT_EQ(rig.pass(PortState::kArmed, true), 5u);
  ASSERT_EQ(rig.accepted.size(), 5u);
  for (const auto& id : {"s1", "s2", "h1", "h2", "h3"}) {
    EXPECT_EQ(rig.fake_port(id).m_key, 0x1234u) << id;
    EXPECT_EQ(rig.fake_port(id).m_key_protect_bits, 1) << id;
    EXPECT_EQ(rig.accepted.at(rig.port(id).guid), 0x1234u) << id;
  }
  EXPECT_EQ(rig.fabric->node(rig.fabric->index("s1")).ports[1].info.port_state, PortState::kInit);
}

TEST(PortProgrammer, ATargetedSweepProgramsOnlyTheMarkedNodes) {
  LinkRig rig;
  std::vector<bool> only(rig.model.size(), false);
  only[rig.model.find(rig.fabric->node(rig.fabric->index("h2")).info.node_guid)] = true;
  EXPECT_EQ(rig.pass(PortState::kArmed, false, &only), 1u);
  EXPECT_EQ(rig.fake_port("h2").lid, rig.port("h2").lid);
  EXPECT_EQ(rig.fake_port("h3").lid, 0);
}

TEST(PortProgrammer, ALostSetGoesToTheReportAndTheFailureHint) {
  LinkRig rig;
  rig.fabric->faults(rig.fabric->index("h3")).silent = true;
  rig.pass(PortState::kArmed);
  ASSERT_FALSE(rig.report.clean());
  for (const auto& e : rig.report.problems)
    EXPECT_EQ(e.id, kErrProgrammingFailed) << e.message;
  EXPECT_GE(rig.failures, 1);
  EXPECT_EQ(rig.fake_port("h2").lid, rig.port("h2").lid);  // the rest went on
}

TEST(PortProgrammer, PortsThatIgnoreLinkFieldsAreNotAskedAgainForThem) {
  fake::FakeOptions fo;
  fo.ignores_link_fields = true;  // as ibsim's ports
  LinkRig rig(fo);
  rig.pass(PortState::kArmed);
  rig.pass(PortState::kActive);
  EXPECT_GT(rig.programmer.untaken().size(), 0u);
  EXPECT_TRUE(rig.fabric->inactive_ports().empty());
  EXPECT_EQ(rig.pass(PortState::kActive), 0u);
}

TEST(PortPolicyFromOptions, TimersLinkSettingsReregistrationQosAndKey) {
  conf::Options o;
  o.subnet_timeout = 17;
  o.sm_sl = 3;
  o.max_op_vls = 2;
  o.force_link_width = 1;
  qos::QosConfig qos;
  PortPass pass;
  pass.qos = &qos;
  PortPolicy p = port_policy(o, 9, /*first_master_sweep=*/true, pass);
  EXPECT_EQ(p.sm_lid, 9);
  EXPECT_EQ(p.subnet_timeout, 17);
  EXPECT_EQ(p.master_sm_sl, 3);
  EXPECT_EQ(p.max_op_vls, 2);
  EXPECT_EQ(p.link.force_link_width, 1);
  EXPECT_EQ(p.qos, &qos);
  EXPECT_EQ(p.untaken, nullptr);
  EXPECT_TRUE(p.client_reregister);  // first sweep as master, Armed pass
  EXPECT_FALSE(p.mkey.has_value());  // m_key 0: ports keep what they hold
  EXPECT_FALSE(port_policy(o, 9, false, pass).client_reregister);
  pass.target = PortState::kActive;
  EXPECT_FALSE(port_policy(o, 9, true, pass).client_reregister);
  pass.target = PortState::kArmed;
  o.no_clients_rereg = true;
  EXPECT_FALSE(port_policy(o, 9, true, pass).client_reregister);
  pass.mkey.m_key = 0x99;
  pass.mkey.protect_bits = 2;
  pass.mkey.lease_period = 30;
  p = port_policy(o, 9, true, pass);
  ASSERT_TRUE(p.mkey.has_value());
  EXPECT_EQ(p.mkey->key, 0x99u);
  EXPECT_EQ(p.mkey->protect_bits, 2);
  EXPECT_EQ(p.mkey->lease_period, 30);
}

}  // namespace
}  // namespace ibsm::sm::links
