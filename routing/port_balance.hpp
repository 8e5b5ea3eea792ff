// How minhop and updn (routing/minhop.cpp, routing/updn.cpp) order their destinations and
// break ties between equally good ports, and the site inputs that steer both, as OpenSM's
// osm_ucast_mgr.c and osm_switch.c (osm_switch_recommend_path) define them:
//   - guid_routing_order_file (-X): the listed ports are routed first, in file order, so
//     they meet the emptiest ports; the rest follow in the engine's own order;
//   - port_prof_ignore_file (-i): the listed ports are routed, but their traffic counts in
//     no load (OpenSM: their LIDs do not count in the port profile). In the all-to-all flow
//     model of these engines a port's traffic runs both ways, so it is neither a
//     destination that loads channels nor a source that adds flow. The file lists port
//     GUIDs (opensm(8): "only endports (CA, switch port 0, and router ports)"); OpenSM's
//     code reads "<switch GUID> <port>" lines instead and ignores what leaves that switch
//     port. Such a line here names the switch, so its own LID is ignored;
//   - port_profile_switch_nodes: switch LIDs are balanced as data destinations (every
//     source's flow to them loads the channels, and they pick the least-loaded channel)
//     instead of on a counter of their own (OpenSM counts them in the port profile).
//     They are still routed after the end ports, as in OpenSM's order; routed among them
//     (each switch's LID in its switch's turn) they broke the d-mod-k sequence of the
//     hosts: EFI 9720 with 34 idle channels on ft3-5184 instead of 5166 and none;
//   - port_shifting: the round-robin start among tied ports is OpenSM's shift (LIDs
//     already on the candidate ports / their number) instead of the destination's
//     sequence number;
//   - scatter_ports <seed>: one of the tied ports at random, reproducible from the seed
//     (not for ports of the routing order file with guid_routing_order_no_scatter, and,
//     as in OpenSM, not for the 2nd..2^LMC-th LID of a port).
// Measured on ft3-5184 (routing.md 4.3; EFI = busiest channel, all-to-all): minhop 5166,
// with scatter seed 7 5184, with port shifting 5166, no idle channel in any (OpenSM:
// 87480 with 9792 idle, 5958, 79704 with 1044 idle): the global loads already spread the
// routes, so both options only reorder ties.
#pragma once

#include <cstdint>
#include <vector>

#include "common/error.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

// What a destination's routes add to the loads the port choice balances.
enum class Traffic : std::uint8_t {
  kData,        // every counted source's flow to it loads the channels it crosses
  kManagement,  // a switch LID: counted apart, switch LIDs balance among themselves
  kIgnored,     // port_prof_ignore_file: routed, counted nowhere
};

// A destination: 2^lmc LIDs from `base`, delivered by switch `sw` on `port` (0: itself).
struct BalanceTarget {
  std::uint32_t sw = 0;
  PortNum port = 0;
  Lid base = 0;
  std::uint8_t lmc = 0;
  bool is_switch = false;
  Traffic traffic = Traffic::kData;
  bool scatter = false;  // scatter_ports applies to its first LID
};

struct BalancePlan {
  std::vector<BalanceTarget> targets;  // in routing order; index = sequence number
  std::size_t listed = 0;              // targets[0, listed): from guid_routing_order_file
  std::vector<std::uint32_t> sources;  // per switch: end ports whose traffic counts
  std::vector<Error> warnings;         // kErrBalanceGuidUnknown
};

// Default order: end ports grouped by switch and port (the d-mod-k tie-break relies on
// consecutive sequence numbers for a leaf's hosts), switch LIDs last so management routes
// see the data loads; then the inputs above.
BalancePlan plan_balance(const Topology& topo, const EngineConfig& config);

// OpenSM's port shifting (osm_switch_recommend_path): the least-used search over the n
// candidate ports starts at (LIDs already routed over them / n) mod n.
inline std::uint32_t shifted_start(std::uint64_t routed_on_candidates, std::uint32_t n) {
  return static_cast<std::uint32_t>((routed_on_candidates / n) % n);
}

// scatter_ports: which of `n` tied ports switch `sw` takes for `lid`. A hash of the seed,
// LID and switch rather than OpenSM's random() stream, so that the choice does not depend
// on the order the engine visits switches in; the same seed gives the same tables.
std::uint32_t scatter_choice(std::uint32_t seed, Lid lid, std::uint32_t sw, std::uint32_t n);

// Forwarding tables from next hops stored LID-major ([lid * switches + switch]), as the
// engines produce them one LID at a time for all switches.
Routes routes_from_lid_major(const std::vector<PortNum>& by_lid, std::size_t switches,
                             std::size_t lft_size);

}  // namespace ibsm::routing
