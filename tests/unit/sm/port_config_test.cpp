// Link rules (sm/links/link_rules.hpp) and the PortInfo the SM wants on a port
// (sm/port_config): negotiation with the neighbour, next state, the opensm.conf
// link keys (force_link_*, error thresholds), no Set when nothing differs.
#include <gtest/gtest.h>

#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include "sm/links/link_rules.hpp"
#include "sm/links/link_settings.hpp"
#include "sm/links/port_config.hpp"
#include "sm/routes/routing_input.hpp"

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

TEST(LinkRules, ReservedForceCodesRunAsTheDefaultAsInOpensm) {
  EXPECT_EQ(valid_force_link_speed(0), 0);
  EXPECT_EQ(valid_force_link_speed(7), 7);
  EXPECT_EQ(valid_force_link_speed(15), 15);
  EXPECT_EQ(valid_force_link_speed(8), 15);
  EXPECT_EQ(valid_force_link_speed(14), 15);
  EXPECT_EQ(valid_force_link_speed(16), 15);
  EXPECT_EQ(valid_force_link_speed_ext(15), 15);
  EXPECT_EQ(valid_force_link_speed_ext(30), 30);
  EXPECT_EQ(valid_force_link_speed_ext(16), 31);
  EXPECT_EQ(valid_force_link_speed_ext(29), 31);
  EXPECT_EQ(valid_force_link_speed_ext(32), 31);
  EXPECT_EQ(valid_force_link_width(31), 31);
  EXPECT_EQ(valid_force_link_width(32), 255);
  EXPECT_EQ(valid_force_link_width(254), 255);
}

TEST(LinkRules, SpeedEnableIsSentOnlyWhereThePortHoldsSomethingElse) {
  EXPECT_EQ(link_speed_enabled_to_set(0, 1, 7), 0);   // 0: never touched
  EXPECT_EQ(link_speed_enabled_to_set(15, 7, 7), 0);  // already as supported
  EXPECT_EQ(link_speed_enabled_to_set(15, 1, 7), 15);
  EXPECT_EQ(link_speed_enabled_to_set(1, 7, 7), 1);
  EXPECT_EQ(link_speed_enabled_to_set(1, 1, 7), 0);  // already the value asked for
  // Only speeds the port has: 2.5 or 10 Gbps on a 2.5/5 Gbps port is 2.5 alone.
  EXPECT_EQ(link_speed_enabled_to_set(5, 3, 3), 1);
  EXPECT_EQ(link_speed_enabled_to_set(5, 1, 3), 0);
  EXPECT_EQ(link_speed_enabled_to_set(4, 3, 3), 0);  // none of them: left alone
}

TEST(LinkRules, ExtendedSpeedsOnlyBetweenTwoExtendedEnds) {
  EXPECT_EQ(link_speed_ext_enabled_to_set(31, 1, 3, true), 31);
  EXPECT_EQ(link_speed_ext_enabled_to_set(31, 1, 3, false), 0);
  EXPECT_EQ(link_speed_ext_enabled_to_set(31, 3, 3, true), 0);
  EXPECT_EQ(link_speed_ext_enabled_to_set(0, 1, 3, true), 0);
  EXPECT_EQ(link_speed_ext_enabled_to_set(2, 3, 3, true), 2);
  EXPECT_EQ(link_speed_ext_enabled_to_set(4, 1, 3, true), 0);  // no 50 Gbps here
  EXPECT_EQ(link_speed_ext_enabled_to_set(30, 3, 3, true), 30);
  EXPECT_EQ(link_speed_ext_enabled_to_set(30, 0, 3, true), 0);  // disabled already
}

