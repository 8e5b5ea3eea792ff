// Routing's operator-visible errors (range 3xxx, see common/error.hpp). docs/errors.md
// is generated from kRoutingErrors, so every constant below must have a catalog row.
#pragma once

#include "common/error.hpp"

namespace ibsm::routing {

inline constexpr ErrorId kErrTopologyInvalid{3001};
inline constexpr ErrorId kErrDiameterTooLarge{3002};
inline constexpr ErrorId kErrLidOutOfRange{3003};

inline constexpr ErrorInfo kRoutingErrors[] = {
    {kErrTopologyInvalid, "Routing input is inconsistent",
     "The topology handed to the routing engine refers to a switch, end port or port number "
     "that does not exist (an internal error in building the fabric model).",
     "Report a bug with the SM log; the SM keeps the previous forwarding tables."},
    {kErrDiameterTooLarge, "Fabric diameter too large for min-hop routing",
     "Some switch is more than 254 switch hops from another; hop counts are kept in one byte "
     "(directed routes cannot exceed 64 hops anyway, IBA 14.2.2).",
     "Check the cabling for a long chain of switches; split the subnet."},
    {kErrLidOutOfRange, "LID outside the unicast range",
     "An end port or switch was given a LID range that leaves the unicast LID space "
     "0x0001-0xBFFF (IBA 4.1.3).",
     "Check the LID assignment and LMC settings."},
};

}  // namespace ibsm::routing
