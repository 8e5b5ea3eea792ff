#include "tests/fake/fake_fabric.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mad/attr/forwarding_table.hpp"
#include "mad/attr/guid_info.hpp"
#include "mad/attr/mft_block.hpp"
#include "mad/attr/node_description.hpp"
#include "mad/attr/pkey_table.hpp"
#include "mad/attr/port_speeds.hpp"
#include "mad/attr/vl_tables.hpp"
#include "tests/fake/wire_bytes.hpp"

namespace ibsm::fake {

namespace {

constexpr std::uint16_t kStatusD = 0x8000;  // DR SMP direction bit in the status word

std::string where(const FakeNode& n, PortNum p) {
  return n.id + "/" + std::to_string(p);
}

}  // namespace

mad::PortInfo decode_port_info_unchecked(mad::ConstPayload p) {
  mad::PortInfo pi;
  mad::PortInfo::fields(pi,
                        [&](const auto& f, auto& member) { mad::detail::get_field(p, f, member); });
  return pi;
}

std::optional<mad::PortInfo> apply_port_info_set(const mad::PortInfo& cur, const mad::PortInfo& req,
                                                 bool lid_holder, bool physical,
                                                 bool ignores_link_fields, bool sm_knows_ext) {
  using mad::PortState;
  mad::PortInfo next = cur;
  // PortState (IBA 14.2.5.6, table 155; 7.2 link state machine): the SM may ask for
  // Down (link retrains: back to Init), Armed from Init, Active from Armed. X -> X and
  // any other change is invalid. Port 0 of a switch has no link state to set.
  if (req.port_state != PortState::kNoChange) {
    if (!physical) return std::nullopt;
    switch (req.port_state) {
      case PortState::kDown:
        if (cur.port_state == PortState::kDown) return std::nullopt;
        next.port_state = PortState::kInit;
        break;
      case PortState::kArmed:
        if (cur.port_state != PortState::kInit) return std::nullopt;
        next.port_state = PortState::kArmed;
        break;
      case PortState::kActive:
        if (cur.port_state != PortState::kArmed) return std::nullopt;
        next.port_state = PortState::kActive;
        break;
      default:
        return std::nullopt;
    }
  }
  if (lid_holder) {
    // Unicast LIDs only (IBA 4.1.3); 0 means "not assigned".
    if (req.lid >= mad::kFirstMulticastLid || req.master_sm_lid >= mad::kFirstMulticastLid)
      return std::nullopt;
    next.lid = req.lid;
    next.lmc = req.lmc;
    next.master_sm_lid = req.master_sm_lid;
    next.master_sm_sl = req.master_sm_sl;
    next.m_key = req.m_key;
    next.gid_prefix = req.gid_prefix;
    next.m_key_lease_period = req.m_key_lease_period;
    next.m_key_protect_bits = req.m_key_protect_bits;
    next.subnet_timeout = req.subnet_timeout;
  }
  if (physical) {
    // NeighborMTU 1..MTUCap; OperationalVLs 0 = no change, else at most VLCap.
    if (req.neighbor_mtu == 0 || req.neighbor_mtu > cur.mtu_cap) return std::nullopt;
    if (req.operational_vls > cur.vl_cap) return std::nullopt;
    next.neighbor_mtu = req.neighbor_mtu;
    if (req.operational_vls != 0) next.operational_vls = req.operational_vls;
    next.hoq_life = req.hoq_life;
    next.vl_stall_count = req.vl_stall_count;
    next.vl_high_limit = req.vl_high_limit;
    next.partition_enforcement_inbound = req.partition_enforcement_inbound;
    next.partition_enforcement_outbound = req.partition_enforcement_outbound;
    if (!ignores_link_fields) {
      next.local_phy_errors = req.local_phy_errors;  // Trap 129/130 thresholds
      next.overrun_errors = req.overrun_errors;
    }
    // 0 = no change; 255 (width) and 15 (speed) = everything supported.
    if (req.link_width_enabled == 255) {
      if (!ignores_link_fields) next.link_width_enabled = cur.link_width_supported;
    } else if (req.link_width_enabled != 0) {
      next.link_width_enabled = req.link_width_enabled;
    }
    if (req.link_speed_enabled == 15) {
      if (!ignores_link_fields) next.link_speed_enabled = cur.link_speed_supported;
    } else if (req.link_speed_enabled != 0) {
      next.link_speed_enabled = req.link_speed_enabled;
    }
    // LinkSpeedExtEnabled counts only from an SM that set SMSupportsExtendedSpeeds:
    // 31 = everything supported, 30 = none, else the speeds named (0 = no change).
    if (sm_knows_ext) {
      if (req.link_speed_ext_enabled == 31) {
        next.link_speed_ext_enabled = cur.link_speed_ext_supported;
      } else if (req.link_speed_ext_enabled == 30) {
        next.link_speed_ext_enabled = 0;
      } else if (req.link_speed_ext_enabled != 0) {
        next.link_speed_ext_enabled = req.link_speed_ext_enabled & cur.link_speed_ext_supported;
      }
      if (req.link_speed_ext_enabled2 != 0)
        next.link_speed_ext_enabled2 = req.link_speed_ext_enabled2 & cur.link_speed_ext_supported2;
    }
  }
  next.client_reregister = false;  // an event, not state: always reads 0
  return next;
}

FakeFabric::FakeFabric(const testsupport::Fabric& description, FakeClock& clock,
                       FakeOptions options)
    : clock_(clock), options_(std::move(options)), rng_(options_.seed) {
  nodes_.reserve(description.nodes.size());
  for (const auto& d : description.nodes) {
    FakeNode n;
    n.id = d.id;
    n.description = d.description;
    n.info.base_version = 1;
    n.info.class_version = 1;
    n.info.node_type = d.type == testsupport::NodeType::kSwitch   ? mad::NodeType::kSwitch
                       : d.type == testsupport::NodeType::kRouter ? mad::NodeType::kRouter
                                                                  : mad::NodeType::kCa;
    n.info.num_ports = d.num_ports;
    n.info.system_image_guid = d.system_guid != 0 ? d.system_guid : d.node_guid;
    n.info.node_guid = d.node_guid;
    n.info.port_guid = d.node_guid;
    n.info.partition_cap = options_.partition_cap;
    n.info.device_id = n.is_switch() ? 0xb924 : 0x1003;
    n.info.vendor_id = 0x0002c9;
    n.ports.resize(static_cast<std::size_t>(d.num_ports) + 1);
    nodes_.push_back(std::move(n));
  }
  for (const auto& c : description.cables) {
    nodes_[c.a.node].ports[c.a.port].cable = PortRef{c.b.node, c.b.port};
    nodes_[c.b.node].ports[c.b.port].cable = PortRef{c.a.node, c.a.port};
  }
  sm_port_ = options_.sm_port;
  bool found = false;
  for (std::uint32_t i = 0; i < nodes_.size() && !found; ++i) {
    if (options_.sm_node.empty() ? !nodes_[i].is_switch() : nodes_[i].id == options_.sm_node) {
      sm_node_ = i;
      found = true;
    }
  }
  if (!found) {
    std::fprintf(stderr, "FakeFabric: no node for the SM ('%s')\n", options_.sm_node.c_str());
    std::abort();
  }
  if (nodes_[sm_node_].is_switch()) sm_port_ = 0;
  reset_cold();
}

std::uint32_t FakeFabric::index(const std::string& id) const {
  for (std::uint32_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].id == id) return i;
  std::fprintf(stderr, "FakeFabric: unknown node '%s'\n", id.c_str());
  std::abort();
}