TEST(LinkRules, WidthSetsNamingTwoXNeedTheCapability) {
  EXPECT_EQ(link_width_enabled_to_set(255, 1, 3, false), 255);
  EXPECT_EQ(link_width_enabled_to_set(255, 3, 3, false), 0);
  EXPECT_EQ(link_width_enabled_to_set(0, 1, 3, false), 0);
  EXPECT_EQ(link_width_enabled_to_set(2, 3, 3, false), 2);
  EXPECT_EQ(link_width_enabled_to_set(18, 3, 19, false), 0);  // 2x or 4x: no 2x here
  EXPECT_EQ(link_width_enabled_to_set(18, 3, 19, true), 18);
  EXPECT_EQ(link_width_enabled_to_set(8, 3, 3, false), 0);   // no 12x here
  EXPECT_EQ(link_width_enabled_to_set(10, 3, 3, false), 2);  // 4x or 12x: 4x
}

// ---- throttled links (avoid_throttled_links; OpenSM osm_link_is_throttled)

LinkEndSpeeds qdr_4x() {
  LinkEndSpeeds e;
  e.speed_enabled = 7;  // SDR, DDR, QDR
  e.speed_active = 4;   // QDR
  e.width_enabled = 3;  // 1x, 4x
  e.width_active = 2;   // 4x
  return e;
}

