// The snapshot's ports as the QoS policy's port groups see them (qos_policy/
// compile.hpp): one FabricPort per PathTables port, so that the compiled policy is
// indexed like the path tables. LID holders (end ports, switch port 0) carry their
// GUID, node type, NodeDescription and port numbers; the other ports are never the
// end of a query and stay empty. Partition facts are the SM's to add
// (qos_policy/fabric_view.hpp).
#pragma once

#include "qos_policy/compile.hpp"
#include "sa/snapshot.hpp"

namespace ibsm::sa {

qos_policy::FabricView qos_fabric_view(const Snapshot& snap, const PathTables& t);

}  // namespace ibsm::sa