void FakeFabric::cold_port(FakeNode& n, PortNum p) {
  FakePort& port = n.ports[p];
  mad::PortInfo& pi = port.info;
  pi = mad::PortInfo{};
  pi.gid_prefix = 0xfe80000000000000ULL;
  pi.local_port_num = p;
  pi.link_width_enabled = 3;
  // ibsim's ports advertise more widths than they enable (and ignore 255, see
  // FakeOptions::ignores_link_fields).
  pi.link_width_supported = options_.ignores_link_fields ? 0x13 : 3;
  pi.link_width_active = 2;
  pi.link_speed_supported = 1;
  pi.link_speed_active = 1;
  pi.link_speed_enabled = 1;
  pi.mtu_cap = n.is_switch() ? options_.switch_mtu_cap : options_.ca_mtu_cap;
  pi.vl_cap = n.is_switch() ? options_.switch_vl_cap : options_.ca_vl_cap;
  pi.neighbor_mtu = 1;
  pi.operational_vls = 1;
  pi.guid_cap = 1;
  pi.vl_arbitration_high_cap = 8;
  pi.vl_arbitration_low_cap = 8;
  if (!n.is_switch() && p != 0) pi.capability_mask = mad::kCapIsClientReregSupported;
  // A device of OpenSM's list answers the vendor attribute; these ports lack FDR10.
  port.mlnx_ext.reset();
  if (p != 0 && mad::has_mlnx_ext_port_info(n.info.vendor_id, n.info.device_id))
    port.mlnx_ext = mad::MlnxExtPortInfo{};
  const bool connected =
      port.cable.has_value() && port.link_ok && !n.gone && !nodes_[port.cable->node].gone;
  if (n.is_switch() && p == 0) {
    pi.port_state = mad::PortState::kActive;  // the management port is always usable
    pi.phys_state = mad::PhysState::kLinkUp;
  } else if (connected) {
    pi.port_state = mad::PortState::kInit;
    pi.phys_state = mad::PhysState::kLinkUp;
  } else {
    pi.port_state = mad::PortState::kDown;
    pi.phys_state = mad::PhysState::kPolling;
  }
  port.pkeys.assign(options_.partition_cap, 0);
  if (!port.pkeys.empty()) port.pkeys[0] = 0xffff;
  // VL tables. What they hold after a reset is the device's choice (IBA 14.2.5.8/9);
  // these spread the SLs and the low-priority arbitration entries over the port's
  // data VLs (VLCap 1, 2, 3, 4, 5: 1, 2, 4, 8, 15 VLs); high priority serves VL0.
  if (n.is_switch() ? p == 0 : p != 0) pi.capability_mask |= mad::kCapIsSlMappingSupported;
  const unsigned vls = pi.vl_cap >= 5 ? 15u : pi.vl_cap == 0 ? 1u : 1u << (pi.vl_cap - 1);
  std::array<std::uint8_t, 8> sl2vl{};
  for (unsigned sl = 0; sl < 16; ++sl)
    sl2vl[sl / 2] |= static_cast<std::uint8_t>((sl % vls) << (sl % 2 == 0 ? 4 : 0));
  port.sl2vl.assign(n.is_switch() ? std::size_t{n.num_ports()} + 1 : 1, sl2vl);
  port.vlarb = {};
  for (unsigned e = 0; e < 32 && e < pi.vl_arbitration_low_cap; ++e) {
    port.vlarb[0][2 * e] = static_cast<std::uint8_t>(e % vls);
    port.vlarb[0][2 * e + 1] = 1;
  }
  if (pi.vl_arbitration_high_cap > 0) port.vlarb[2][1] = 4;
  // GUIDInfo (IBA 14.2.5.5): after a reset only index 0, the port GUID, is set; the
  // aliases the SM wrote are gone. A switch's table is port 0's.
  const bool has_guids = n.is_switch() ? p == 0 : p != 0;
  if (has_guids) pi.guid_cap = options_.guid_cap;
  port.guids.assign(has_guids ? options_.guid_cap : 0, 0);
  if (!port.guids.empty()) port.guids[0] = n.is_switch() ? n.info.node_guid : n.info.node_guid + p;
}

