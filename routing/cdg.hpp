// Channel dependency graph (CDG) check on computed forwarding tables, independent of any
// engine: routing is free of credit loops (deadlock) iff, for every VL, the graph whose
// nodes are the directed inter-switch channels and whose edges c1 -> c2 say "some routed
// path uses c2 right after c1" is acyclic (Dally & Seitz, IEEE TC 36(5) 1987; routing.md
// 3.1). Channels to and from end ports cannot close a cycle and are left out.
//
// Paths in scope: from every end port attached to a switch to every LID of the fabric
// (end ports and switch port 0), as the LFTs forward them. Traffic that switches
// originate themselves (answers of port 0) is left out unless asked for: OpenSM's engines
// do not keep it loop-free either (on a 2-level fat tree min-hop spine->leaf->spine
// management paths close a cycle with the leaf->spine->leaf data paths).
//
// Cost: O(LIDs x switches) to build (each destination's forwarding forest is walked once
// per VL), O(channels + dependencies) for the cycle search (iterative, no recursion).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "routing/engine.hpp"

namespace ibsm::routing {

// The VL a path from end port `src` (index into Topology::end_ports) to `dlid` travels
// on, i.e. SL2VL of the SL the SA hands out for that pair. One VL per whole path: the
// engines here do not change VL along a path.
using VlOfPath = std::function<std::uint8_t(std::uint32_t src, Lid dlid)>;

struct CdgOptions {
  VlOfPath vl_of;                       // empty: every path on VL 0
  bool include_switch_sources = false;  // also paths starting at each switch
  // The VL of a path a switch sends (switch index, destination LID); empty: VL 0.
  std::function<std::uint8_t(std::uint32_t sw, Lid dlid)> switch_vl_of;
};

struct CdgChannel {
  std::uint32_t sw = 0;  // sending switch
  PortNum port = 0;      // its output port
  std::uint32_t peer = 0;
};

struct CdgVl {
  std::uint8_t vl = 0;
  std::size_t dependencies = 0;  // distinct c1 -> c2 edges
  bool acyclic = true;
  std::vector<CdgChannel> cycle;  // one cycle when !acyclic: cycle[i] -> cycle[i+1] -> cycle[0]
};

struct CdgReport {
  std::size_t channels = 0;  // directed inter-switch channels
  std::vector<CdgVl> vls;    // VLs some path uses, ascending
  bool acyclic() const {
    for (const CdgVl& v : vls)
      if (!v.acyclic) return false;
    return true;
  }
};

// Routes with per-port SL2VL tables (Routes::sl2vl) are checked hop by hop instead, with
// vl_of naming the path's SL (routing/torus/hop_vl_cdg.hpp).
CdgReport check_channel_dependencies(const Topology& topo, const Routes& routes,
                                     const CdgOptions& options = {});

// "0x0000000000200001/3 -> 0x0000000000200002/5 -> 0x0000000000200001/3": each channel
// as sending switch GUID / output port, the first repeated to close the cycle.
std::string describe_cycle(const Topology& topo, const std::vector<CdgChannel>& cycle);

}  // namespace ibsm::routing
