// The "torus-2QoS" engine (OpenSM's name and algorithm, Schutt/Sandia; routing.md 1.7):
// dimension-order routing (x, then y, then z) on the coordinates of torus-2QoS.conf,
// shortest way round each ring, with
//  * path SL bit d set when the pristine shortest path crosses dimension d's dateline
//    (between coordinates radix-1 and 0), SL bit 3 left to the QoS level the requester
//    asks for (the SA keeps it from the request);
//  * per switch port SL2VL tables: on inter-switch output ports VL bit 0 = SL bit of the
//    output port's dimension, VL bit 1 = the hop follows a turn that DOR forbids
//    (z->y, z->x, y->x; only detours around failed switches make them), VL bit 2 = SL bit 3;
//    towards end ports and on end ports VL = SL bit 3 (VL0/VL1).
// Each VL's channel dependency graph is acyclic: hops that do not cross a dateline never
// use the dateline channel on their VL, paths are shorter than the ring, and turns follow
// DOR except after a detour, whose hop is on its own VL.
// Failures: a ring broken by failed links is walked the long way round (a broken ring
// cannot close a credit loop, so the path SL stays); around a failed switch the path
// turns early and comes back with an illegal turn. Disjoint rings are refused.
//
// deadlock_free() is true: the SM's route report judges (channel, VL) dependencies through
// these very tables (routing/torus/hop_vl_cdg.hpp) and discards the result if a credit loop
// shows up (for instance two failed switches that are not adjacent in z).
#pragma once

#include <memory>

#include "routing/engine.hpp"

namespace ibsm::routing {

std::unique_ptr<Engine> make_torus_2qos_engine(const EngineConfig& config);

}  // namespace ibsm::routing
