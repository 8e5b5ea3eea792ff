// The "dor" engine (Dimension Order Routing, as OpenSM's -R dor): min-hop paths where each
// switch takes the first minimal port in its port search order (port number order, or
// port_search_ordering_file) instead of balancing over all minimal ports. On a mesh or
// hypercube whose ports are numbered dimension by dimension this routes one dimension
// after the other, which keeps the channel dependency graph acyclic. Parallel links to
// the same neighbour count as one dimension and share the load (least-used first).
//
// Deadlock freedom: dor is deadlock free on meshes and hypercubes only; on a torus the
// wraparound links close cycles, and on other fabrics nothing holds. The engine cannot
// know which case it routes, so deadlock_free() is false and the SM's route report (CDG
// check) judges every result and logs a credit loop (routing.md 1.6).
#pragma once

#include <memory>
#include <vector>

#include "routing/engine.hpp"

namespace ibsm::routing {

std::unique_ptr<Engine> make_dor_engine(const EngineConfig& config);

// dor's routes under given search orders: orders[s] lists switch s's ports 1..num_ports
// (port_search_ordering_file's, or a mesh analysis's, routing/mesh_analysis.hpp).
Result<Routes> route_dor(const Topology& topo, const std::vector<std::vector<PortNum>>& orders);

}  // namespace ibsm::routing
