// The "lash" engine: LAyered SHortest path routing (Skeie, Lysne, Theiss, "Layered
// Shortest Path (LASH) Routing in Irregular System Area Networks", IPDPS 2002;
// routing.md 1.5), as OpenSM users select it with routing_engine lash.
//
// Every pair of switches is joined by a shortest path; the pair (both directions
// together, so that a connection's answers travel on the SL of its requests, as the
// CM uses one path SL for both ways) goes into the first virtual layer whose channel
// dependency graph stays acyclic with it, a new layer opening when none does. Each
// layer is one SL, travelling on the VL of the same number (the SM programs SL2VL
// identity where an engine hands out SLs), starting at lash_start_vl.
//
// Better than OpenSM's: the shortest paths are sssp's globally balanced tables
// (routing/sssp.hpp, weights updated per routed destination), or min-hop's where those
// need more layers than the VLs allow, or dimension-ordered paths on a mesh or torus
// (do_mesh_analysis: first; otherwise when nothing else fits, where OpenSM's lash refuses
// a 6x6x6 torus), rather than the first shortest path found, every LID is
// routed (LMC > 0 included), layers are filled with an incremental topological order
// (routing/incremental_dag.hpp) instead of a cycle search per insertion, and the spare
// VLs are used by splitting the fullest layers, which any subset of an acyclic layer
// survives.
#pragma once

#include <memory>

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

// Layers for fixed routes: one SL per unordered switch pair, SLs first_sl ..
// first_sl + max_layers - 1. Fails with kErrLashVlsExhausted when the pairs need more.
Result<PathSls> assign_lash_layers(const Topology& topo, const Routes& routes, unsigned first_sl,
                                   unsigned max_layers);

// Uses SLs lash_start_vl .. max_vls - 1 (EngineConfig).
std::unique_ptr<Engine> make_lash_engine(const EngineConfig& config);

}  // namespace ibsm::routing
