// The fabric model of a heavy sweep as the cabling check reads it (issue 35): the nodes,
// their linked ports and peers, and each port's active, supported and enabled width
// and speed, converted from PortInfo (and MLNXExtendedPortInfo's FDR10) into
// cabling/discovered.hpp's plain values. Pure; takes the Fabric only.
#pragma once

#include "cabling/discovered.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm::cabling_check {

// Every node; every present physical port (1..NumPorts) with its peer where the link
// is up and the peer known. Names: the node's display name (node name map, else its
// NodeDescription).
cabling::DiscoveredFabric discovered_fabric(const Fabric& fabric);

// One port's rates. `caps` is the PortInfo whose CapabilityMask speaks for the port (a
// switch's port 0 for its external ports): the extended speed fields count only where
// it advertises them.
cabling::DiscoveredPort discovered_port(const Port& port, const mad::PortInfo& caps);

}  // namespace ibsm::sm::cabling_check
