// The view of the fabric a routing engine gets: switches, end ports and active
// links, with the LIDs just assigned. Built fresh for each routing run.
#pragma once

#include <string>
#include <vector>

#include "routing/engine.hpp"
#include "routing/root_guid_file.hpp"
#include "sm/fabric.hpp"

namespace ibsm::sm {

struct RoutingInput {
  routing::Topology topology;
  std::vector<NodeIndex> switch_nodes;  // topology.switches[i] is fabric node switch_nodes[i]
};

RoutingInput make_routing_input(const Fabric& fabric);

// Root switch GUIDs for updn from root_guid_file (-a); an unreadable file gives no GUIDs
// and one warning, a bad line a warning naming the file and line.
routing::RootGuids read_root_guid_file(const std::string& path);

}  // namespace ibsm::sm
