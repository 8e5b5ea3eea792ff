// Channel dependency check for routes whose VL changes hop by hop (Routes::sl2vl, as
// torus-2QoS programs): a packet of SL s entering switch t by port i and leaving by port
// o travels on VL sl2vl[t][i][o][s]. The graph's nodes are (directed inter-switch
// channel, VL) pairs and every two consecutive hops of a path add an edge, also between
// different VLs (a packet holding a buffer of VL a waits for one of VL b); routing is
// free of credit loops iff that graph is acyclic (Dally & Seitz 1987). Paths: every end
// port attached to a switch to every LID of the fabric, with the SL `sl_of` gives (the
// SA's PathRecord SL), as routing/cdg.hpp does for one VL per path.
#pragma once

#include "routing/cdg.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

// `options.vl_of` here names the path's SL (not its VL); empty: Routes::path_sl.
// include_switch_sources adds paths from each switch (port 0) on SL 0.
CdgReport check_hop_vl_dependencies(const Topology& topo, const Routes& routes,
                                    const CdgOptions& options);

}  // namespace ibsm::routing
