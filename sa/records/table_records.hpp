// What the three table records (P_KeyTableRecord, SLtoVLMappingTableRecord,
// VLArbitrationTableRecord) share: the ports they walk, in OpenSM's order, the LID
// they carry, and the partition rule OpenSM applies to them (osm_physp_share_pkey on
// the physical port the record describes, trusted requesters included).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "sa/pkey_access.hpp"
#include "sa/records/record_util.hpp"

namespace ibsm::sa::tables {

// The LID a table record carries: an end port's base LID, a switch's port-0 LID for
// every port of the switch.
inline Lid record_lid(const Snapshot& s, PortRef p) {
  const SnapNode& n = s.node(p);
  if (n.is_switch()) return n.ports.empty() ? Lid{0} : n.ports[0].lid;
  return s.port(p).lid;
}

// Whether a physical port exists for the records: every port 0..NumPorts of a switch
// (OpenSM keeps one for each, up or down), the ports of a CA that were read.
inline bool port_exists(const SnapNode& n, PortNum num) {
  if (num >= n.ports.size()) return false;
  return n.is_switch() || (num != 0 && n.ports[num].present);
}

// A table with no valid P_Key counts as absent (OpenSM's keys map is empty then).
inline bool has_valid_pkey(std::span<const std::uint16_t> t) {
  return std::any_of(t.begin(), t.end(), [](std::uint16_t k) { return (k & kPKeyBaseMask) != 0; });
}

// OpenSM's osm_physp_share_pkey as its table-record handlers use it: the requester's
// port against the port the record describes, each with its own P_Key table (a switch
// external port's, not port 0's); the same port, or a port without a table, shares.
// There is no exception for trusted requesters (IBA 15.4.3 applies to all SA queries).
inline bool requester_shares(const RequestContext& ctx, PortRef port) {
  const PortRef req = ctx.requester;
  if (!req.valid() || !port.valid()) return false;
  if (req == port) return true;
  const auto& a = ctx.snap.port(req).pkeys;
  const auto& b = ctx.snap.port(port).pkeys;
  if (!has_valid_pkey(a) || !has_valid_pkey(b)) return true;
  return tables_share_pkey(a, b);
}

// Every LID holder (CA port, switch port 0) in the order OpenSM walks its
// port_guid_tbl when a query names no LID: the map is keyed by the GUID in network
// byte order compared as a host integer, so on the x86 hosts it runs on the order is
// that of the byte-reversed GUID. Keeping it makes a trimmed table start with the
// same records as OpenSM's.
inline std::uint64_t byte_reversed(std::uint64_t v) {
  std::uint64_t r = 0;
  for (int i = 0; i < 8; ++i, v >>= 8)
    r = (r << 8) | (v & 0xff);
  return r;
}
inline std::vector<PortRef> holders_in_opensm_order(const Snapshot& s) {
  std::vector<std::pair<std::uint64_t, PortRef>> keyed;
  keyed.reserve(s.by_port_guid.size());
  for (const auto& [guid, ref] : s.by_port_guid)
    keyed.emplace_back(byte_reversed(guid), ref);
  std::sort(keyed.begin(), keyed.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<PortRef> out;
  out.reserve(keyed.size());
  for (const auto& k : keyed)
    out.push_back(k.second);
  return out;
}

// The ports a query covers: the one its LID names (any LID of the LMC range), or all.
inline std::vector<PortRef> holders_for(const RequestContext& ctx, bool by_lid, Lid lid) {
  if (!by_lid) return holders_in_opensm_order(ctx.snap);
  const PortRef p = ctx.snap.find_lid(lid);
  if (!p.valid()) return {};
  return {p};
}

}  // namespace ibsm::sa::tables
