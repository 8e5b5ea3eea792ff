// Link rules (sm/link_rules.hpp) and the PortInfo the SM wants on a port
// (sm/port_config): negotiation with the neighbour, next state, no Set when
// nothing differs.
#include <gtest/gtest.h>

#include "sm/link_rules.hpp"
#include "sm/port_config.hpp"

namespace ibsm::sm {
namespace {

using mad::PortState;

static_assert(neighbor_mtu(4, 5) == 4);
static_assert(operational_vls(4, 3, 5) == 3);
static_assert(next_state(PortState::kInit, PortState::kActive) == PortState::kArmed);

TEST(LinkRules, NeighborMtuIsTheSmallerCap) {
  EXPECT_EQ(neighbor_mtu(5, 5), 5);
  EXPECT_EQ(neighbor_mtu(5, 3), 3);
  EXPECT_EQ(neighbor_mtu(1, 5), 1);
}

TEST(LinkRules, OperationalVlsIsCappedByBothEndsAndMaxOpVls) {
  EXPECT_EQ(operational_vls(4, 4, 5), 4);
  EXPECT_EQ(operational_vls(5, 5, 5), 5);
  EXPECT_EQ(operational_vls(5, 5, 2), 2);
  EXPECT_EQ(operational_vls(3, 4, 5), 3);
  EXPECT_EQ(operational_vls(0, 4, 5), 1);  // a bogus cap of 0 still leaves VL0
}

TEST(LinkRules, NextStateRaisesOneStepAtATime) {
  EXPECT_EQ(next_state(PortState::kInit, PortState::kArmed), PortState::kArmed);
  EXPECT_EQ(next_state(PortState::kInit, PortState::kActive), PortState::kArmed);
  EXPECT_EQ(next_state(PortState::kArmed, PortState::kActive), PortState::kActive);
  // X -> X is an error in IBA; at or beyond the target nothing is sent.
  EXPECT_EQ(next_state(PortState::kArmed, PortState::kArmed), PortState::kNoChange);
  EXPECT_EQ(next_state(PortState::kActive, PortState::kActive), PortState::kNoChange);
  EXPECT_EQ(next_state(PortState::kActive, PortState::kArmed), PortState::kNoChange);
  // A down link cannot be raised by the SM.
  EXPECT_EQ(next_state(PortState::kDown, PortState::kActive), PortState::kNoChange);
  EXPECT_EQ(next_state(PortState::kNoChange, PortState::kActive), PortState::kNoChange);
}

// A hand-made model:  CA "a" port 1 -- switch "s" port 1; switch port 2 -- switch "t"
// port 3.
class PortConfigTest : public ::testing::Test {
 protected:
  PortConfigTest() {
    s = add(mad::NodeType::kSwitch, 4, 0x200);
    t = add(mad::NodeType::kSwitch, 4, 0x300);
    a = add(mad::NodeType::kCa, 1, 0x100);
    for (NodeIndex n : {s, t})
      for (PortNum p = 0; p <= 4; ++p)
        init_port(n, p, 5, 4);
    init_port(a, 1, 4, 3);
    fabric.link(a, 1, s, 1);
    fabric.link(s, 2, t, 3);
    fabric.node(a).ports[1].lid = 7;
    fabric.node(s).ports[0].lid = 2;
    policy.sm_lid = 1;
  }

  NodeIndex add(mad::NodeType type, std::uint8_t ports, mad::Guid guid) {
    mad::NodeInfo ni;
    ni.node_type = type;
    ni.num_ports = ports;
    ni.node_guid = guid;
    ni.port_guid = guid;
    return fabric.add_node(ni, mad::DrPath{});
  }

  void init_port(NodeIndex n, PortNum p, std::uint8_t mtu_cap, std::uint8_t vl_cap) {
    Port& port = fabric.node(n).ports[p];
    port.present = true;
    port.info.port_state = PortState::kInit;
    port.info.phys_state = mad::PhysState::kLinkUp;
    port.info.mtu_cap = mtu_cap;
    port.info.vl_cap = vl_cap;
    port.info.neighbor_mtu = 1;
    port.info.operational_vls = 1;
    port.info.gid_prefix = policy.subnet_prefix;
    port.info.subnet_timeout = policy.subnet_timeout;
    port.info.capability_mask = mad::kCapIsClientReregSupported;
  }

  // Makes (n, p) look as if `want` had been applied and the port reached `state`.
  void applied(NodeIndex n, PortNum p, const mad::PortInfo& want, PortState state) {
    mad::PortInfo& info = fabric.node(n).ports[p].info;
    const auto caps = std::pair{info.mtu_cap, info.vl_cap};
    info = want;
    info.mtu_cap = caps.first;
    info.vl_cap = caps.second;
    info.port_state = state;
    info.phys_state = mad::PhysState::kLinkUp;
    info.link_width_enabled = 3;
  }

