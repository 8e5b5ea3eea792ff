// The "ftree" engine: fat-tree routing after Zahavi et al. (CCPE 22(2), 2010) as OpenSM's
// osm_ucast_ftree.c does it, but without OpenSM's purity check: the tree's levels come
// from the topology (routing/ftree/tree_shape.hpp), so degraded trees (missing links or
// switches) are routed by ftree rather than refused, and LMC > 0 is supported (each LID
// of a port climbs over different switches where the tree has them).
//
// Destination order: compute nodes by leaf index and leaf port (OpenSM's ca-order), with
// missing compute nodes of partly populated leaves routed as dummies; then the other end
// ports (I/O nodes with max_reverse_hops); then switch LIDs, which do not count for
// balance. With LMC every LID offset is routed for all destinations in this order before
// the next offset, so base LIDs spread as with LMC 0 and a port's other LIDs climb over
// other switches. Routes are up*/down*, so deadlock_free() holds unless I/O nodes may use
// reverse hops.
#pragma once

#include <memory>

#include "routing/engine.hpp"

namespace ibsm::routing {

std::unique_ptr<Engine> make_ftree_engine(const EngineConfig& config);

}  // namespace ibsm::routing
