// sm/reroute/targeted_sweep alone (no SubnetManager): the targeted sweep on a FakeFabric's
// SMP client and a model read by Discovery. A lost inter-switch link comes back as the
// model without it and the nodes touched; a flag with nothing behind it as the flagged
// switches (whose flags clear_port_state_change then clears); a new node or an end
// port's change as a fall back; a drain that reports a stop as stopped. may_target is
// pure: each of its conditions alone says no.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <variant>

#include "mad/attr/switch_info.hpp"
#include "sm/reroute/targeted_sweep.hpp"
#include "tests/support/builders.hpp"
#include "tests/unit/sm/component_rig.hpp"

namespace ibsm::sm::reroute {
namespace {

using mad::AttrId;
using mad::Method;

// Four leaves with two hosts each (ports 1-2), two spines; leaf l's port 3 goes to
// spine0's port l+1, its port 4 to spine1's. The SM is on h0_1, behind leaf0.
struct TargetedRig : testrig::ComponentRig {
  TargetedRig() : ComponentRig(testsupport::two_level_fat_tree(4, 2, 2)) {
    discover();
    // As after a heavy sweep, whose SwitchInfo Sets clear the flags of the ports that
    // came up at power-on.
    for (std::uint32_t i = 0; i < fabric->size(); ++i)
      if (fabric->node(i).switch_info) fabric->node(i).switch_info->port_state_change = false;
  }

  std::uint32_t fake(const std::string& id) const { return fabric->index(id); }
  NodeIndex in_model(const std::string& id) const {
    return model.find(fabric->node(fabric->index(id)).info.node_guid);
  }
  TargetedOutcome run(HeavyReason why, bool late_trap = false) {
    fabric->reset_stats();
    return targeted_sweep({model, client, drained, why, late_trap});
  }

  void clear_port_state_change_of(const FlaggedSwitches& flagged) {
    clear_port_state_change(model, client, flagged);
    drain();
  }

  std::function<bool()> drained = [this] {
    drain();
    return true;
  };
};

constexpr PortNum kLeafToSpine0 = 3;

TEST(TargetedSweepComponent, LostInterSwitchLinkComesBackAsTheModelWithoutIt) {
  TargetedRig rig;
  // leaf1 was reached through spine0 (h0_1 - leaf0 - spine0 - leaf1): its directed route
  // crosses the lost link, so the sweep must find it another way.
  rig.fabric->set_link(rig.fake("leaf1"), kLeafToSpine0, false);
  const TargetedOutcome out = rig.run(HeavyReason::kPortStateChange);
  const auto* changed = std::get_if<targeted::LinkChanges>(&out);
  ASSERT_NE(changed, nullptr) << "outcome " << out.index();
  EXPECT_EQ(rig.fabric->stats().count(Method::kGet, AttrId::kNodeInfo), 0u) << "no rediscovery";
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet), 0u) << "it only reads";

  const NodeIndex leaf1 = rig.in_model("leaf1");
  const NodeIndex spine0 = rig.in_model("spine0");
  ASSERT_EQ(rig.model.node(leaf1).ports[kLeafToSpine0].peer, spine0) << "the last model keeps it";
  const Fabric& f = changed->fabric;
  EXPECT_EQ(f.node(leaf1).ports[kLeafToSpine0].peer, kNoNode);
  EXPECT_FALSE(f.node(leaf1).ports[kLeafToSpine0].link_up());
  EXPECT_EQ(f.node(spine0).ports[2].peer, kNoNode);  // spine0's port to leaf1
  EXPECT_FALSE(f.node(spine0).ports[2].link_up());
  // leaf1 gets a directed route that avoids the link (through spine1).
  EXPECT_NE(f.node(leaf1).path.port_at(2), rig.model.node(leaf1).path.port_at(2));

  ASSERT_EQ(changed->touched.size(), rig.model.size());
  for (NodeIndex i = 0; i < rig.model.size(); ++i)
    EXPECT_EQ(changed->touched[i], i == leaf1 || i == spine0) << rig.model.node(i).description;
  EXPECT_NE(changed->description.find("1 link down"), std::string::npos) << changed->description;
  EXPECT_NE(changed->description.find("leaf1"), std::string::npos) << changed->description;
}

TEST(TargetedSweepComponent, FlagWithNothingBehindItListsTheFlaggedSwitch) {
  TargetedRig rig;
  const std::uint32_t spine1 = rig.fake("spine1");
  rig.fabric->node(spine1).switch_info->port_state_change = true;

  const TargetedOutcome out = rig.run(HeavyReason::kPortStateChange);
  const auto* quiet = std::get_if<targeted::NoLinkChange>(&out);
  ASSERT_NE(quiet, nullptr) << "outcome " << out.index();
  ASSERT_EQ(quiet->flagged.size(), 1u);
  EXPECT_EQ(quiet->flagged.begin()->first, rig.in_model("spine1"));
  EXPECT_TRUE(quiet->flagged.begin()->second.port_state_change);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet), 0u);

  // Clearing writes the flag back (write 1 clears) and keeps the switch's answer.
  rig.clear_port_state_change_of(quiet->flagged);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kSwitchInfo), 1u);
  EXPECT_FALSE(rig.fabric->node(spine1).switch_info->port_state_change);
  EXPECT_FALSE(rig.model.node(rig.in_model("spine1")).switch_info->port_state_change);
}

