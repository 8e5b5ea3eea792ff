// The cabling check: the intended topology against the fabric found (issue 35, item 4).
// Pure: no SM, no clock, no I/O; the same inputs give the same list.
//
// Nodes are matched by node GUID, else by a CA's port GUID, else (a file that names
// nodes only, an ibsim net file) by a name that is unique among the nodes found. A node
// of the file not found is one missing_node, a node found not in the file one
// extra_node; their cables are not listed again. Then cables:
//   1. a cable of the file found between the same two ports: matched; its width and
//      speed are compared with the file's, or where the file says nothing with the best
//      both ends support (RateReference);
//   2. a cable still unmatched that shares a port with one found, whose other end is on
//      the file's node but another port: wrong_port; then cables between the file's two
//      nodes on two other ports: wrong_port;
//   3. shares a port with one found whose other end is on another node: wrong_node;
//   4. the rest: missing_link for the file's, extra_link for the fabric's.
// Two cables swapped between two ports of a switch are therefore two wrong_port entries,
// a cable moved to another node one wrong_node, and no cable is listed twice.
#pragma once

#include <vector>

#include "cabling/deviation.hpp"
#include "cabling/discovered.hpp"
#include "cabling/link_rates_check.hpp"
#include "cabling/topology.hpp"

namespace ibsm::cabling {

struct CompareOptions {
  RateReference rate_reference = RateReference::kSupported;
  bool check_rates = true;  // width/speed of the matched cables
  // Where the file gives no width or speed (topoconfig CSV, ibsim net files): compare
  // with the best both ends support (the rule, iblinkinfo's "Could be"), or
  // leave it to find_degraded_links. ibsim reports 1x-12x as Supported on every port,
  // so there every 4x cable is "below" 12x.
  bool best_when_unstated = true;
};

// Sorted by local GUID and port (sort_deviations).
std::vector<Deviation> compare_topology(const IntendedTopology& intended,
                                        const DiscoveredFabric& fabric,
                                        const CompareOptions& options = {});

}  // namespace ibsm::cabling