void FakeFabric::reset_cold() {
  mkey_leases_.clear();  // power-up: keys are back to 0 (cold_port)
  for (FakeNode& n : nodes_) {
    for (PortNum p = 0; p <= n.num_ports(); ++p) {
      if (!n.is_switch() && p == 0) continue;
      cold_port(n, p);
    }
    if (n.is_switch()) {
      mad::SwitchInfo si;
      si.linear_fdb_cap = options_.linear_fdb_cap;
      si.multicast_fdb_cap = options_.multicast_fdb_cap;
      si.multicast_fdb_top = mad::kFirstMulticastLid - 1;
      si.linear_fdb_top = 0;
      si.life_time_value = 0x12;
      si.port_state_change = true;  // ports came up from Down
      si.partition_enforcement_cap = options_.partition_cap;
      si.inbound_enforcement_cap = true;
      si.outbound_enforcement_cap = true;
      si.optimized_sl_to_vl = options_.optimized_sl2vl ? 1 : 0;
      n.switch_info = si;
      n.lft.assign(options_.linear_fdb_cap, 0xFF);
      // A power cycle empties the MFT (IBA 14.2.5.12 leaves the reset contents to the
      // device; empty is what makes a forgotten switch visible).
      n.mft.assign(std::size_t{options_.multicast_fdb_cap} * n.mcast_positions(), 0);
      if (options_.mcast_fdb_top_cap)
        n.ports[0].info.capability_mask |= mad::kCapHasMulticastFdbTop;
    }
  }
  if (!nodes_[sm_node_].is_switch()) {
    nodes_[sm_node_].ports[sm_port_].info.capability_mask |= mad::kCapIsSm;
  }
}

std::optional<PortRef> FakeFabric::peer(std::uint32_t node, PortNum port) const {
  const FakeNode& n = nodes_[node];
  if (port == 0 || port > n.num_ports()) return std::nullopt;
  return n.ports[port].cable;
}

bool FakeFabric::link_usable(std::uint32_t node, PortNum port) const {
  const FakeNode& n = nodes_[node];
  if (port == 0 || port > n.num_ports() || n.gone) return false;
  const FakePort& p = n.ports[port];
  return p.cable && p.link_ok && !nodes_[p.cable->node].gone &&
         p.info.port_state != mad::PortState::kDown;
}

void FakeFabric::flag_port_state_change(std::uint32_t node) {
  if (nodes_[node].switch_info) nodes_[node].switch_info->port_state_change = true;
}

void FakeFabric::port_went_down(std::uint32_t node, PortNum port) {
  mad::PortInfo& pi = nodes_[node].ports[port].info;
  pi.port_state = mad::PortState::kDown;
  pi.phys_state = mad::PhysState::kPolling;
  flag_port_state_change(node);
}

void FakeFabric::set_link(std::uint32_t node, PortNum port, bool up) {
  FakePort& p = nodes_[node].ports[port];
  if (!p.cable) return;
  const PortRef other = *p.cable;
  p.link_ok = up;
  nodes_[other.node].ports[other.port].link_ok = up;
  for (PortRef end : {PortRef{node, port}, other}) {
    if (up) {
      if (nodes_[end.node].gone) continue;
      mad::PortInfo& pi = nodes_[end.node].ports[end.port].info;
      pi.port_state = mad::PortState::kInit;
      pi.phys_state = mad::PhysState::kLinkUp;
      pi.neighbor_mtu = 1;
      pi.operational_vls = 1;
      flag_port_state_change(end.node);
    } else {
      port_went_down(end.node, end.port);
    }
  }
}

void FakeFabric::vanish(std::uint32_t node) {
  FakeNode& n = nodes_[node];
  n.gone = true;
  for (PortNum p = 1; p <= n.num_ports(); ++p) {
    if (!n.ports[p].cable) continue;
    port_went_down(node, p);
    port_went_down(n.ports[p].cable->node, n.ports[p].cable->port);
  }
}

void FakeFabric::link_down_after(std::uint32_t node, PortNum port, std::uint64_t requests) {
  link_events_.push_back({node, port, stats_.requests + requests});
}

void FakeFabric::clear_faults() {
  for (FakeNode& n : nodes_)
    n.faults = NodeFaults{};
  loss_rate_ = 0;
  lose_nth_.clear();
  link_events_.clear();
}

mad::PortInfo FakeFabric::port_info(std::uint32_t node, PortNum port) const {
  const FakeNode& n = nodes_[node];
  mad::PortInfo pi = n.ports[port].info;
  if (n.is_switch() && port != 0) {
    const mad::PortInfo& p0 = n.ports[0].info;
    pi.lid = p0.lid;
    pi.lmc = p0.lmc;
    pi.master_sm_lid = p0.master_sm_lid;
    pi.m_key = p0.m_key;
    pi.gid_prefix = p0.gid_prefix;
    pi.subnet_timeout = p0.subnet_timeout;
  }
  return pi;
}

mad::LocalPort FakeFabric::local_port() const {
  const FakeNode& n = nodes_[sm_node_];
  const mad::PortInfo pi = port_info(sm_node_, sm_port_);
  mad::LocalPort lp;
  lp.ca_name = "fake0";
  lp.port_num = sm_port_;
  lp.node_guid = n.info.node_guid;
  lp.port_guid = n.is_switch() ? n.info.node_guid : n.info.node_guid + sm_port_;
  lp.lid = pi.lid;
  lp.sm_lid = pi.master_sm_lid;
  lp.lmc = pi.lmc;
  lp.state = pi.port_state;
  lp.phys_state = static_cast<std::uint8_t>(pi.phys_state);
  return lp;
}

bool FakeFabric::holds_lid(std::uint32_t node, PortNum port, Lid lid) const {
  const FakeNode& n = nodes_[node];
  if (n.is_switch() && port != 0) return false;
  const mad::PortInfo& pi = n.ports[port].info;
  return pi.lid != 0 && lid >= pi.lid && lid < pi.lid + (1u << pi.lmc);
}

