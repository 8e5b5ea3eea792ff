// The fabric of an SA snapshot as slurm/topology.hpp takes it (issue 36): the switches
// with their names and switch links, and every CA port linked to a switch with its
// host's name (the node name map's, else the NodeDescription) and the switch and port
// it hangs off. One adapter for both users: ibsm-ctl's `topology` and the SM's
// slurm_topology_file (sm/publish/slurm_topology_file.hpp).
#pragma once

#include "names/node_name_map.hpp"
#include "sa/snapshot.hpp"
#include "slurm/topology.hpp"

namespace ibsm::ops {

// `names` may be null (no map in force).
slurm::FabricInput slurm_fabric(const sa::Snapshot& fabric, const names::NodeNameMap* names);

}  // namespace ibsm::ops
