// Consistency check every engine runs on its input before routing: links and end ports
// refer to existing switches and ports, LID ranges stay in the unicast space.
#pragma once

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

// Fails with kErrTopologyInvalid or kErrLidOutOfRange, naming the offending node.
Status validate_topology(const Topology& topo);

}  // namespace ibsm::routing
