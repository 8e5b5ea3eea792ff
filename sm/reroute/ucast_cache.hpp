// The unicast cache (use_ucast_cache, -A): after a topology change, every switch whose
// route to a destination did not touch what changed keeps its LFT entry; only the
// entries whose routes crossed a lost link (or whose LID changed hands) take the
// engine's new result. Unaffected routes therefore never move, and only LFT blocks
// holding such an entry can differ from what the switches hold.
//
// This is a pure merge of two complete results (the previous sweep's and this sweep's
// engine run), so it works for every engine whose tables are per destination: minhop,
// updn/dnup, sssp, ftree, dor, file. A kept route is intact, so it is as valid as it
// was; why kept and new entries together cannot loop is in ucast_cache.cpp. Engines whose result is
// more than LFTs (per-path SLs: dfsssp, lash, nue; per-hop SL2VL: torus-2QoS) always take the new
// result, and the caller re-checks deadlock-free engines' merged tables for credit loops (keeping
// columns from two up*/down* rankings can close one) and takes the new result when one appears.
//
// OpenSM's cache (osm_ucast_cache.c) only tolerates end ports and leaf switches going
// away and reroutes everything otherwise (any lost inter-switch link included); this
// one handles any loss, and reroutes in full when something was added (a new switch
// or link), as OpenSM does, since kept routes would never use it.
#pragma once

#include <cstddef>
#include <string>

#include "routing/engine.hpp"

namespace ibsm::sm::reroute {

struct CacheMerge {
  bool used = false;                // false: `routes` is the engine's new result as is
  std::string why_not;              // when not used
  std::size_t lids = 0;             // destination LIDs of the new topology
  std::size_t recomputed = 0;       // of which some switch took the new entry
  std::size_t renewed_entries = 0;  // (switch, LID) entries that took the new result
  std::size_t changed_entries = 0;  // LFT entries that differ from the previous result
};

// Merges `fresh` (the engine's result on `now`) with `before` (the previous result on
// `then`) and returns the tables to program; `out` says what happened.
routing::Routes merge_with_cache(const routing::Topology& then, const routing::Routes& before,
                                 const routing::Topology& now, routing::Routes fresh,
                                 CacheMerge& out);

}  // namespace ibsm::sm::reroute
