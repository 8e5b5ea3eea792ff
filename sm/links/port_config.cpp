#include "sm/links/port_config.hpp"

#include <algorithm>

#include "mad/attr/port_speeds.hpp"
#include "sm/links/link_rules.hpp"
#include "sm/qos/link_vls.hpp"

namespace ibsm::sm {

namespace {

// Port 0's CapabilityMask and CapabilityMask2 speak for a switch's external ports
// (as OpenSM reads them); other nodes' ports each have their own.
const mad::PortInfo& capability_source(const Node& node, PortNum port) {
  return node.is_switch() ? node.ports[0].info : node.ports[port].info;
}

bool extended_speeds(const Fabric& fabric, NodeIndex node, PortNum port) {
  return (capability_source(fabric.node(node), port).capability_mask &
          mad::kCapIsExtendedSpeedsSupported) != 0;
}

// force_link_* and the error thresholds (IBA 14.2.5.6) into `want` for a physical
// port; returns whether the port holds something else.
// What the port is known to ignore (nothing, unless it did before).
const UntakenPortFields& untaken_by(const PortPolicy& policy, const Node& node, PortNum port) {
  static constexpr UntakenPortFields kTakesAll{};
  const UntakenPortFields* found =
      policy.untaken != nullptr ? policy.untaken->find(node.guid(), port) : nullptr;
  return found != nullptr ? *found : kTakesAll;
}

bool apply_link_settings(const Fabric& fabric, NodeIndex node_idx, PortNum port,
                         const PortPolicy& policy, mad::PortInfo& want) {
  const LinkSettings& link = policy.link;
  const Node& node = fabric.node(node_idx);
  const Port& p = node.ports[port];
  const mad::PortInfo& cur = p.info;
  const UntakenPortFields& untaken = untaken_by(policy, node, port);
  bool differs = false;
  // LocalPhyErrors / OverrunErrors: how many errors make the port send Trap 129 / 130.
  if (!untaken.thresholds) {
    want.local_phy_errors = link.local_phy_errors_threshold;
    want.overrun_errors = link.overrun_errors_threshold;
  }
  if (cur.local_phy_errors != want.local_phy_errors || cur.overrun_errors != want.overrun_errors)
    differs = true;
  const bool width_2x =
      (capability_source(node, port).capability_mask2 & kCap2IsLinkWidth2xSupported) != 0;
  want.link_width_enabled = link_width_enabled_to_set(link.force_link_width, cur.link_width_enabled,
                                                      cur.link_width_supported, width_2x);
  want.link_speed_enabled = link_speed_enabled_to_set(link.force_link_speed, cur.link_speed_enabled,
                                                      cur.link_speed_supported);
  const bool both_extended = p.peer != kNoNode && extended_speeds(fabric, node_idx, port) &&
                             extended_speeds(fabric, p.peer, p.peer_port);
  want.link_speed_ext_enabled =
      link_speed_ext_enabled_to_set(link.force_link_speed_ext, cur.link_speed_ext_enabled,
                                    cur.link_speed_ext_supported, both_extended);
  // "As supported" codes a port was sent before and ignored are not offered again.
  if (untaken.width_as_supported && want.link_width_enabled == kWidthAsSupported)
    want.link_width_enabled = 0;
  if (untaken.speed_as_supported && want.link_speed_enabled == kSpeedAsSupported)
    want.link_speed_enabled = 0;
  if (untaken.speed_ext_as_supported && want.link_speed_ext_enabled == kSpeedExtAsSupported)
    want.link_speed_ext_enabled = 0;
  if (want.link_width_enabled != 0 || want.link_speed_enabled != 0 ||
      want.link_speed_ext_enabled != 0)
    differs = true;
  return differs;
}

}  // namespace

bool wants_client_reregister(bool first_master_sweep, const mad::PortInfo& cur, Lid new_lid,
                             Lid sm_lid) {
  if (first_master_sweep) return true;
  // The port's clients registered with an SA at another address: its LID moves (a
  // new port, or a LID conflict resolved), or it knew another master.
  return cur.lid != new_lid || (cur.master_sm_lid != 0 && cur.master_sm_lid != sm_lid);
}

std::optional<mad::PortInfo> desired_port_info(const Fabric& fabric, NodeIndex node_idx,
                                               PortNum port, const PortPolicy& policy,
                                               mad::PortState target) {
  const Node& node = fabric.node(node_idx);
  const Port& p = node.ports[port];
  if (!p.present) return std::nullopt;
  const bool holds_lid = node.is_switch() ? port == 0 : port != 0;
  const bool physical = port != 0;
  if (physical && !p.link_up()) return std::nullopt;

  const mad::PortInfo& cur = p.info;
  mad::PortInfo want = cur;
  bool differs = policy.force;

  // Set semantics (IBA 14.2.5.6): 0 in these fields means "no change".
  want.port_state = mad::PortState::kNoChange;
  want.phys_state = mad::PhysState::kNoChange;
  want.link_down_default_state = 0;
  want.link_width_enabled = 0;
  want.link_speed_enabled = 0;
  want.link_speed_ext_enabled = 0;
  want.client_reregister = false;

  if (holds_lid) {
    auto apply = [&](auto& field, auto value) {
      if (field != value) differs = true;
      field = value;
    };
    apply(want.lid, p.lid);
    apply(want.lmc, p.lmc);
    apply(want.master_sm_lid, policy.sm_lid);
    apply(want.gid_prefix, policy.subnet_prefix);
    // What the port ignored before is written along but sends no Set of its own.
    const UntakenPortFields& untaken = untaken_by(policy, node, port);
    auto offer = [&](bool ignored, auto& field, auto value) {
      if (field != value && !ignored) differs = true;
      field = value;
    };
    offer(untaken.subnet_timeout, want.subnet_timeout, policy.subnet_timeout);
    apply(want.master_sm_sl, policy.master_sm_sl);
    // IBA C14-22: M_Key, ProtectBits and LeasePeriod go in the same Set as the LID
    // and MasterSMLID, so a port is never addressed but unprotected (OpenSM does so).
    // Without m_key the SM writes zeros, as OpenSM's osm_link_mgr.c writes its
    // configured (default 0) values: copying back what a port answered would let one
    // garbled PortInfo answer lock the port with a key nobody knows.
    const PortMkey mkey = policy.mkey.value_or(PortMkey{});
    apply(want.m_key, mkey.key);
    apply(want.m_key_protect_bits, mkey.protect_bits);
    offer(untaken.lease_period, want.m_key_lease_period, mkey.lease_period);
    if (!policy.no_clients_rereg &&
        wants_client_reregister(policy.client_reregister, cur, p.lid, policy.sm_lid) &&
        !node.is_switch() && (cur.capability_mask & mad::kCapIsClientReregSupported)) {
      want.client_reregister = true;
      differs = true;
    }
  }
  if (physical && apply_link_settings(fabric, node_idx, port, policy, want)) differs = true;
  if (physical && p.peer != kNoNode) {
    const Port& peer = fabric.node(p.peer).ports[p.peer_port];
    const std::uint8_t mtu =
        neighbor_mtu(cur.mtu_cap, peer.present ? peer.info.mtu_cap : cur.mtu_cap);
    const std::uint8_t vls = operational_vls(
        cur.vl_cap, peer.present ? peer.info.vl_cap : cur.vl_cap,
        std::min(policy.max_op_vls, qos::max_op_vls_of_link(policy.qos, fabric, node_idx, port)));
    if (cur.neighbor_mtu != mtu || cur.operational_vls != vls) differs = true;
    want.neighbor_mtu = mtu;
    want.operational_vls = vls;
    if (policy.qos != nullptr && policy.qos->enabled) {
      // VLHighLimit (IBA 14.2.5.6): high-priority bytes sent before a low-priority packet
      // gets a turn, from the class's qos_*high_limit; 0 on a port with one data VL, which
      // has no VLArbitration table (osm_qos.c vlarb_update, written by osm_link_mgr.c).
      const std::uint8_t limit =
          cur.vl_cap <= 1 ? 0 : policy.qos->of(node, node_idx, port).high_limit;
      if (!untaken_by(policy, node, port).vl_high_limit) {
        if (cur.vl_high_limit != limit) differs = true;
        want.vl_high_limit = limit;
      }
    }
    if (node.is_switch()) {
      const bool leaf_port = !fabric.node(p.peer).is_switch();
      const std::uint8_t hoq =
          leaf_port ? policy.leaf_head_of_queue_lifetime : policy.head_of_queue_lifetime;
      const std::uint8_t stall = leaf_port ? policy.leaf_vl_stall_count : policy.vl_stall_count;
      if (cur.hoq_life != hoq || cur.vl_stall_count != stall) differs = true;
      want.hoq_life = hoq;
      want.vl_stall_count = stall;
    }
  }
  if (physical && node.is_switch() && p.want_enforcement) {
    const partitions::Enforcement& e = *p.want_enforcement;
    if (cur.partition_enforcement_inbound != e.inbound ||
        cur.partition_enforcement_outbound != e.outbound)
      differs = true;
    want.partition_enforcement_inbound = e.inbound;
    want.partition_enforcement_outbound = e.outbound;
  }
  const mad::PortState next =
      physical ? next_state(cur.port_state, target) : mad::PortState::kNoChange;
  if (next != mad::PortState::kNoChange) {
    want.port_state = next;
    differs = true;
  }
  if (!differs) return std::nullopt;
  return want;
}

std::uint32_t port_info_set_modifier(const Fabric& fabric, NodeIndex node, PortNum port) {
  const bool extended = mad::wants_extended_speeds_get(capability_source(fabric.node(node), port));
  return port | (extended ? mad::kSmSupportsExtendedSpeeds : 0u);
}

mad::PortInfo speeds_checked(const Node& node, PortNum port, const mad::PortInfo& answer) {
  if (port == 0) return answer;  // no link of its own
  const mad::PortInfo& caps =
      node.is_switch() && node.ports[0].present ? node.ports[0].info : answer;
  return mad::check_speed_fields(answer, caps).cleaned;
}

bool changes_link_and_state(const mad::PortInfo& set) {
  // The "as supported" codes (the keys' defaults) are left in the state Set: sent to
  // every port whose Enabled differs from Supported, splitting would double the first
  // sweep's PortInfo Sets, and a port that ignores them (ibsim) ignores them either way.
  const auto named = [](std::uint8_t v, std::uint8_t as_supported) {
    return v != 0 && v != as_supported;
  };
  const bool link = named(set.link_width_enabled, kWidthAsSupported) ||
                    named(set.link_speed_enabled, kSpeedAsSupported) ||
                    named(set.link_speed_ext_enabled, kSpeedExtAsSupported);
  return link && set.port_state != mad::PortState::kNoChange;
}

bool port_set_took_effect(const mad::PortInfo& wanted, const mad::PortInfo& now) {
  if (now.lid != wanted.lid || now.lmc != wanted.lmc || now.master_sm_lid != wanted.master_sm_lid)
    return false;
  if (wanted.port_state == mad::PortState::kNoChange) return true;
  return static_cast<unsigned>(now.port_state) >= static_cast<unsigned>(wanted.port_state);
}

}  // namespace ibsm::sm