  Fabric fabric;
  PortPolicy policy;
  NodeIndex s = 0, t = 0, a = 0;
};

TEST_F(PortConfigTest, CaPortGetsLidNegotiatedLinkAndArmed) {
  auto want = desired_port_info(fabric, a, 1, policy, PortState::kArmed);
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(want->lid, 7);
  EXPECT_EQ(want->master_sm_lid, 1);
  EXPECT_EQ(want->neighbor_mtu, 4);     // min(4, switch 5)
  EXPECT_EQ(want->operational_vls, 3);  // min(3, 4, max_op_vls 5)
  EXPECT_EQ(want->port_state, PortState::kArmed);
  EXPECT_EQ(want->phys_state, mad::PhysState::kNoChange);
  EXPECT_EQ(want->link_width_enabled, 0);  // "no change" encodings
  EXPECT_EQ(want->link_speed_enabled, 0);
  EXPECT_TRUE(want->client_reregister);  // a port seen for the first time (LID 0 -> 7)
  policy.no_clients_rereg = true;
  EXPECT_FALSE(desired_port_info(fabric, a, 1, policy, PortState::kArmed)->client_reregister);
}

TEST_F(PortConfigTest, NoSetWhenNothingDiffers) {
  auto want = desired_port_info(fabric, a, 1, policy, PortState::kArmed);
  ASSERT_TRUE(want.has_value());
  applied(a, 1, *want, PortState::kArmed);
  EXPECT_FALSE(desired_port_info(fabric, a, 1, policy, PortState::kArmed).has_value());
  // The Active pass only changes the state.
  auto active = desired_port_info(fabric, a, 1, policy, PortState::kActive);
  ASSERT_TRUE(active.has_value());
  EXPECT_EQ(active->port_state, PortState::kActive);
  EXPECT_EQ(active->lid, 7);
  applied(a, 1, *active, PortState::kActive);
  EXPECT_FALSE(desired_port_info(fabric, a, 1, policy, PortState::kActive).has_value());
}

TEST_F(PortConfigTest, WithoutMkeyConfiguredAReportedKeyIsClearedAsOpensmDoes) {
  auto want = desired_port_info(fabric, a, 1, policy, PortState::kArmed);
  ASSERT_TRUE(want.has_value());
  applied(a, 1, *want, PortState::kArmed);
  // A port reports a key, protection and lease nobody configured (another SM's, or a
  // garbled answer): the SM writes its own (none), not the port's back.
  mad::PortInfo& info = fabric.node(a).ports[1].info;
  info.m_key = 0xdeadbeef;
  info.m_key_protect_bits = 1;
  info.m_key_lease_period = 7;
  want = desired_port_info(fabric, a, 1, policy, PortState::kArmed);
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(want->m_key, 0u);
  EXPECT_EQ(want->m_key_protect_bits, 0);
  EXPECT_EQ(want->m_key_lease_period, 0);
}

TEST_F(PortConfigTest, ForceSendsEvenWhenNothingDiffers) {
  auto want = desired_port_info(fabric, a, 1, policy, PortState::kActive);
  applied(a, 1, *want, PortState::kActive);
  policy.force = true;
  auto forced = desired_port_info(fabric, a, 1, policy, PortState::kActive);
  ASSERT_TRUE(forced.has_value());
  EXPECT_EQ(forced->port_state, PortState::kNoChange);
}

TEST_F(PortConfigTest, ChangedLidOrSmLidIsSentAgain) {
  auto want = desired_port_info(fabric, a, 1, policy, PortState::kActive);
  applied(a, 1, *want, PortState::kActive);
  fabric.node(a).ports[1].lid = 9;
  auto again = desired_port_info(fabric, a, 1, policy, PortState::kActive);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->lid, 9);
  EXPECT_EQ(again->port_state, PortState::kNoChange);
  fabric.node(a).ports[1].lid = 7;
  policy.sm_lid = 3;
  EXPECT_TRUE(desired_port_info(fabric, a, 1, policy, PortState::kActive).has_value());
}

TEST_F(PortConfigTest, SmSlBecomesMasterSmSlAndAChangeIsSent) {
  auto want = desired_port_info(fabric, a, 1, policy, PortState::kActive);
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(want->master_sm_sl, 0);
  applied(a, 1, *want, PortState::kActive);
  policy.master_sm_sl = 5;  // opensm.conf sm_sl 5
  auto again = desired_port_info(fabric, a, 1, policy, PortState::kActive);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->master_sm_sl, 5);
}