// IBA 14.2.2.2 / C14-9: the outgoing part of a directed route. The SM's node sends
// out of InitialPath[1] (for a CA that must be the SM's own port); every node reached
// with HopPointer < HopCount forwards out of InitialPath[HopPointer + 1] and only
// switches do; the node reached at HopPointer == HopCount processes the SMP.
std::optional<FakeFabric::Arrival> FakeFabric::route_directed(const mad::Smp& smp) const {
  const auto& b = smp.bytes();
  if (get16(b.data() + 32) != mad::kPermissiveLid || get16(b.data() + 34) != mad::kPermissiveLid)
    return std::nullopt;  // LID-routed parts of a DR SMP are not modelled
  const unsigned hop_count = smp.hop_count();
  const std::uint8_t* path = b.data() + 128;
  Arrival a;
  a.node = sm_node_;
  a.port = sm_port_;
  if (hop_count == 0) return a;
  if (!nodes_[sm_node_].is_switch() && path[1] != sm_port_) return std::nullopt;
  for (unsigned hop = 1; hop <= hop_count; ++hop) {
    const FakeNode& here = nodes_[a.node];
    if (hop > 1 && (!here.is_switch() || here.faults.silent)) return std::nullopt;
    const PortNum out = path[hop];
    if (!link_usable(a.node, out)) return std::nullopt;
    const PortRef next = *here.ports[out].cable;
    if (!link_usable(next.node, next.port)) return std::nullopt;
    a.node = next.node;
    a.port = next.port;
    a.return_path[hop] = next.port;
  }
  return a;
}

LidRoute FakeFabric::follow_lid(std::uint32_t from, Lid dlid) const {
  LidRoute r;
  std::uint32_t cur = from;
  for (; r.hops <= 64; ++r.hops) {
    const FakeNode& n = nodes_[cur];
    if (n.gone) {
      r.error = "reached vanished node " + n.id;
      return r;
    }
    if (!n.is_switch()) {
      r.error = "reached CA " + n.id + " which does not hold LID " + std::to_string(dlid);
      return r;
    }
    if (holds_lid(cur, 0, dlid)) {
      r.reached = PortRef{cur, 0};
      return r;
    }
    const PortNum out = dlid < n.lft.size() ? n.lft[dlid] : PortNum{0xFF};
    if (out == 0 || out > n.num_ports()) {
      r.error = "switch " + n.id + " has no route (entry " + std::to_string(out) + ")";
      return r;
    }
    if (!link_usable(cur, out)) {
      r.error = "switch " + n.id + " routes to port " + std::to_string(out) + " whose link is down";
      return r;
    }
    const PortRef next = *n.ports[out].cable;
    if (!nodes_[next.node].is_switch()) {
      if (holds_lid(next.node, next.port, dlid)) {
        r.reached = next;
        ++r.hops;
        return r;
      }
      r.error = "switch " + n.id + " port " + std::to_string(out) + " leads to " +
                where(nodes_[next.node], next.port) + " which does not hold LID " +
                std::to_string(dlid);
      return r;
    }
    cur = next.node;
  }
  r.error = "loop: more than 64 hops";
  return r;
}

McastFlood FakeFabric::follow_mlid(PortRef from, Lid mlid) const {
  McastFlood f;
  // (switch, port the copy came in on)
  std::vector<PortRef> queue;
  if (nodes_[from.node].is_switch()) {
    queue.push_back({from.node, 0});
  } else if (link_usable(from.node, from.port)) {
    queue.push_back(*nodes_[from.node].ports[from.port].cable);
  } else {
    f.problems.push_back(where(nodes_[from.node], from.port) + " has no working link");
    return f;
  }
  std::size_t steps = 0;
  std::size_t limit = 64;
  for (const FakeNode& n : nodes_)
    limit += n.num_ports();
  while (!queue.empty()) {
    const PortRef at = queue.back();
    queue.pop_back();
    const FakeNode& n = nodes_[at.node];
    if (!n.is_switch()) {
      ++f.reached[at];  // a CA takes the packet, it never forwards it
      continue;
    }
    if (++steps > limit) {
      f.looped = true;
      f.problems.push_back("loop: more switch visits than ports in the fabric");
      return f;
    }
    if (n.gone || mlid < mad::kFirstMulticastLid) continue;
    if (options_.mcast_fdb_top_cap && mlid > n.switch_info->multicast_fdb_top) {
      f.problems.push_back("switch " + n.id + " drops MLID above its MulticastFDBTop");
      continue;
    }
    const std::size_t positions = n.mcast_positions();
    const std::size_t row = static_cast<std::size_t>(mlid - mad::kFirstMulticastLid) * positions;
    if (row + positions > n.mft.size()) continue;  // beyond MulticastFDBCap: dropped
    for (std::size_t p = 0; p <= n.num_ports(); ++p) {
      if ((n.mft[row + p / 16] >> (p % 16) & 1u) == 0 || p == at.port) continue;
      const auto out = static_cast<PortNum>(p);
      if (out == 0) {
        ++f.reached[PortRef{at.node, 0}];
        continue;
      }
      if (!link_usable(at.node, out)) {
        f.problems.push_back("switch " + n.id + " forwards to port " + std::to_string(p) +
                             " whose link is down");
        continue;
      }
      queue.push_back(*n.ports[out].cable);
    }
  }
  return f;
}

std::optional<FakeFabric::Arrival> FakeFabric::route_lid(Lid dlid) const {
  Arrival a;
  a.node = sm_node_;
  a.port = sm_port_;
  if (holds_lid(sm_node_, sm_port_, dlid)) return a;
  std::uint32_t first_switch = sm_node_;
  if (!nodes_[sm_node_].is_switch()) {
    if (!link_usable(sm_node_, sm_port_)) return std::nullopt;
    const PortRef next = *nodes_[sm_node_].ports[sm_port_].cable;
    if (!nodes_[next.node].is_switch()) {
      if (!holds_lid(next.node, next.port, dlid)) return std::nullopt;
      a.node = next.node;
      a.port = next.port;
      return a;
    }
    first_switch = next.node;
  }
  const LidRoute r = follow_lid(first_switch, dlid);
  if (!r.reached) return std::nullopt;
  a.node = r.reached->node;
  a.port = r.reached->port;
  return a;
}

