// What the SM writes into each port's PortInfo: LID, LMC and SM fields for ports
// that hold LIDs, link parameters negotiated with the neighbour or configured
// (force_link_*, error thresholds) for physical ports, and the next state on the
// way to Active.
#pragma once

#include <optional>

#include "mad/attr/port_info.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/links/link_settings.hpp"
#include "sm/qos/qos_config.hpp"

namespace ibsm::sm {

// The M_Key fields the SM writes into CA/router ports and switch port 0 (m_key).
struct PortMkey {
  std::uint64_t key = 0;
  std::uint8_t protect_bits = 0;
  std::uint16_t lease_period = 0;
};

struct PortPolicy {
  Lid sm_lid = 0;
  std::uint64_t subnet_prefix = 0xfe80000000000000ULL;
  std::uint8_t max_op_vls = 5;
  std::uint8_t subnet_timeout = 18;
  std::uint8_t master_sm_sl = 0;  // opensm.conf sm_sl: the SL ports use to reach the SM/SA
  std::uint8_t head_of_queue_lifetime = 0x12;
  std::uint8_t leaf_head_of_queue_lifetime = 0x10;
  std::uint8_t vl_stall_count = 7;
  std::uint8_t leaf_vl_stall_count = 7;
  bool client_reregister = false;         // first sweep as master (and not no_clients_rereg)
  bool no_clients_rereg = false;          // opensm.conf no_clients_rereg: never ask
  bool force = false;                     // send even when nothing differs
  LinkSettings link;                      // link enables and error thresholds of physical ports
  const UntakenPorts* untaken = nullptr;  // ports known to ignore some of them
  // Set only when m_key is configured (non-zero): otherwise ports keep what they hold.
  std::optional<PortMkey> mkey;
  // QoS (opensm.conf qos): physical ports get their class's VLHighLimit and at most its
  // max_vls as OperationalVLs (sm/qos/link_vls.hpp). Null or disabled: neither is touched.
  const qos::QosConfig* qos = nullptr;
};

// IBA 14.4.11 / o14-12.2.1 (as OpenSM's lid manager applies it): ask a port's clients
// to re-register (rejoin multicast groups, resubscribe, re-resolve paths) on the SM's
// first sweep as master, when the port's LID changes (a newly seen port included),
// and when the port knew another master SM.
bool wants_client_reregister(bool first_master_sweep, const mad::PortInfo& cur, Lid new_lid,
                             Lid sm_lid);

// The PortInfo to Set on (node, port) to move it towards `target`, or nullopt when
// the port already is as wanted. Fields the SM does not own are copied from what
// was read; "no change" encodings are used for state and link enables.
std::optional<mad::PortInfo> desired_port_info(const Fabric& fabric, NodeIndex node, PortNum port,
                                               const PortPolicy& policy, mad::PortState target);

// The attribute modifier of a PortInfo Set to (node, port): the port number, plus
// bit 31 (SMSupportsExtendedSpeeds, IBA 14.2.5.6) when the port advertises
// CapabilityMask.IsExtendedSpeedsSupported or CapabilityMask2.IsExtendedSpeeds2
// Supported (a switch: in port 0's masks), as OpenSM does for the first, so that such
// a port takes the LinkSpeedExtEnabled of the Set.
std::uint32_t port_info_set_modifier(const Fabric& fabric, NodeIndex node, PortNum port);

// A PortInfo answer of (node, port) as the model keeps it: the speed fields checked
// against each other and a contradictory extended speed dropped
// (mad::check_speed_fields; discovery logs the contradiction once per sweep).
mad::PortInfo speeds_checked(const Node& node, PortNum port, const mad::PortInfo& answer);

// Whether a PortInfo Set both changes a link's enabled speeds or widths and moves the
// port to another state. Such a Set is split (sm/links/port_programmer.cpp): the speeds go
// first in a Set with PortState NoChange, as OpenSM sends them in its NO_CHANGE round.
bool changes_link_and_state(const mad::PortInfo& set);

// Whether a port read back after a rejected Set already holds what the Set asked
// for: the LID fields and a state at or beyond the one requested.
bool port_set_took_effect(const mad::PortInfo& wanted, const mad::PortInfo& now);

}  // namespace ibsm::sm
