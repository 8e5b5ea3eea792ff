// Routing of one destination at a time on a ranked fat tree (routing/ftree/tree_shape.hpp),
// the way OpenSM's ftree does it (osm_ucast_ftree.c, fabric_route_downgoing_by_going_up):
//
// 1. Main path: from the destination's switch climb to a top switch, at every switch over
//    the up port group that carries the fewest destinations' main paths so far, then its
//    least loaded port. Destinations routed in leaf/port order therefore spread over the
//    top switches like d-mod-k, each owning a distinct one on a complete tree.
// 2. Down entries: every ancestor of the destination's switch (the switches that can
//    reach it going only down) points down, main-path switches along the main path,
//    the others towards the switch they were first reached from in a depth-first walk
//    that takes the main path first, then the other up groups least loaded first.
// 3. Up entries: from each ancestor in that order, walk down and let every switch not
//    routed yet point up to the switch it was reached from (least loaded parallel port).
//    A switch thus climbs only as far as the lowest main-path switch above it, and the
//    destination's routes form a spanning tree rooted at its top switch. Where a link of
//    that tree is missing, the switches below the gap are picked up by the next ancestor
//    in the walk, a sibling of the main path chosen by load: the tree is repaired at the
//    gap instead of being rebuilt, so bandwidth degrades with the number of failures.
//
// Every route is up*-then-down*: no credit loops on one VL. Optional extensions that
// break this only for traffic that switches originate (connect_roots) or for I/O nodes
// (max_reverse_hops) are applied last, to switches left without an entry.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "routing/engine.hpp"
#include "routing/ftree/tree_shape.hpp"

namespace ibsm::routing::ftree {

struct Destination {
  std::uint32_t sw = 0;  // switch the destination hangs off (or is)
  PortNum port = 0;      // its port there; 0 for the switch itself
  Lid base_lid = 0;
  std::uint8_t lmc = 0;
  bool counted = true;        // updates the load counters (not for switch LIDs)
  bool compute_node = false;  // unreachable from a leaf: the fabric is no tree
  unsigned reverse_hops = 0;  // I/O nodes: wrong-way hops allowed to reach it
};

class Router {
 public:
  Router(const Topology& topo, const TreeShape& shape, bool connect_roots);

  // LID base_lid + k of `d`. `climbed` holds the switches the main paths of d's earlier
  // LIDs went through (empty for k = 0); this LID avoids them where it can and adds its own.
  void route(const Destination& d, unsigned k, std::vector<std::uint32_t>& climbed);
  // A missing compute node of a partly populated leaf: counters only, as OpenSM's
  // dummy CAs, so that the other leaves' destinations stay aligned.
  void route_dummy(std::uint32_t leaf);

  // (leaf, compute-node LID) pairs with no route; non-zero means "not a tree".
  std::size_t unreachable_from_leaves() const { return leaf_misses_; }
  // (switch with end ports, other LID) pairs with no route.
  std::size_t unreachable_other() const { return other_misses_; }
  std::vector<std::pair<std::uint32_t, Lid>> examples() const { return examples_; }

  Routes take_routes();

 private:
  void climb(std::uint32_t home, bool count, bool avoid_marked);
  void mark_ancestors(std::uint32_t home, PortNum* row);
  void pull_subtree(std::uint32_t root, PortNum* row);
  void extend(PortNum* row, unsigned max_depth, bool only_switches_without_end_ports);
  void account(const Destination& d, Lid lid);

  const Topology& topo_;
  const TreeShape& t_;
  bool connect_roots_;
  std::size_t n_;
  std::size_t lft_size_;
  std::vector<PortNum> by_lid_;  // [lid * n + switch]

  std::vector<std::uint32_t> down_load_;  // per up channel: main paths going down over it
  std::vector<std::uint32_t> up_load_;    // per up channel: destinations routed up over it
  std::vector<std::uint32_t> group_end_;  // per up channel: end of its port group
  std::vector<std::uint32_t> group_begin_;
  std::vector<std::uint32_t> mate_;  // per down channel: the same link's up channel

  std::vector<std::uint32_t> routed_;  // per switch: == epoch_ once it has an entry
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> main_at_;   // per switch: epoch_ if on the main path
  std::vector<std::uint32_t> main_ch_;   // per switch on the main path: its up channel
  std::vector<std::uint32_t> lmc_used_;  // per switch: port_epoch_ if in `climbed`
  std::uint32_t port_epoch_ = 0;

  std::vector<std::uint32_t> path_;       // main path as up channels
  std::vector<std::uint32_t> ancestors_;  // preorder
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack_;
  std::vector<std::uint32_t> work_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> groups_scratch_;  // (load, channel)
  std::vector<char> has_end_ports_;
  std::vector<char> is_leaf_;
  std::vector<std::uint32_t> end_port_switches_;

  std::size_t leaf_misses_ = 0;
  std::size_t other_misses_ = 0;
  std::vector<std::pair<std::uint32_t, Lid>> examples_;
};

}  // namespace ibsm::routing::ftree