std::vector<std::string> FakeFabric::check_routes(std::size_t* routes) const {
  std::vector<std::string> problems;
  std::size_t checked = 0;
  for (std::uint32_t s = 0; s < nodes_.size(); ++s) {
    if (!nodes_[s].is_switch() || nodes_[s].gone) continue;
    for (std::uint32_t t = 0; t < nodes_.size(); ++t) {
      const FakeNode& target = nodes_[t];
      if (target.gone) continue;
      for (PortNum p = 0; p <= target.num_ports(); ++p) {
        const bool lid_holder = target.is_switch() ? p == 0 : p != 0;
        if (!lid_holder) continue;
        if (!target.is_switch() && !link_usable(t, p)) continue;
        const mad::PortInfo& pi = target.ports[p].info;
        if (pi.lid == 0) {
          problems.push_back(where(target, p) + " has no LID");
          continue;
        }
        for (unsigned l = pi.lid; l < pi.lid + (1u << pi.lmc); ++l) {
          ++checked;
          const LidRoute r = follow_lid(s, static_cast<Lid>(l));
          if (!r.reached || !(*r.reached == PortRef{t, p})) {
            problems.push_back(
                nodes_[s].id + " -> LID " + std::to_string(l) + " (" + where(target, p) + "): " +
                (r.reached ? "reached " + where(nodes_[r.reached->node], r.reached->port)
                           : r.error));
          }
        }
      }
    }
  }
  if (routes != nullptr) *routes = checked;
  return problems;
}

std::vector<std::string> FakeFabric::inactive_ports() const {
  std::vector<std::string> out;
  for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
    const FakeNode& n = nodes_[i];
    if (n.gone) continue;
    for (PortNum p = 1; p <= n.num_ports(); ++p) {
      if (!link_usable(i, p)) continue;
      if (n.ports[p].info.port_state != mad::PortState::kActive) {
        out.push_back(where(n, p) + " is " +
                      std::string(mad::port_state_name(n.ports[p].info.port_state)));
      }
    }
  }
  return out;
}

FakeFabric::Answer FakeFabric::port_info_request(FakeNode& n, PortNum in_port,
                                                 const mad::Smp& req) {
  Answer a;
  std::copy(req.data().begin(), req.data().end(), a.data.begin());
  // Bits 0-7: the port; bit 31: SMSupportsExtendedSpeeds (IBA 14.2.5.6).
  const bool sm_knows_ext = (req.attr_mod() & mad::kSmSupportsExtendedSpeeds) != 0;
  const std::uint32_t mod = req.attr_mod() & ~mad::kSmSupportsExtendedSpeeds;
  PortNum port = 0;
  if (n.is_switch()) {
    if (mod > n.num_ports()) {
      a.status = mad::kStatusInvalidValue;
      return a;
    }
    port = static_cast<PortNum>(mod);
  } else {
    // A CA answers for the port the SMP arrived on (modifier 0) or the port named.
    if (mod > n.num_ports()) {
      a.status = mad::kStatusInvalidValue;
      return a;
    }
    port = mod == 0 ? in_port : static_cast<PortNum>(mod);
  }
  const auto idx = static_cast<std::uint32_t>(&n - nodes_.data());
  if (req.method() == mad::Method::kSet) {
    const mad::PortInfo want = decode_port_info_unchecked(req.data());
    const bool lid_holder = n.is_switch() ? port == 0 : true;
    auto next = apply_port_info_set(n.ports[port].info, want, lid_holder, port != 0,
                                    options_.ignores_link_fields, sm_knows_ext);
    if (!next) {
      a.status = mad::kStatusInvalidValue;
    } else {
      if (want.port_state == mad::PortState::kDown) flag_port_state_change(idx);
      n.ports[port].info = *next;
      // PortPhysicalState Disabled (IBA 14.2.5.6 table 155): the link goes down at both
      // ends and stays down until the port is enabled again.
      if (want.phys_state == mad::PhysState::kDisabled && port != 0) {
        set_link(idx, port, false);
        n.ports[port].info.phys_state = mad::PhysState::kDisabled;
      }
    }
  }
  mad::PortInfo out = port_info(idx, port);
  out.local_port_num = in_port;
  if (!sm_knows_ext && n.ext_speeds_only_with_bit31) {
    // OpenSM issue 38: the extended speeds stay advertised, their fields empty.
    out.link_speed_ext_active = out.link_speed_ext_supported = out.link_speed_ext_enabled = 0;
    out.link_speed_ext_active2 = out.link_speed_ext_supported2 = out.link_speed_ext_enabled2 = 0;
  }
  mad::encode(out, mad::Payload(a.data));
  return a;
}

