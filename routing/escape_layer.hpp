// The escape layer: destinations that an up/down engine's own rules leave unreachable
// from some switch with end ports (switch LIDs and I/O nodes on a degraded fat tree) are
// routed on a second virtual layer, SL 1 = VL 1, by up*/down* over an order in which every
// switch reaches every other.
//
// Why a second layer (docs/routing.md, "Switch LIDs on degraded trees"): a packet to a
// switch's port 0 is consumed there, but on its way it holds each channel while waiting
// for the next one, exactly as a packet to a CA does. Reaching a switch that shares no
// up/down ancestor with the source takes a down->up turn, and such a turn can close a
// credit loop with the engine's other routes on the same VL. On VL 1 only the re-routed
// destinations travel, all along one up*/down* order, so VL 1's dependency graph is
// acyclic; VL 0 keeps a subset of the engine's legal paths, so it stays acyclic too. A
// path never changes VL (SL2VL identity, which the SM programs wherever path SLs are set).
//
// The switches now reached get entries back to the end ports they had no legal path to
// (their answers), also on SL 1; only switch-originated traffic passes there, which this
// argument does not cover (as OpenSM's engines do not). A fabric the engine routes
// completely is left exactly as it was (no SL, no table change): complete fat trees keep
// OpenSM's tables.
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

struct EscapeLayerStats {
  std::size_t switch_lids = 0;     // re-routed LIDs of switch port 0
  std::size_t end_port_lids = 0;   // re-routed LIDs of end ports
  std::size_t filled_entries = 0;  // entries given to switches towards end-port LIDs
  std::uint32_t root = 0;          // switch index the escape order is ranked from
  bool used() const { return switch_lids + end_port_lids + filled_entries > 0; }
};

// Re-routes, in place, every LID that some switch with end ports cannot reach through
// `routes` (every switch gets an entry for it) and puts every path to it on SL 1. Then
// gives every switch still without a route to an end port's LID one (the answers of a
// switch now reachable must get back; only switch-originated traffic passes there). Adds
// one kErrEscapeLayer warning naming what was done. Fails with kErrEscapeLayerNoVl when
// such LIDs exist but the fabric has a single data VL (max_vls < 2) or the routes already
// use per-path SLs; the caller's engine then fails and the SM falls back.
Result<EscapeLayerStats> route_unreached_on_escape_layer(const Topology& topo, Routes& routes,
                                                         unsigned max_vls, std::string_view engine);

}  // namespace ibsm::routing
