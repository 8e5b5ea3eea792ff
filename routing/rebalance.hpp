// Route rebalancing: a local search over finished destination-based routes that lowers
// the busiest channel's all-to-all load (the edge forwarding index, EFI).
//
// minhop and sssp choose each destination's next hops greedily, one destination after the
// other: a choice made early cannot see the destinations routed later, and on irregular
// fabrics (dragonflies, random graphs, tori) that leaves a few channels 2-9 % above what
// OpenSM's engines reach (docs/routing.md, "Route balance"). The pass revisits the finished
// tables: it moves one (switch, destination) next hop to another minimal port when that
// takes load off a channel at the maximum without bringing any channel to it. It runs
// before dfsssp's and lash's layering, which then layer the final paths.
//
// The engines hand it their LID-major next hops ([lid * switches + switch] -> port), the
// end ports that count as sources per switch, and the destinations whose routes load the
// channels (the same all-to-all model their greedy step balances: every source's route to
// every counted LID). Only minimal next hops are ever chosen (a port whose peer switch is
// one hop closer to the destination), so paths keep their length and stay loop free; a
// destination with any non-minimal entry (sssp where its weights left the shortest path,
// or minhop with hop weights) is counted but never changed.
#pragma once

#include <cstdint>
#include <vector>

#include "routing/engine.hpp"
#include "routing/hop_matrix.hpp"

namespace ibsm::routing {

// One LID whose all-to-all routes load the channels.
struct RebalanceTarget {
  Lid lid = 0;
  std::uint32_t sw = 0;  // the switch that delivers it (port 0 or an end port)
  // The LIDs of the same port, base .. base + 2^lmc - 1: a move never sends this LID towards
  // a next switch more of its siblings already use than the one it leaves (the LMC path
  // spreading of docs/routing.md, "How minhop chooses ports", step 4, is kept).
  Lid port_base = 0;
  std::uint8_t lmc = 0;
  // false: counted in the loads but never moved (guid_routing_order_file destinations,
  // which the engines route first so that they get the emptiest ports).
  bool movable = true;
};

struct RebalanceStats {
  std::uint64_t max_before = 0;  // busiest channel's load before the pass
  std::uint64_t max_after = 0;
  std::uint64_t lower_bound = 0;  // no routing can go below (per-switch in/out bound)
  std::uint32_t moves = 0;        // next hops changed
};

// Rebalances `by_lid` in place. `sources[s]`: end ports of switch s whose traffic counts.
// Deterministic: the same input gives the same tables.
RebalanceStats rebalance_routes(const Topology& topo, const HopMatrix& hops,
                                const std::vector<std::uint32_t>& sources,
                                const std::vector<RebalanceTarget>& targets,
                                std::vector<PortNum>& by_lid);

}  // namespace ibsm::routing