FakeFabric::Answer FakeFabric::answer(FakeNode& n, PortNum in_port, const mad::Smp& req) {
  Answer a;
  std::copy(req.data().begin(), req.data().end(), a.data.begin());
  const bool get = req.method() == mad::Method::kGet;
  const bool set = req.method() == mad::Method::kSet;
  if (!get && !set) {
    a.status = mad::kStatusMethodUnsupported;
    return a;
  }
  if (set && n.faults.set_status && req.attr_id() != mad::AttrId::kSmInfo) {
    a.status = *n.faults.set_status;
    return a;
  }
  const std::uint32_t mod = req.attr_mod();
  switch (req.attr_id()) {
    case mad::AttrId::kNodeInfo: {
      if (!get) break;
      mad::NodeInfo info = n.info;
      info.local_port_num = in_port;
      info.port_guid = n.is_switch() ? n.info.node_guid : n.info.node_guid + in_port;
      mad::encode(info, mad::Payload(a.data));
      return a;
    }
    case mad::AttrId::kSmInfo: {
      FakePort& port = n.ports[n.is_switch() ? 0 : in_port];
      if (!port.sm || !port.sm->alive) {
        a.none = true;  // the SMA hands SMInfo to an SM; with none, nobody answers
        return a;
      }
      FakeSm& sm = *port.sm;
      mad::SmInfo before = sm.info;
      if (set) {
        sm.sets.push_back(mod);
        auto sender = mad::decode<mad::SmInfo>(req.data());
        if (sm.set_status) {
          a.status = *sm.set_status;
        } else if (mod == static_cast<std::uint32_t>(mad::SmControl::kHandover) && sender.ok() &&
                   sender->state == mad::SmState::kMaster &&
                   sm.info.state != mad::SmState::kNotActive) {
          sm.info.state = mad::SmState::kMaster;
        } else if (mod != static_cast<std::uint32_t>(mad::SmControl::kHandover)) {
          a.status = mad::kStatusInvalidValue;
        }
      }
      ++sm.info.act_count;
      mad::encode(before, mad::Payload(a.data));  // answers show the state before the Set
      return a;
    }
    case mad::AttrId::kNodeDescription: {
      if (!get) break;
      mad::encode(mad::NodeDescription{n.description}, mad::Payload(a.data));
      return a;
    }
    case mad::AttrId::kPortInfo:
      return port_info_request(n, in_port, req);
    case mad::AttrId::kMlnxExtendedPortInfo: {
      // Modifier = port; a CA answers for the port the SMP entered by (modifier 0).
      const PortNum port = !n.is_switch() && mod == 0 ? in_port : static_cast<PortNum>(mod);
      if (mod > n.num_ports() || !n.ports[port].mlnx_ext) break;
      mad::MlnxExtPortInfo& epi = *n.ports[port].mlnx_ext;
      if (set) {
        const auto want = mad::decode<mad::MlnxExtPortInfo>(req.data());
        if (want.ok() && want->state_change_enable != 0)
          epi.link_speed_enabled = want->link_speed_enabled & epi.link_speed_supported;
      }
      mad::encode(epi, mad::Payload(a.data));
      return a;
    }
    case mad::AttrId::kSwitchInfo: {
      if (!n.switch_info) break;
      if (set) {
        // IBA 14.2.5.4: LinearFDBTop and LifeTimeValue are writable; PortStateChange is
        // cleared by writing 1; the rest is read-only.
        mad::SwitchInfo want;
        mad::SwitchInfo::fields(want, [&](MAD_FIELDS f, auto& member) {
          mad::detail::get_field(req.data(), f, member);
        });
        if (want.linear_fdb_top >= n.switch_info->linear_fdb_cap) {
          a.status = mad::kStatusInvalidValue;
        } else {
          n.switch_info->linear_fdb_top = want.linear_fdb_top;
          n.switch_info->life_time_value = want.life_time_value;
          if (want.port_state_change) n.switch_info->port_state_change = false;
          // MulticastFDBTop is writable where port 0 advertises it (IBA 14.2.5.4).
          if (options_.mcast_fdb_top_cap) n.switch_info->multicast_fdb_top = want.multicast_fdb_top;
        }
      }
      mad::encode(*n.switch_info, mad::Payload(a.data));
      return a;
    }
    case mad::AttrId::kLinearForwardingTable: {
      if (!n.switch_info) break;
      const std::size_t first = static_cast<std::size_t>(mod) * mad::LftBlock::kEntries;
      if (mod > 0xffff || first >= n.lft.size()) {
        a.status = mad::kStatusInvalidValue;
        return a;
      }
      if (set) {
        for (std::size_t e = 0; e < mad::LftBlock::kEntries && first + e < n.lft.size(); ++e)
          n.lft[first + e] = req.data()[e];
      }
      mad::LftBlock b;
      for (std::size_t e = 0; e < mad::LftBlock::kEntries; ++e)
        b.ports[e] = first + e < n.lft.size() ? n.lft[first + e] : PortNum{0xFF};
      mad::encode(b, mad::Payload(a.data));
      return a;
    }
    case mad::AttrId::kMulticastForwardingTable: {
      if (!n.switch_info) break;
      // IBA 14.2.5.12: block in bits 0-8 (32 MLIDs), position in bits 28-31 (16 ports).
      const std::size_t block = mad::mft_block_of(mod);
      const std::size_t position = mad::mft_position_of(mod);
      const std::size_t positions = n.mcast_positions();
      if ((mod & 0x0FFFFE00u) != 0 || position >= positions ||
          block * mad::MftBlock::kEntries >= n.switch_info->multicast_fdb_cap) {
        a.status = mad::kStatusInvalidValue;
        return a;
      }
      mad::MftBlock b;
      if (set) b = mad::MftBlock::decode_payload(req.data());
      for (std::size_t e = 0; e < mad::MftBlock::kEntries; ++e) {
        const std::size_t at = (block * mad::MftBlock::kEntries + e) * positions + position;
        if (at >= n.mft.size()) continue;
        if (set) n.mft[at] = b.masks[e];
        b.masks[e] = n.mft[at];
      }
      mad::encode(b, mad::Payload(a.data));
      return a;
    }
    case mad::AttrId::kPKeyTable: {
      const PortNum port = n.is_switch() ? static_cast<PortNum>(mod >> 16) : in_port;
      const std::size_t block = mod & 0xffff;
      if (port > n.num_ports() || (!n.is_switch() && port == 0)) {
        a.status = mad::kStatusInvalidValue;
        return a;
      }
      auto& table = n.ports[port].pkeys;
      const std::size_t first = block * mad::PKeyBlock::kEntries;
      if (first >= table.size()) {
        a.status = mad::kStatusInvalidValue;
        return a;
      }
      if (set) {
        const auto b = mad::PKeyBlock::decode_payload(req.data());
        for (std::size_t e = 0; e < mad::PKeyBlock::kEntries && first + e < table.size(); ++e)
          table[first + e] = b.pkeys[e];
      }
      mad::PKeyBlock b;
      for (std::size_t e = 0; e < mad::PKeyBlock::kEntries && first + e < table.size(); ++e)
        b.pkeys[e] = table[first + e];
      mad::encode(b, mad::Payload(a.data));
      return a;
    }
    case mad::AttrId::kSlToVlTable: {
      if (set) stats_.sl2vl_set_mods.push_back(mod);
      // IBA 14.2.5.8: a CA port has one table; a switch one per (input, output) pair,
      // modifier bits 15-8 input and 7-0 output, port 0 as output only when enhanced.
      // Bits 16-17 (all output / all input ports at once) only in a Set to a switch that
      // advertises OptimizedSLtoVLMappingProgramming (FakeOptions::optimized_sl2vl).
      PortNum out = in_port;
      std::size_t in = 0;
      if (n.is_switch()) {
        out = static_cast<PortNum>(mod & 0xff);
        in = (mod >> 8) & 0xff;
        const bool enhanced = n.switch_info && n.switch_info->enhanced_port0;
        const std::uint32_t all = mod >> 16;
        const bool optimized =
            n.switch_info && mad::optimized_sl2vl_programming(n.switch_info->optimized_sl_to_vl);
        if (all > 3 || (all != 0 && (!set || !optimized)) || out > n.num_ports() ||
            in > n.num_ports() || (out == 0 && !enhanced && (all & 1) == 0)) {
          a.status = mad::kStatusInvalidValue;
          return a;
        }
        if (all != 0) {
          for (PortNum o = 0; o <= n.num_ports(); ++o) {
            if ((all & 1) == 0 && o != out) continue;
            if (o == 0 && !enhanced) continue;
            auto& ts = n.ports[o].sl2vl;
            for (std::size_t i = 0; i < ts.size(); ++i) {
              if ((all & 2) == 0 && i != in) continue;
              std::copy_n(req.data().begin(), ts[i].size(), ts[i].begin());
            }
          }
          a.data.fill(0);
          std::copy_n(req.data().begin(), 8, a.data.begin());
          return a;
        }
      }
      auto& tables = n.ports[out].sl2vl;
      if (in >= tables.size()) {
        a.status = mad::kStatusInvalidValue;
        return a;
      }
      if (set) std::copy_n(req.data().begin(), tables[in].size(), tables[in].begin());
      a.data.fill(0);
      std::copy(tables[in].begin(), tables[in].end(), a.data.begin());
      return a;
    }
    case mad::AttrId::kVlArbitration: {
      // IBA 14.2.5.9: block 1-4 in bits 31-16, the switch's output port in bits 15-0;
      // a block exists only as the port's VLCap and VLArbitration caps say.
      const unsigned block = mod >> 16;
      const std::uint32_t port_field = n.is_switch() ? (mod & 0xffff) : in_port;
      const bool enhanced = n.switch_info && n.switch_info->enhanced_port0;
      if (port_field > n.num_ports() || (n.is_switch() && port_field == 0 && !enhanced)) {
        a.status = mad::kStatusInvalidValue;
        return a;
      }
      FakePort& port = n.ports[port_field];
      const mad::PortInfo& pi = port.info;
      if (!mad::vlarb_block_exists(pi.vl_cap, pi.vl_arbitration_low_cap, pi.vl_arbitration_high_cap,
                                   block)) {
        a.status = mad::kStatusInvalidValue;
        return a;
      }
      auto& t = port.vlarb[block - 1];
      if (set) {
        const unsigned cap = block <= 2 ? pi.vl_arbitration_low_cap : pi.vl_arbitration_high_cap;
        const unsigned entries = block % 2 == 1 ? std::min(cap, 32u) : cap - 32;
        for (unsigned e = 0; e < entries && e < 32; ++e) {
          t[2 * e] = req.data()[2 * e] & 0x0f;
          t[2 * e + 1] = req.data()[2 * e + 1];
        }
      }
      a.data.fill(0);
      std::copy(t.begin(), t.end(), a.data.begin());
      return a;
    }
    case mad::AttrId::kGuidInfo: {
      // IBA 14.2.5.5: the table of the port the SMP entered (a switch: port 0's; its
      // external ports have none), modifier = block; index 0 is read-only.
      auto& table = n.ports[n.is_switch() ? 0 : in_port].guids;
      const std::size_t first = std::size_t{mod} * mad::GuidInfoBlock::kEntries;
      if (mod >= mad::GuidInfoBlock::kMaxBlocks || first >= table.size()) {
        a.status = mad::kStatusInvalidValue;
        return a;
      }
      if (set) {
        const auto b = mad::GuidInfoBlock::decode_payload(req.data());
        for (std::size_t e = 0; e < mad::GuidInfoBlock::kEntries && first + e < table.size(); ++e)
          if (first + e != 0) table[first + e] = b.guids[e];
      }
      mad::GuidInfoBlock b;
      for (std::size_t e = 0; e < mad::GuidInfoBlock::kEntries && first + e < table.size(); ++e)
        b.guids[e] = table[first + e];
      mad::encode(b, mad::Payload(a.data));
      return a;
    }
    default:
      break;
  }
  a.status = mad::kStatusAttrUnsupported;
  return a;
}

