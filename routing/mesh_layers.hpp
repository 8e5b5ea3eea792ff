// Deadlock-free routes on a mesh or torus whose coordinates the mesh analysis found
// (routing/mesh_analysis.hpp): dimension-ordered shortest paths, and layers by the
// datelines the paths cross rather than by a search. lash uses them (do_mesh_analysis,
// or when its other paths need too many layers), dfsssp when sssp's paths do.
//
// Why it is deadlock free with at most 2^dimensions layers: a dimension-ordered path
// turns only from a lower dimension into a higher one, so a cycle of channel
// dependencies would have to stay on one ring. Each ring gets a dateline (the link from
// its last coordinate back to 0). Paths that do not cross it use the ring as a line,
// which has no cycle; the shortest paths that do cross it are at most half the ring
// long, so none of them depends from the channel just before the ring's middle to the
// next one, and they cannot close a cycle either. A path's layer is the set of
// dimensions whose dateline it crosses. Both directions of a pair cross the same
// datelines (the reverse of a shortest arc; a tie at half the ring takes the arc
// without the dateline both ways), so a pair keeps one SL, as lash requires.
// A 6x6x6 torus needs 8 layers; a mesh without wraparound needs 1.
#pragma once

#include "common/result.hpp"
#include "routing/engine.hpp"
#include "routing/mesh_analysis.hpp"

namespace ibsm::routing {

// Routes with path_sl set (SLs first_sl ..). `shape` must carry coordinates. Fails with
// kErrLashVlsExhausted when the datelines crossed need more than max_layers layers.
Result<Routes> route_mesh_by_datelines(const Topology& topo, const MeshShape& shape,
                                       unsigned first_sl, unsigned max_layers);

}  // namespace ibsm::routing
