// Deadlock removal by virtual layers (Domke, Hoefler, Nagel, "Deadlock-Free Oblivious
// Routing for Arbitrary Topologies", IPDPS 2011, section V): given fixed forwarding
// tables, assign every path to a layer (one VL each) so that each layer's channel
// dependency graph is acyclic, then spread the paths over the VLs left unused.
//
// A path is (source switch, destination LID): every end port of a switch follows the
// same LFT path to a LID, so they share one SL. Paths in scope are those the credit-loop
// checker (routing/cdg.hpp) grades: from every switch with an attached end port to every
// LID of the fabric. Traffic switches originate themselves (SMA answers on VL15, which
// has no credit flow control, IBA 7.6.3) is left out; its rows stay SL 0.
#pragma once

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

// Layers for the paths of `routes`. At most `max_layers` (1..15) layers are used; fails
// with kErrDfssspVlsExhausted (naming a cycle of the last layer) when they do not
// suffice. The result's `layers` is the number of acyclic layers needed, `sls` the SLs
// handed out after balancing (OpenSM's split of the fullest layers over spare VLs).
Result<PathSls> assign_virtual_layers(const Topology& topo, const Routes& routes,
                                      unsigned max_layers);

}  // namespace ibsm::routing
