// The "sssp" engine: globally balanced shortest paths (Hoefler, Schneider, Lumsdaine,
// "Optimized Routing for Large-Scale InfiniBand Networks", HOTI 2009; the SSSP step of
// Domke, Hoefler, Nagel, IPDPS 2011). Destinations are routed one LID at a time with
// Dijkstra over the switch graph, each directed channel weighing a large constant plus
// the number of all-to-all routes already on it, so later destinations avoid the
// channels earlier ones loaded. Not deadlock free on cyclic topologies; dfsssp
// (routing/dfsssp.hpp) adds virtual layers on top of the same paths.
#pragma once

#include <memory>

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

std::unique_ptr<Engine> make_sssp_engine();
// With guid_routing_order_file and port_prof_ignore_file from `config`.
std::unique_ptr<Engine> make_sssp_engine(const EngineConfig& config);

// The SSSP forwarding tables alone (no SLs); dfsssp starts from them.
Result<Routes> route_sssp(const Topology& topo, const EngineConfig& config = {});

}  // namespace ibsm::routing