void FakeFabric::spoil(const FakeNode& n, mad::IncomingMad& in) {
  auto& b = in.bytes;
  switch (n.faults.garbage) {
    case Garbage::kNone:
      return;
    case Garbage::kBadNodeInfo:
      if (get16(b.data() + 16) == static_cast<std::uint16_t>(mad::AttrId::kNodeInfo)) {
        b[64 + 3] = 0;                                           // NumPorts
        std::fill(b.begin() + 64 + 12, b.begin() + 64 + 28, 0);  // NodeGUID, PortGUID
      }
      return;
    case Garbage::kWrongAttribute:
      put16(b.data() + 16, get16(b.data() + 16) == 0x0020 ? 0x0011 : 0x0020);
      return;
    case Garbage::kShortMad:
      in.length = 40;
      std::fill(b.begin() + 40, b.end(), 0);
      return;
    case Garbage::kNotAnSmp:
      b[2] = 2;
      return;
    case Garbage::kRandomPayload:
      for (std::size_t i = 64; i < 128; ++i)
        b[i] = static_cast<std::uint8_t>(rng_());
      return;
    case Garbage::kErrorStatus: {
      const std::uint16_t d = b[1] == mad::kClassSmiDirected ? kStatusD : 0;
      put16(b.data() + 4, static_cast<std::uint16_t>(d | mad::kStatusInvalidValue));
      return;
    }
  }
}

void FakeFabric::deliver(mad::IncomingMad in, std::chrono::milliseconds latency) {
  inbox_.emplace(clock_.now() + latency, std::move(in));
}

