// The shape of a fat tree as the ftree engine sees it: a rank per switch (0 = top),
// every inter-switch link classified as going up or down, and an indexing order that
// fixes the order of leaves (hence of compute nodes) and of port groups.
//
// Unlike OpenSM's ftree (osm_ucast_ftree.c), no purity is required: the ranks come from
// the topology itself, so missing links and missing switches only change which channels
// exist. Without roots, ranks come from a breadth-first search starting at the leaves
// (switches with compute nodes), the top being the farthest level; with roots
// (root_guid_file), from a breadth-first search starting at the roots, as OpenSM's
// fabric_rank_from_roots does. Adjacent switches then differ by at most one rank; links
// between switches of equal rank ("horizontal") are never used, which keeps every route
// up*/down* and therefore free of credit loops on one VL.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing::ftree {

// One direction of an inter-switch link, stored at the switch it leaves.
struct Channel {
  PortNum port = 0;        // local port
  std::uint32_t peer = 0;  // switch index
  PortNum peer_port = 0;   // port on the peer
};

struct TreeShape {
  std::vector<std::uint32_t> rank;    // per switch; 0 = top
  std::vector<std::uint32_t> index;   // per switch: position in the indexing order
  std::vector<std::uint32_t> leaves;  // switches with compute nodes, in index order
  // Per switch, up channels (to rank - 1) and down channels (to rank + 1) as CSR ranges
  // [first[s], first[s + 1]), sorted by (peer index, port): parallel links to the same
  // peer are adjacent, forming OpenSM's "port group".
  std::vector<std::uint32_t> up_first;
  std::vector<Channel> up;
  std::vector<std::uint32_t> down_first;
  std::vector<Channel> down;
  std::size_t links = 0;       // inter-switch links (each counted once)
  std::size_t horizontal = 0;  // of those, between switches of equal rank (unused)
};

struct ShapeInput {
  std::vector<char> is_leaf;            // per switch: has a compute node attached
  std::vector<std::uint32_t> roots;     // root switches (may be empty)
  std::vector<std::uint64_t> sort_key;  // per switch: GUID, or its id from ids_guid_file
  bool index_from_root = false;         // quasi_ftree_indexing: index from the first root
};

// Ranks, channels and indexing; fails with kErrFtreeNotATree when the fabric has too many
// links between switches of equal rank to be a tree (a torus, a mesh of leaves).
Result<TreeShape> find_tree_shape(const Topology& topo, const ShapeInput& in);

// Share of horizontal links above which the fabric is refused: degraded trees have none
// (links only ever disappear), a torus has nearly only those.
inline constexpr double kMaxHorizontalShare = 0.10;

}  // namespace ibsm::routing::ftree
