// Multicast spanning trees: the members of one MLID in, per switch the port mask of
// that MLID out (IBA 14.2.5.12 MulticastForwardingTable). Pure: no MADs, no clocks.
//
// A switch forwards a multicast packet out of every port in the MLID's mask except
// the one it arrived on (IBA chapter 18, switch multicast forwarding). So the masks
// must form a tree over the switches that carries each packet to every member port
// exactly once: a loop would multiply packets, two paths would deliver duplicates.
//
// The tree is rooted, as OpenSM's (osm_mcast_mgr.c), at the switch that minimises
// the largest hop count to the members (ties: smallest total hop count, then lowest
// GUID, so the root does not depend on discovery order), and every member switch
// joins it along a shortest path towards the root. Among equally short uplinks the
// choice is spread by the MLID, so different groups use different links instead of
// all piling onto the lowest-numbered port.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/engine.hpp"
#include "routing/hop_matrix.hpp"

namespace ibsm::routing {

// A member end port of a group, seen from the fabric: the switch port it hangs off,
// or port 0 of a switch that is itself a member.
struct McastMember {
  std::uint32_t sw = 0;  // index into Topology::switches
  PortNum port = 0;      // 0: the switch itself; otherwise the port facing a member CA
  bool operator==(const McastMember&) const = default;
};

// Per switch of the tree, its mask in MFT form: masks[first + p] covers ports
// 16p .. 16p+15 (bit i = port 16p+i), p < positions = (num_ports + 1 + 15) / 16.
struct McastTree {
  struct Entry {
    std::uint32_t sw = 0;
    std::uint32_t first = 0;
    std::uint16_t positions = 0;
  };
  std::vector<Entry> entries;        // sorted by switch index; empty: no forwarding at all
  std::vector<std::uint16_t> masks;  // all entries' words, back to back
  std::uint32_t root = UINT32_MAX;   // switch index of the root (UINT32_MAX: no tree)
  std::uint32_t unreachable = 0;     // member ports the tree could not reach (split fabric)

  const Entry* find(std::uint32_t sw) const;
  bool has_port(std::uint32_t sw, PortNum port) const;
  // The ports in a switch's mask, ascending (empty when the switch is not in the tree).
  std::vector<PortNum> ports(std::uint32_t sw) const;
  std::size_t memory_bytes() const {
    return entries.capacity() * sizeof(Entry) + masks.capacity() * sizeof(std::uint16_t);
  }
};

// Builds trees for one topology; keeps scratch space between calls so building many
// groups does not allocate per switch. Not thread-safe (one builder per thread).
class McastTreeBuilder {
 public:
  // `hops` must have been computed from `topo` (HopMatrix::compute).
  McastTreeBuilder(const Topology& topo, const HopMatrix& hops);

  // Members may repeat and come in any order. Fewer than two distinct member ports:
  // an empty tree (nothing to forward, OpenSM's rule). `salt` (the MLID) picks among
  // equally short uplinks.
  McastTree build(std::span<const McastMember> members, std::uint32_t salt) const;

 private:
  const Topology& topo_;
  const HopMatrix& hops_;
  // Inter-switch links of each switch sorted by local port: deterministic choices
  // whatever order the topology lists them in.
  std::vector<std::uint32_t> link_offset_;
  std::vector<Link> uplinks_;
  mutable std::vector<std::uint32_t> slot_;   // switch -> entry index, UINT32_MAX: none
  mutable std::vector<std::uint16_t> worst_;  // per candidate root: largest distance
  mutable std::vector<std::uint32_t> total_;  // per candidate root: sum of distances
};

}  // namespace ibsm::routing