Status FakeFabric::send(const mad::OutgoingMad& out) {
  auto parsed = mad::Smp::parse(out.bytes);
  if (!parsed.ok()) return {};  // the wire eats it
  const mad::Smp& req = *parsed;
  const auto method = req.method();
  if (method != mad::Method::kGet && method != mad::Method::kSet) {
    sm_responses_.push_back(req);  // GetResp, TrapRepress, ... from the SM
    return {};
  }
  ++stats_.requests;
  ++stats_.by_kind[{method, req.attr_id()}];
  if (on_request_) on_request_(req);
  if (!mkey_leases_.empty()) expire_mkey_leases();

  for (auto it = link_events_.begin(); it != link_events_.end();) {
    if (stats_.requests > it->after) {
      set_link(it->node, it->port, false);
      it = link_events_.erase(it);
    } else {
      ++it;
    }
  }
  if (std::find(lose_nth_.begin(), lose_nth_.end(), stats_.requests) != lose_nth_.end()) {
    ++stats_.dropped;
    return {};
  }

  const auto arrival = req.directed() ? route_directed(req) : route_lid(out.dlid);
  if (!arrival) {
    ++stats_.lost;
    return {};
  }
  FakeNode& n = nodes_[arrival->node];
  if (n.gone || n.faults.silent) {
    ++stats_.lost;
    return {};
  }
  // The SMA checks the M_Key before anything else, for every attribute (IBA 14.2.4):
  // a switch against its port 0, a CA against the port the SMP entered by.
  const MkeyVerdict mkey = check_mkey(arrival->node, n.is_switch() ? 0 : arrival->port, req);
  if (mkey == MkeyVerdict::kDrop) {
    ++stats_.lost;
    ++stats_.mkey_dropped;
    return {};
  }
  Answer ans = answer(n, arrival->port, req);
  if (mkey == MkeyVerdict::kHideKey && req.attr_id() == mad::AttrId::kPortInfo)
    std::fill(ans.data.begin(), ans.data.begin() + 8, std::uint8_t{0});  // PortInfo.M_Key
  if (ans.none) {
    ++stats_.lost;
    return {};
  }

  mad::Smp resp = req.response(mad::ConstPayload(ans.data));
  mad::IncomingMad in;
  in.bytes = resp.bytes();
  in.length = mad::kMadSize;
  if (req.directed()) {
    put16(in.bytes.data() + 4, static_cast<std::uint16_t>(kStatusD | ans.status));
    std::copy(arrival->return_path.begin(), arrival->return_path.end(), in.bytes.begin() + 192);
    in.slid = mad::kPermissiveLid;
  } else {
    put16(in.bytes.data() + 4, ans.status);
    const mad::PortInfo pi = port_info(arrival->node, arrival->port);
    in.slid = pi.lid;
  }
  // The kernel owns TID bits 32-63 (hi_tid) and hands them back in the response.
  put16(in.bytes.data() + 8, static_cast<std::uint16_t>(options_.hi_tid >> 16));
  put16(in.bytes.data() + 10, static_cast<std::uint16_t>(options_.hi_tid));
  spoil(n, in);

  ++n.answered;
  if (n.faults.vanish_after && n.answered >= *n.faults.vanish_after) vanish(arrival->node);

  if (loss_rate_ > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < loss_rate_) {
    ++stats_.dropped;
    return {};
  }
  ++stats_.answered;
  deliver(std::move(in), n.faults.latency);
  return {};
}

std::optional<mad::IncomingMad> FakeFabric::receive(std::chrono::milliseconds max_wait) {
  const auto now = clock_.now();
  if (!inbox_.empty()) {
    auto first = inbox_.begin();
    if (first->first <= now + max_wait) {
      if (first->first > now) clock_.set(first->first);
      mad::IncomingMad in = std::move(first->second);
      inbox_.erase(first);
      return in;
    }
  }
  clock_.advance(max_wait);
  return std::nullopt;
}

// IBA 14.2.4 as qib's check_mkey() implements it: a request is valid when the port's
// M_Key is 0 or equals the header's. An invalid Get is still answered at ProtectBits 0
// (real key shown) and 1 (key shown as 0); everything else invalid is dropped and
// counted as a violation, which starts the lease timer. A valid request stops it.
FakeFabric::MkeyVerdict FakeFabric::check_mkey(std::uint32_t node, PortNum key_port,
                                               const mad::Smp& req) {
  mad::PortInfo& pi = nodes_[node].ports[key_port].info;
  const PortRef ref{node, key_port};
  if (pi.m_key == 0 || pi.m_key == req.m_key()) {
    mkey_leases_.erase(ref);
    return MkeyVerdict::kValid;
  }
  if (req.method() == mad::Method::kGet && pi.m_key_protect_bits == 0) return MkeyVerdict::kValid;
  if (req.method() == mad::Method::kGet && pi.m_key_protect_bits == 1) return MkeyVerdict::kHideKey;
  if (pi.m_key_violations != 0xFFFF) ++pi.m_key_violations;
  if (pi.m_key_lease_period != 0 && !mkey_leases_.contains(ref))
    mkey_leases_[ref] = clock_.now() + std::chrono::seconds(pi.m_key_lease_period);
  return MkeyVerdict::kDrop;
}

void FakeFabric::expire_mkey_leases() {
  const auto now = clock_.now();
  for (auto it = mkey_leases_.begin(); it != mkey_leases_.end();) {
    if (it->second > now) {
      ++it;
      continue;
    }
    // IBA 14.2.4.2: the lease ran out; the key stays but no longer protects.
    nodes_[it->first.node].ports[it->first.port].info.m_key_protect_bits = 0;
    it = mkey_leases_.erase(it);
  }
}

FakeSm& FakeFabric::add_sm(std::uint32_t node, PortNum port, const mad::SmInfo& info) {
  FakePort& p = nodes_[node].ports[port];
  p.sm = FakeSm{};
  p.sm->info = info;
  p.info.capability_mask |= mad::kCapIsSm;
  return *p.sm;
}

std::vector<mad::Smp> FakeFabric::sm_traps() const {
  std::vector<mad::Smp> out;
  for (const auto& s : sm_responses_)
    if (s.method() == mad::Method::kTrap) out.push_back(s);
  return out;
}

void FakeFabric::inject(const mad::Smp& smp, Lid slid) {
  mad::IncomingMad in;
  in.bytes = smp.bytes();
  in.length = mad::kMadSize;
  in.slid = slid;
  deliver(std::move(in), std::chrono::milliseconds(0));
}

}  // namespace ibsm::fake
