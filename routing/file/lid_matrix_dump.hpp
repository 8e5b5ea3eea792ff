// The LID matrix as text in OpenSM's opensm-lid-matrix.dump format (osm_dump.c
// dump_lid_matrix), so `-R file -M` has a source and both SMs' hop tables can be diffed.
//
// Per switch, in ascending node GUID order:
//   Switch: guid 0x<16 hex>
//   0x<lid 4 hex>: <least hops> <port 1> ... <port N> # portguid 0x<16 hex>
// one row per reachable switch LID in ascending order, hops as two hex digits, ff = no path.
// Values are OpenSM's (checked against its dump of the same fabric): column 0 is the
// least hop count (OpenSM caches it in the port 0 slot; 00 for the switch's own LID), a
// port linked to switch T holds T's distance + 1 (so the own LID reads 02 on every
// inter-switch port), any other port ff. Hop counts ignore hop_weights_file (OpenSM's
// would include the weights).
#pragma once

#include <ostream>

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

// Fails (kErrDiameterTooLarge) only when hop counts do not fit a byte.
Status dump_lid_matrix(std::ostream& out, const Topology& topo);

}  // namespace ibsm::routing
