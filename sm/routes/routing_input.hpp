// The view of the fabric a routing engine gets: switches, end ports and active
// links, with the LIDs just assigned. Built fresh for each routing run.
#pragma once

#include <string>
#include <vector>

#include "routing/engine.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm {

struct RoutingInput {
  routing::Topology topology;
  std::vector<NodeIndex> switch_nodes;  // topology.switches[i] is fabric node switch_nodes[i]
};

RoutingInput make_routing_input(const Fabric& fabric);

}  // namespace ibsm::sm
