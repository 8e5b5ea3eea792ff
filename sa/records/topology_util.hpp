// Helpers of the topology record handlers (PortInfo, SwitchInfo, LFT, MFT,
// SMInfo, Link, GUIDInfo records): the order OpenSM lists nodes in, and the LID
// range a port answers to.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sa/context.hpp"
#include "sa/pkey_access.hpp"
#include "sa/snapshot.hpp"

namespace ibsm::sa {

// OpenSM walks its node, switch and SM tables (cl_qmap) in key order, and the
// keys are GUIDs in network byte order compared as host integers: on the
// little-endian hosts it runs on, that is the order of the byte-swapped GUID.
// Listing nodes the same way makes whole-table answers come out in OpenSM's
// order, which matters where a transport keeps only the first MAD (umad2sim).
inline std::uint64_t opensm_key_order(std::uint64_t guid) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v = (v << 8) | ((guid >> (8 * i)) & 0xff);
  return v;
}

// Node indexes in OpenSM's table order; switches only when `switches_only`.
inline std::vector<std::uint32_t> nodes_in_opensm_order(const Snapshot& snap, bool switches_only) {
  std::vector<std::uint32_t> order;
  order.reserve(snap.nodes.size());
  for (const SnapNode& n : snap.nodes)
    if (!switches_only || n.is_switch()) order.push_back(n.index);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return opensm_key_order(snap.nodes[a].guid()) < opensm_key_order(snap.nodes[b].guid());
  });
  return order;
}

// The base LID and LMC a port answers to: its own for an end port, port 0's for
// every port of a switch (IBA 14.2.5.6: switch external ports have no LID).
struct LidRange {
  Lid base = 0;
  std::uint8_t lmc = 0;
  bool contains(Lid lid) const {
    return base != 0 && lid >= base && static_cast<unsigned>(lid - base) < (1u << lmc);
  }
};
inline LidRange lid_range(const Snapshot& snap, PortRef p) {
  const SnapNode& n = snap.node(p);
  const PortNum holder = n.is_switch() ? 0 : p.port;
  if (holder >= n.ports.size()) return {};
  return {n.ports[holder].lid, n.ports[holder].lmc};
}

// OpenSM's osm_physp_share_pkey on the physical ports themselves: a switch
// external port is judged by its own P_Key table (with partition enforcement it
// holds the keys of the end port it faces), not by port 0's. The same port
// shares with itself; an empty table (never read) hides nothing.
inline bool physp_share_pkey(const Snapshot& snap, PortRef a, PortRef b) {
  if (a == b) return true;
  const auto& ta = snap.port(a).pkeys;
  const auto& tb = snap.port(b).pkeys;
  if (ta.empty() || tb.empty()) return true;
  return tables_share_pkey(ta, tb);
}

// True when the requester may see a physical port (trusted requests see all).
inline bool physp_visible(const RequestContext& ctx, PortRef p) {
  return ctx.trusted || physp_share_pkey(ctx.snap, ctx.requester, p);
}

// A switch's port 0, the port SwitchInfo/LFT/MFT records are about.
inline PortRef switch_port0(const SnapNode& n) {
  return PortRef{n.index, 0};
}

}  // namespace ibsm::sa