TEST(LinkRules, ThrottledLinks) {
  LinkEndSpeeds a = qdr_4x(), b = qdr_4x();
  EXPECT_FALSE(link_throttled(a, b));
  b.speed_active = 2;  // one end reports DDR
  EXPECT_TRUE(link_throttled(a, b));
  a.speed_active = 2;  // both DDR, both could do QDR
  EXPECT_TRUE(link_throttled(a, b));
  b.speed_enabled = 3;  // DDR is the best both enable: as good as it gets
  EXPECT_FALSE(link_throttled(a, b));
  a = qdr_4x();
  b = qdr_4x();
  a.width_active = b.width_active = 1;  // 1x where both enable 4x
  EXPECT_TRUE(link_throttled(a, b));
  // EDR: extended speeds count only on ports that have them.
  a = qdr_4x();
  b = qdr_4x();
  a.extended = b.extended = true;
  a.speed_ext_enabled = b.speed_ext_enabled = 3;  // FDR, EDR
  a.speed_ext_active = b.speed_ext_active = 2;    // EDR
  EXPECT_FALSE(link_throttled(a, b));
  a.speed_ext_active = b.speed_ext_active = 0;  // trained at QDR only
  EXPECT_TRUE(link_throttled(a, b));
  a.speed_ext_enabled = b.speed_ext_enabled = kSpeedExtDisable;  // by the admin: fine
  EXPECT_FALSE(link_throttled(a, b));
  // FDR10 (where the SM reads it).
  a = qdr_4x();
  b = qdr_4x();
  a.fdr10_enabled = b.fdr10_enabled = true;
  EXPECT_TRUE(link_throttled(a, b));  // QDR where both enable FDR10
  a.fdr10_active = b.fdr10_active = true;
  EXPECT_FALSE(link_throttled(a, b));
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
    // Link enables as a port comes up: everything it supports enabled, the error
    // thresholds at OpenSM's default.
    port.info.link_width_supported = port.info.link_width_enabled = 3;  // 1x or 4x
    port.info.link_speed_supported = port.info.link_speed_enabled = 7;  // 2.5, 5 or 10 Gbps
    port.info.local_phy_errors = port.info.overrun_errors = 8;
  }

  // Makes (n, p) look as if `want` had been applied and the port reached `state`.
  void applied(NodeIndex n, PortNum p, const mad::PortInfo& want, PortState state) {
    mad::PortInfo& info = fabric.node(n).ports[p].info;
    const mad::PortInfo before = info;
    info = want;
    info.mtu_cap = before.mtu_cap;
    info.vl_cap = before.vl_cap;
    info.link_width_supported = before.link_width_supported;
    info.link_speed_supported = before.link_speed_supported;
    info.link_speed_ext_supported = before.link_speed_ext_supported;
    info.port_state = state;
    info.phys_state = mad::PhysState::kLinkUp;
    // The enables as the port takes them: 0 keeps, 255/15/31 mean "as supported".
    auto enable = [](std::uint8_t set, std::uint8_t held, std::uint8_t all, std::uint8_t code) {
      return set == 0 ? held : set == code ? all : set;
    };
    info.link_width_enabled = enable(want.link_width_enabled, before.link_width_enabled,
                                     before.link_width_supported, 255);
    info.link_speed_enabled =
        enable(want.link_speed_enabled, before.link_speed_enabled, before.link_speed_supported, 15);
    info.link_speed_ext_enabled =
        want.link_speed_ext_enabled == 30
            ? 0
            : enable(want.link_speed_ext_enabled, before.link_speed_ext_enabled,
                     before.link_speed_ext_supported, 31);
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

// ---- opensm.conf force_link_*, error thresholds (sm/links/link_settings.hpp)

TEST_F(PortConfigTest, DefaultsSendNothingToAPortThatHasWhatItSupports) {
  // OpenSM's defaults: 15, 31, 255 and thresholds 8; the fixture's ports hold them.
  auto want = desired_port_info(fabric, s, 2, policy, PortState::kArmed);
  ASSERT_TRUE(want.has_value());  // the state still moves
  EXPECT_EQ(want->link_speed_enabled, 0);
  EXPECT_EQ(want->link_width_enabled, 0);
  EXPECT_EQ(want->link_speed_ext_enabled, 0);
  EXPECT_EQ(want->local_phy_errors, 8);
  EXPECT_EQ(want->overrun_errors, 8);
  applied(s, 2, *want, PortState::kArmed);
  EXPECT_FALSE(desired_port_info(fabric, s, 2, policy, PortState::kArmed).has_value());
}

TEST_F(PortConfigTest, ForceLinkSpeed) {
  auto want = desired_port_info(fabric, s, 2, policy, PortState::kArmed);
  applied(s, 2, *want, PortState::kArmed);
  Port& port = fabric.node(s).ports[2];
  port.info.link_speed_enabled = 1;  // someone narrowed it
  auto set = desired_port_info(fabric, s, 2, policy, PortState::kArmed);
  ASSERT_TRUE(set.has_value());
  EXPECT_EQ(set->link_speed_enabled, 15);  // default: back to LinkSpeedSupported
  policy.link.force_link_speed = 0;        // 0: left as it is
  EXPECT_FALSE(desired_port_info(fabric, s, 2, policy, PortState::kArmed).has_value());
  policy.link.force_link_speed = 3;  // 2.5 or 5 Gbps
  set = desired_port_info(fabric, s, 2, policy, PortState::kArmed);
  ASSERT_TRUE(set.has_value());
  EXPECT_EQ(set->link_speed_enabled, 3);
  applied(s, 2, *set, PortState::kArmed);
  EXPECT_EQ(port.info.link_speed_enabled, 3);
  EXPECT_FALSE(desired_port_info(fabric, s, 2, policy, PortState::kArmed).has_value());
  // CA ports too (OpenSM writes every physical port it configures).
  EXPECT_EQ(desired_port_info(fabric, a, 1, policy, PortState::kArmed)->link_speed_enabled, 3);
  // Switch port 0 has no link: never.
  EXPECT_EQ(desired_port_info(fabric, s, 0, policy, PortState::kArmed)->link_speed_enabled, 0);
}

TEST_F(PortConfigTest, ForceLinkWidth) {
  Port& port = fabric.node(s).ports[2];
  port.info.link_width_supported = 19;  // 1x, 2x or 4x
  port.info.link_width_enabled = 1;     // 1x only
  EXPECT_EQ(desired_port_info(fabric, s, 2, policy, PortState::kArmed)->link_width_enabled, 255);
  policy.link.force_link_width = 0;
  EXPECT_EQ(desired_port_info(fabric, s, 2, policy, PortState::kArmed)->link_width_enabled, 0);
  policy.link.force_link_width = 2;  // 4x
  EXPECT_EQ(desired_port_info(fabric, s, 2, policy, PortState::kArmed)->link_width_enabled, 2);
  policy.link.force_link_width = 17;  // 1x or 2x: the switch does not advertise 2x
  EXPECT_EQ(desired_port_info(fabric, s, 2, policy, PortState::kArmed)->link_width_enabled, 0);
  // A switch's port 0 speaks for its external ports.
  fabric.node(s).ports[0].info.capability_mask2 = kCap2IsLinkWidth2xSupported;
  EXPECT_EQ(desired_port_info(fabric, s, 2, policy, PortState::kArmed)->link_width_enabled, 17);
}

// A Set that changes enabled speeds or widths and the state is split, the speeds
// first with the state left alone (OpenSM's NO_CHANGE round; ibsim applies them only
// then): tests/ibsim/test_link_settings.py shows the links change.
TEST_F(PortConfigTest, NewWidthsWithAStateChangeAreSentApart) {
  policy.link.force_link_width = 1;  // 1x
  auto armed = desired_port_info(fabric, s, 2, policy, PortState::kArmed);
  ASSERT_TRUE(armed.has_value());
  EXPECT_EQ(armed->link_width_enabled, 1);
  EXPECT_TRUE(changes_link_and_state(*armed));
  applied(s, 2, *armed, PortState::kArmed);
  // Taken: the Active Set changes only the state.
  auto active = desired_port_info(fabric, s, 2, policy, PortState::kActive);
  ASSERT_TRUE(active.has_value());
  EXPECT_EQ(active->link_width_enabled, 0);
  EXPECT_FALSE(changes_link_and_state(*active));
  // "As supported" (the default 255) rides in the state Set.
  mad::PortInfo as_supported = *armed;
  as_supported.link_width_enabled = 255;
  EXPECT_FALSE(changes_link_and_state(as_supported));
  // A width change on a port that stays where it is goes in one Set.
  mad::PortInfo no_state = *armed;
  no_state.port_state = PortState::kNoChange;
  EXPECT_FALSE(changes_link_and_state(no_state));
}

TEST_F(PortConfigTest, ForceLinkSpeedExtOnlyWhereBothEndsHaveExtendedSpeeds) {
  for (NodeIndex n : {s, t}) {
    fabric.node(n).ports[0].info.capability_mask |= mad::kCapIsExtendedSpeedsSupported;
    for (PortNum p = 1; p <= 4; ++p) {
      fabric.node(n).ports[p].info.link_speed_ext_supported = 3;  // 14 or 25 Gbps
      fabric.node(n).ports[p].info.link_speed_ext_enabled = 1;
    }
  }
  auto want = desired_port_info(fabric, s, 2, policy, PortState::kArmed);
  EXPECT_EQ(want->link_speed_ext_enabled, 31);  // default: as supported
  applied(s, 2, *want, PortState::kArmed);
  EXPECT_EQ(fabric.node(s).ports[2].info.link_speed_ext_enabled, 3);
  EXPECT_FALSE(desired_port_info(fabric, s, 2, policy, PortState::kArmed).has_value());
  policy.link.force_link_speed_ext = 30;  // extended speeds off
  want = desired_port_info(fabric, s, 2, policy, PortState::kArmed);
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(want->link_speed_ext_enabled, 30);
  applied(s, 2, *want, PortState::kArmed);
  EXPECT_FALSE(desired_port_info(fabric, s, 2, policy, PortState::kArmed).has_value());
  policy.link.force_link_speed_ext = 2;
  EXPECT_EQ(desired_port_info(fabric, s, 2, policy, PortState::kArmed)->link_speed_ext_enabled, 2);
  policy.link.force_link_speed_ext = 0;
  EXPECT_FALSE(desired_port_info(fabric, s, 2, policy, PortState::kArmed).has_value());
  // The CA behind switch port 1 has no extended speeds: its link is left alone.
  policy.link.force_link_speed_ext = 31;
  EXPECT_EQ(desired_port_info(fabric, s, 1, policy, PortState::kArmed)->link_speed_ext_enabled, 0);
}

TEST_F(PortConfigTest, ErrorThresholdsGoToPhysicalPorts) {
  policy.link.local_phy_errors_threshold = 0xa;
  policy.link.overrun_errors_threshold = 0x3;
  for (auto [n, p] :
       {std::pair{a, PortNum{1}}, std::pair{s, PortNum{1}}, std::pair{s, PortNum{2}}}) {
    auto want = desired_port_info(fabric, n, p, policy, PortState::kArmed);
    ASSERT_TRUE(want.has_value());
    EXPECT_EQ(want->local_phy_errors, 0xa);
    EXPECT_EQ(want->overrun_errors, 0x3);
    applied(n, p, *want, PortState::kArmed);
    EXPECT_FALSE(desired_port_info(fabric, n, p, policy, PortState::kArmed).has_value());
  }
  // Switch port 0 keeps what it reports.
  EXPECT_EQ(desired_port_info(fabric, s, 0, policy, PortState::kArmed)->local_phy_errors, 8);
  // A changed threshold alone is a reason for a Set.
  policy.link.overrun_errors_threshold = 0x4;
  auto again = desired_port_info(fabric, a, 1, policy, PortState::kArmed);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->overrun_errors, 0x4);
  EXPECT_EQ(again->port_state, PortState::kNoChange);
}

