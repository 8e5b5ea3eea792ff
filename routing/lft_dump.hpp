// LFTs as text in OpenSM's opensm-lfts.dump format, so tables from OpenSM and from us
// can be diffed, and `opensm -R file -U <dump>` can load ours.
//
// Per switch, in ascending node GUID order (OpenSM walks its GUID-keyed switch table):
//   Unicast lids [0-<max lid>] of switch Lid <lid> guid 0x<16 hex> ('<description>'):
//   0x<lid 4 hex> <port 3 digits> # <type> portguid 0x<16 hex>: '<description>'
//   ...
//   <max lid> lids dumped
// Entries with no valid port (kNoPath) are left out; <type> is "Channel Adapter",
// "Switch" or "Router"; a LID nobody owns reads "unknown node and type". The footer
// repeats the table's top LID, not the number of lines (OpenSM does the same).
#pragma once

#include <ostream>

#include "routing/engine.hpp"

namespace ibsm::routing {

void dump_lfts(std::ostream& out, const Topology& topo, const Routes& routes);

}  // namespace ibsm::routing
