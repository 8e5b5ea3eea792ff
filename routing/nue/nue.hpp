// The "nue" engine (Domke, Hoefler, Matsuoka, "Routing on the Dependency Graph: A New
// Approach to Deadlock-Free High-Performance Routing", HPDC 2016; routing.md 1.9):
// deadlock-free on any topology within any VL budget, down to one VL.
//
// Instead of routing first and then looking for credit loops (dfsssp, lash), nue routes
// inside the channel dependency graph (CDG) of each virtual layer: a path may only turn
// from one channel into the next where that dependency is already in the layer's CDG or
// keeps it acyclic (routing/incremental_dag.hpp). Per layer:
//   1. the destinations (all LIDs of a group of neighbouring switches; groups cut from a
//      breadth-first order so each is compact, balanced by LID count) get the layer;
//   2. escape paths: up/down on a breadth-first spanning tree rooted at the group's most
//      central switch; all their turns go into the CDG first, so that every destination
//      can always be reached along the tree;
//   3. per destination LID, a Dijkstra from its switch over the reversed channels, with
//      load-dependent weights as sssp's, that takes a channel only if its turn into the
//      next hop's channel is allowed; the turns of the resulting tree are added as
//      switches settle. If some switch cannot be reached without a cycle (an impasse),
//      the destination's turns are taken back and it follows the escape tree instead;
//   4. the channels used gain the number of end ports routed over them.
// Then a relief: while a channel carries the busiest all-to-all load M (the edge
// forwarding index) and M is above what any routing can reach (routing/efi_bound.hpp),
// an end-port destination routed over it is ripped up and routed again by step 3 with
// every channel at M priced as a detour across the fabric; the new tree is kept only if
// it takes load off that channel and brings no channel to M, else the old one comes
// back. The Dijkstra pass routes each destination knowing only those before it; the
// relief revisits them knowing all (2026-11-26: the busiest channel 2-40 % lower on a
// dragonfly, a jellyfish, a random fabric and a torus). Its reroutes are budgeted at a
// quarter of the destinations, about half the first pass's time.
// Every path to a destination of layer i travels on SL i (SL2VL identity), so a path's
// SL depends on its destination only; with one layer every SL is 0 and no SL2VL is
// needed at all.
//
// Paths to and from switches are always inside the CDG: the turns of every switch of a
// destination's tree are added, whether or not end ports send through it. That is
// OpenSM's nue_include_switches TRUE, and what the SM's independent credit-loop check
// (routing/cdg.hpp: every LID a destination) needs; FALSE is accepted and changes
// nothing, since it could only have loosened the guarantee.
#pragma once

#include <memory>

#include "routing/engine.hpp"

namespace ibsm::routing {

// Uses EngineConfig::nue_max_vls layers (at least 1, at most 15).
std::unique_ptr<Engine> make_nue_engine(const EngineConfig& config);

}  // namespace ibsm::routing
