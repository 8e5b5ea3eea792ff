// The view of the fabric a routing engine gets: switches, end ports and active
// links, with the LIDs just assigned. Built fresh for each routing run.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "routing/engine.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm {

struct RoutingInput {
  routing::Topology topology;
  std::vector<NodeIndex> switch_nodes;  // topology.switches[i] is fabric node switch_nodes[i]
};

// Switch ports whose links routing leaves out (fabric health's isolate and
// no_discover, topo_config_enabled): (node GUID, port). A link is left out when either
// end is named; it stays in the fabric model (Active, its PortInfo programmed), only no
// route crosses it. Links to CAs and routers are never named here (their LIDs are
// reachable only over them): the SM's health component never excludes them.
using LinkExclusions = std::set<std::pair<Guid, PortNum>>;

RoutingInput make_routing_input(const Fabric& fabric, const LinkExclusions* excluded = nullptr);

}  // namespace ibsm::sm
