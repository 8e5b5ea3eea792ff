// Which way is up, for up*/down* routing (Schroeder et al., "Autonet", IEEE JSAC 9(8)
// 1991; OpenSM osm_ucast_updn.c and osm_ucast_dnup.c): the roots, every switch's rank
// (BFS hops from the nearest root) and a strict total order of the switches that makes
// every inter-switch channel either an up or a down channel.
//
// A path is legal when it never takes an up channel after a down channel. Because the
// order is strict (no channel is both up and down, no cycle of up channels), every
// dependency cycle would need a down->up turn, so the legal paths have an acyclic
// channel dependency graph (Dally & Seitz 1987).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "routing/engine.hpp"
#include "routing/hop_matrix.hpp"

namespace ibsm::routing {

inline constexpr std::uint32_t kNoRank = UINT32_MAX;

struct UpDownOrder {
  std::vector<std::uint32_t> roots;  // switch indices of rank 0
  std::vector<std::uint32_t> rank;   // per switch
  // Per switch: the channel s -> t goes up iff position[t] < position[s].
  std::vector<std::uint32_t> position;
  std::vector<Error> warnings;  // ignored root GUIDs, roots chosen by fallback
};

// True when the channel from -> to is an up channel under `order`.
inline bool goes_up(const UpDownOrder& order, std::uint32_t from, std::uint32_t to) {
  return order.position[to] < order.position[from];
}

// OpenSM's automatic root detection (updn_find_root_nodes_by_min_hop): for each switch,
// a histogram of the hop distances to all CAs and routers (weighted by how many hang off
// each switch); the switch is a root when exactly one bar holds more than 90% of them
// and no other bar more than 5%. It finds the top level of fat trees and nothing on
// tori or random graphs.
// Unlike OpenSM, only the candidates farthest from the nearest end-port switch (the top
// level) are kept (top_level_only): on a 3-level tree of more than 20 pods OpenSM's rule
// also elects the aggregation level.
std::vector<std::uint32_t> roots_by_hop_histogram(const Topology& topo, const HopMatrix& hops);
std::vector<std::uint32_t> top_level_only(const Topology& topo, const HopMatrix& hops,
                                          const std::vector<std::uint32_t>& candidates);

// The ordering updn uses: roots from `root_guids` (switch GUIDs, or an end port's GUID
// for the switch it hangs off; unknown GUIDs are ignored with a warning), else OpenSM's
// histogram rule. Every connected group of switches left without a root gets its centre
// (least total hop distance to the end ports, then lowest GUID) as root, so that every
// switch has a rank; OpenSM instead gives up ("no root nodes were found") and falls back
// to minhop, which is not deadlock free. Ties of rank are broken as OpenSM does: towards
// the lower GUID is up; unlike OpenSM, this holds between two roots too (OpenSM calls
// root->root up in both directions, which allows a cycle through a ring of roots).
// `guid_ids` (ids_guid_file, -m: switch GUID -> id) replaces a listed switch's GUID in
// that tie-break, as OpenSM's update_id does.
UpDownOrder updn_order(const Topology& topo, const HopMatrix& hops,
                       const std::vector<std::uint64_t>& root_guids,
                       const std::vector<std::pair<std::uint64_t, std::uint64_t>>& guid_ids = {});

// The ordering dnup uses (osm_ucast_dnup.c): rank 0 are the switches with an end port
// attached, ranks grow away from them, and "up" (the first phase of a legal path) is
// towards higher rank: paths climb away from the leaves first, then descend to them.
UpDownOrder dnup_order(const Topology& topo, const HopMatrix& hops);

}  // namespace ibsm::routing