TEST(TargetedSweepComponent, TrapWithNothingBehindItFallsBackUnlessItCameDuringASweep) {
  TargetedRig rig;
  const TargetedOutcome trap = rig.run(HeavyReason::kTrap);
  ASSERT_TRUE(std::holds_alternative<targeted::FallBack>(trap)) << "outcome " << trap.index();
  EXPECT_EQ(std::get<targeted::FallBack>(trap).reason, "no link change found");
  const TargetedOutcome lost = rig.run(HeavyReason::kLightSweepFailed);
  ASSERT_TRUE(std::holds_alternative<targeted::FallBack>(lost));
  EXPECT_EQ(std::get<targeted::FallBack>(lost).reason, "no link change found");
  EXPECT_TRUE(std::holds_alternative<targeted::NoLinkChange>(rig.run(HeavyReason::kTrap, true)));
}

TEST(TargetedSweepComponent, EndPortLinkDownFallsBack) {
  TargetedRig rig;
  rig.fabric->set_link(rig.fake("leaf2"), 1, false);  // h2_1's cable
  const TargetedOutcome out = rig.run(HeavyReason::kTrap);
  const auto* fb = std::get_if<targeted::FallBack>(&out);
  ASSERT_NE(fb, nullptr) << "outcome " << out.index();
  EXPECT_NE(fb->reason.find("end port link down at "), std::string::npos) << fb->reason;
}

TEST(TargetedSweepComponent, NodeTheModelDoesNotKnowFallsBack) {
  TargetedRig rig;
  // h3_2's cable is down when the model is read: nobody knows the host.
  const std::uint32_t leaf3 = rig.fake("leaf3");
  rig.fabric->set_link(leaf3, 2, false);
  rig.discover();
  rig.fabric->set_link(leaf3, 2, true);
  const TargetedOutcome out = rig.run(HeavyReason::kTrap);
  const auto* fb = std::get_if<targeted::FallBack>(&out);
  ASSERT_NE(fb, nullptr) << "outcome " << out.index();
  EXPECT_FALSE(fb->reason.empty());
  EXPECT_EQ(rig.fabric->stats().count(Method::kGet, AttrId::kNodeInfo), 1u) << "one probe";
}

TEST(TargetedSweepComponent, DrainThatReportsAStopStops) {
  TargetedRig rig;
  rig.fabric->set_link(rig.fake("leaf1"), kLeafToSpine0, false);
  int drains = 0;
  rig.drained = [&] {
    rig.drain();  // the answers are in before the component's locals go
    return ++drains < 2;
  };
  const TargetedOutcome out = rig.run(HeavyReason::kPortStateChange);
  EXPECT_TRUE(std::holds_alternative<targeted::Stopped>(out)) << "outcome " << out.index();
  EXPECT_EQ(drains, 2);
}

TEST(TargetedSweepComponent, MayTargetOnlyAMastersTrapOrPortChangeOnAKnownSubnet) {
  TargetedRig rig;
  const TargetConditions yes{HeavyReason::kTrap, false, mad::SmState::kMaster, true, false, false};
  EXPECT_TRUE(may_target(yes, rig.model));
  for (HeavyReason why : {HeavyReason::kPortStateChange, HeavyReason::kLightSweepFailed}) {
    TargetConditions c = yes;
    c.why = why;
    EXPECT_TRUE(may_target(c, rig.model)) << heavy_reason_name(why);
  }
  for (HeavyReason why : {HeavyReason::kNone, HeavyReason::kFirstSweep, HeavyReason::kForced,
                          HeavyReason::kErrorsLastSweep, HeavyReason::kElection,
                          HeavyReason::kNewMaster, HeavyReason::kSmTrap}) {
    TargetConditions c = yes;
    c.why = why;
    EXPECT_FALSE(may_target(c, rig.model)) << heavy_reason_name(why);
  }
  const std::vector<std::function<void(TargetConditions&)>> each_no = {
      [](TargetConditions& c) { c.full_sweep_trap = true; },
      [](TargetConditions& c) { c.state = mad::SmState::kStandby; },
      [](TargetConditions& c) { c.state = mad::SmState::kDiscovering; },
      [](TargetConditions& c) { c.first_master_sweep_done = false; },
      [](TargetConditions& c) { c.force_heavy_sweep = true; },
      [](TargetConditions& c) { c.takeover_pending = true; },
  };
  for (std::size_t k = 0; k < each_no.size(); ++k) {
    TargetConditions c = yes;
    each_no[k](c);
    EXPECT_FALSE(may_target(c, rig.model)) << "condition " << k;
  }
  EXPECT_FALSE(may_target(yes, Fabric{})) << "no model yet";
  Fabric no_sm = rig.model;
  no_sm.sm_node = kNoNode;
  EXPECT_FALSE(may_target(yes, no_sm)) << "a model without the SM's node";
}

}  // namespace
}  // namespace ibsm::sm::reroute