TEST_F(PortConfigTest, OptionsWithReservedCodesActAsTheDefaults) {
  conf::Options o;
  o.force_link_speed = 10;      // reserved: 15
  o.force_link_speed_ext = 20;  // reserved: 31
  o.force_link_width = 100;     // reserved: 255
  o.local_phy_errors_threshold = 5;
  policy.link = link_settings(o);
  EXPECT_EQ(policy.link.force_link_speed, 15);
  EXPECT_EQ(policy.link.force_link_speed_ext, 31);
  EXPECT_EQ(policy.link.force_link_width, 255);
  EXPECT_EQ(policy.link.local_phy_errors_threshold, 5);
  EXPECT_EQ(policy.link.overrun_errors_threshold, 8);
  Port& port = fabric.node(s).ports[2];
  port.info.link_speed_enabled = 1;
  port.info.link_width_enabled = 1;
  auto want = desired_port_info(fabric, s, 2, policy, PortState::kArmed);
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(want->link_speed_enabled, 15);
  EXPECT_EQ(want->link_width_enabled, 255);
  EXPECT_EQ(want->local_phy_errors, 5);
  EXPECT_EQ(link_settings(conf::Options{}).force_link_speed, 15);
  // Each replacement is logged (at start-up and on SIGHUP), as OpenSM does.
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  sink->set_pattern("%v");
  Logger log = std::make_shared<spdlog::logger>("test", sink);
  static_cast<void>(link_settings(o, &log));
  EXPECT_NE(out.str().find("force_link_speed 10 is a reserved code; using the default 15"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("force_link_width 100"), std::string::npos);
  EXPECT_EQ(out.str().find("local_phy"), std::string::npos);
}

TEST_F(PortConfigTest, SetModifierAnnouncesExtendedSpeedsToPortsThatHaveThem) {
  EXPECT_EQ(port_info_set_modifier(fabric, s, 2), 2u);
  EXPECT_EQ(port_info_set_modifier(fabric, a, 1), 1u);
  fabric.node(s).ports[0].info.capability_mask |= mad::kCapIsExtendedSpeedsSupported;
  fabric.node(a).ports[1].info.capability_mask |= mad::kCapIsExtendedSpeedsSupported;
  EXPECT_EQ(port_info_set_modifier(fabric, s, 2), 0x80000002u);
  EXPECT_EQ(port_info_set_modifier(fabric, s, 0), 0x80000000u);
  EXPECT_EQ(port_info_set_modifier(fabric, a, 1), 0x80000001u);
}

TEST_F(PortConfigTest, LinkFieldsAPortIgnoredAreNotOfferedAgain) {
  Port& port = fabric.node(s).ports[2];
  port.info.link_width_supported = 19;  // 1x, 2x or 4x; enabled 1x or 4x: 255 is sent
  port.info.local_phy_errors = port.info.overrun_errors = 0;
  auto want = desired_port_info(fabric, s, 2, policy, PortState::kArmed);
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(want->link_width_enabled, 255);
  EXPECT_EQ(want->local_phy_errors, 8);
  // The answer (ibsim's): all applied but the link fields.
  applied(s, 2, *want, PortState::kArmed);
  port.info.local_phy_errors = port.info.overrun_errors = 0;
  port.info.link_width_enabled = 3;
  const UntakenPortFields u = untaken_port_fields(*want, port.info);
  EXPECT_TRUE(u.thresholds);
  EXPECT_TRUE(u.width_as_supported);
  EXPECT_FALSE(u.speed_as_supported);  // not sent
  UntakenPorts untaken;
  EXPECT_TRUE(untaken.note(fabric.node(s).guid(), 2, u));
  EXPECT_FALSE(untaken.note(fabric.node(s).guid(), 2, u));  // nothing new
  policy.untaken = &untaken;
  want = desired_port_info(fabric, s, 2, policy, PortState::kArmed);
  EXPECT_FALSE(want.has_value()) << "nothing else differs";
  // A named width is still sent.
  policy.link.force_link_width = 2;
  port.info.link_width_enabled = 3;
  want = desired_port_info(fabric, s, 2, policy, PortState::kArmed);
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(want->link_width_enabled, 2);
  EXPECT_EQ(want->local_phy_errors, 0);  // what the port holds
  // A port that keeps what it is sent teaches nothing.
  mad::PortInfo kept = *want;
  EXPECT_FALSE(untaken_port_fields(*want, kept).any());
}

// ibsim's switch port 0 keeps neither SubnetTimeout nor M_KeyLeasePeriod: without the
// memo every later pass and heavy sweep sent it a Set for them alone.
TEST_F(PortConfigTest, ManagementFieldsAPortIgnoredSendNoSetOfTheirOwn) {
  fabric.node(s).ports[0].lid = 7;
  auto want = desired_port_info(fabric, s, 0, policy, PortState::kArmed);
  ASSERT_TRUE(want.has_value());
  applied(s, 0, *want, PortState::kActive);
  Port& port0 = fabric.node(s).ports[0];
  port0.info.subnet_timeout = 31;  // what ibsim answers, whatever was sent
  port0.info.m_key_lease_period = 4089;
  EXPECT_TRUE(desired_port_info(fabric, s, 0, policy, PortState::kActive).has_value())
      << "without the memo the port differs for ever";
  const UntakenPortFields u = untaken_port_fields(*want, port0.info);
  EXPECT_TRUE(u.subnet_timeout);
  EXPECT_TRUE(u.lease_period);
  EXPECT_FALSE(u.thresholds);
  EXPECT_FALSE(u.width_as_supported);
  UntakenPorts untaken;
  EXPECT_TRUE(untaken.note(fabric.node(s).guid(), 0, u));
  policy.untaken = &untaken;
  EXPECT_FALSE(desired_port_info(fabric, s, 0, policy, PortState::kActive).has_value());
  // A Set sent for another reason (a new LID) still carries the wanted values.
  port0.lid = 9;
  want = desired_port_info(fabric, s, 0, policy, PortState::kActive);
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(want->lid, 9);
  EXPECT_EQ(want->subnet_timeout, policy.subnet_timeout);
  EXPECT_EQ(want->m_key_lease_period, 0);
}

TEST_F(PortConfigTest, RoutingInputMarksThrottledSwitchLinks) {
  for (NodeIndex n : {s, t, a}) {
    for (Port& p : fabric.node(n).ports) {
      p.info.port_state = PortState::kActive;
      p.info.link_speed_active = 4;  // QDR of 7 enabled
      p.info.link_width_active = 2;  // 4x of 3 enabled
    }
  }
  fabric.node(t).ports[0].lid = 3;
  auto throttled = [&] {
    const RoutingInput in = make_routing_input(fabric);
    for (const routing::Switch& sw : in.topology.switches)
      for (const routing::Link& l : sw.links)
        if (l.kind == routing::Link::Kind::kSwitch && l.throttled) return true;
    return false;
  };
  EXPECT_FALSE(throttled());
  fabric.node(t).ports[3].info.link_width_active = 1;  // s2 <-> t3 trained at 1x on t's side
  EXPECT_TRUE(throttled());
}

}  // namespace
}  // namespace ibsm::sm