TEST_F(PortConfigTest, MaxOpVlsCapsOperationalVls) {
  policy.max_op_vls = 2;
  EXPECT_EQ(desired_port_info(fabric, a, 1, policy, PortState::kArmed)->operational_vls, 2);
  EXPECT_EQ(desired_port_info(fabric, s, 2, policy, PortState::kArmed)->operational_vls, 2);
}

TEST_F(PortConfigTest, SwitchPortsUseLeafOrSpineTimers) {
  policy.head_of_queue_lifetime = 0x12;
  policy.leaf_head_of_queue_lifetime = 0x10;
  policy.vl_stall_count = 7;
  policy.leaf_vl_stall_count = 5;
  auto to_ca = desired_port_info(fabric, s, 1, policy, PortState::kArmed);
  auto to_switch = desired_port_info(fabric, s, 2, policy, PortState::kArmed);
  ASSERT_TRUE(to_ca && to_switch);
  EXPECT_EQ(to_ca->hoq_life, 0x10);
  EXPECT_EQ(to_ca->vl_stall_count, 5);
  EXPECT_EQ(to_switch->hoq_life, 0x12);
  EXPECT_EQ(to_switch->vl_stall_count, 7);
  EXPECT_EQ(to_switch->neighbor_mtu, 5);
  EXPECT_EQ(to_switch->operational_vls, 4);
  EXPECT_EQ(to_switch->lid, 0);  // external switch ports carry no LID of their own
}

TEST_F(PortConfigTest, SwitchPortZeroGetsLidButNoStateChange) {
  auto want = desired_port_info(fabric, s, 0, policy, PortState::kActive);
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(want->lid, 2);
  EXPECT_EQ(want->port_state, PortState::kNoChange);
}

TEST_F(PortConfigTest, DownOrAbsentPortsAreLeftAlone) {
  fabric.node(s).ports[3].info.port_state = PortState::kDown;
  EXPECT_FALSE(desired_port_info(fabric, s, 3, policy, PortState::kActive).has_value());
  fabric.node(t).ports[4].present = false;
  EXPECT_FALSE(desired_port_info(fabric, t, 4, policy, PortState::kActive).has_value());
}

TEST(ClientReregisterRule, FirstMasterSweepLidChangeOrAnotherMaster) {
  mad::PortInfo cur;
  cur.lid = 7;
  cur.master_sm_lid = 1;
  EXPECT_TRUE(wants_client_reregister(true, cur, 7, 1));
  EXPECT_FALSE(wants_client_reregister(false, cur, 7, 1));  // nothing moved
  EXPECT_TRUE(wants_client_reregister(false, cur, 9, 1));   // LID moves
  EXPECT_TRUE(wants_client_reregister(false, cur, 7, 3));   // it knew another master
  cur.lid = 0;
  cur.master_sm_lid = 0;
  EXPECT_TRUE(wants_client_reregister(false, cur, 7, 1));  // a port seen for the first time
}

TEST_F(PortConfigTest, LaterSweepsReregisterOnlyPortsWhoseLidMoved) {
  auto want = desired_port_info(fabric, a, 1, policy, PortState::kActive);
  applied(a, 1, *want, PortState::kActive);
  EXPECT_FALSE(desired_port_info(fabric, a, 1, policy, PortState::kArmed).has_value());
  fabric.node(a).ports[1].lid = 9;  // the LID manager moved it
  auto moved = desired_port_info(fabric, a, 1, policy, PortState::kArmed);
  ASSERT_TRUE(moved.has_value());
  EXPECT_TRUE(moved->client_reregister);
  EXPECT_EQ(moved->lid, 9);
}

TEST_F(PortConfigTest, ClientReregisterOnlyWhenAskedAndSupported) {
  policy.client_reregister = true;
  EXPECT_TRUE(desired_port_info(fabric, a, 1, policy, PortState::kArmed)->client_reregister);
  EXPECT_FALSE(desired_port_info(fabric, s, 0, policy, PortState::kArmed)->client_reregister);
  fabric.node(a).ports[1].info.capability_mask = 0;
  EXPECT_FALSE(desired_port_info(fabric, a, 1, policy, PortState::kArmed)->client_reregister);
  fabric.node(a).ports[1].info.capability_mask = mad::kCapIsClientReregSupported;
  policy.no_clients_rereg = true;
  EXPECT_FALSE(desired_port_info(fabric, a, 1, policy, PortState::kArmed)->client_reregister);
}

}  // namespace
}  // namespace ibsm::sm
