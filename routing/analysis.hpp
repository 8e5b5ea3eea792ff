// Route analysis on computed LFTs: where a packet goes, whether every end port reaches
// every other, how all-to-all traffic spreads over the inter-switch channels, and how
// permutation traffic congests them (routing.md 3.1: validity, edge forwarding index,
// effective bisection bandwidth, shift congestion, path length). Works from the
// in-memory tables, so tests and benchmarks can grade any engine's output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "routing/engine.hpp"

namespace ibsm::routing {

enum class Delivery : std::uint8_t {
  kDelivered,
  kLoop,       // the LFTs send the packet round in circles
  kBlackHole,  // no entry, a port without a link, or delivered to the wrong port
};

struct Hop {
  std::uint32_t sw = 0;  // switch index
  PortNum out_port = 0;
};

struct Trace {
  Delivery outcome = Delivery::kBlackHole;
  std::vector<Hop> hops;  // switches traversed, with the port each one chose
};

// Follows the LFTs from end port `src` (index into Topology::end_ports) to `dlid`.
Trace trace_route(const Topology& topo, const Routes& routes, std::uint32_t src, Lid dlid);

struct PairCheck {
  std::size_t pairs = 0;  // (source end port, destination LID) pairs examined
  std::size_t delivered = 0;
  std::size_t loops = 0;
  std::size_t black_holes = 0;
  // Of those, the pairs whose destination is a switch's port 0 (management traffic: SMA,
  // PMA, vendor agents; what ibroute, perfquery and PerfMgr need).
  std::size_t switch_pairs = 0;
  std::size_t switch_delivered = 0;
  std::vector<std::string> examples;  // first few failures, human-readable
  std::vector<Lid> unreached;         // destination LIDs some source cannot reach, ascending
  bool all_delivered() const { return delivered == pairs; }
  // Pairs towards end ports (CAs and router ports).
  std::size_t end_port_pairs() const { return pairs - switch_pairs; }
  std::size_t end_port_unreachable() const {
    return (pairs - switch_pairs) - (delivered - switch_delivered);
  }
  std::size_t switch_unreachable() const { return switch_pairs - switch_delivered; }
};

// Every end port attached to a switch towards every LID of the fabric: every LID of every
// other such end port (CAs, router ports) and every LID of every switch's port 0. What
// `ibroute` dumps of the programmed tables show when walked from each end port's switch.
PairCheck check_all_pairs(const Topology& topo, const Routes& routes);

struct ChannelLoad {
  std::uint32_t sw = 0;  // sending switch
  PortNum port = 0;
  std::uint32_t peer = 0;  // receiving switch
  std::uint64_t routes = 0;
};

struct ChannelLoads {
  std::vector<ChannelLoad> channels;  // every directed inter-switch channel
  std::uint64_t max = 0;              // the edge forwarding index (EFI)
  std::uint64_t min = 0;
  std::size_t unused = 0;  // channels no route crosses
  double mean = 0;
};

// Routes per directed inter-switch channel for all-to-all traffic between end ports
// (each destination's base LID; undeliverable routes are not counted).
ChannelLoads channel_loads(const Topology& topo, const Routes& routes);

// End ports that carry switched traffic (attached to a switch, with a LID) in leaf-major
// order: sorted by (switch index, switch port). The default host order of shift patterns.
std::vector<std::uint32_t> leaf_major_order(const Topology& topo);

struct EbbOptions {
  unsigned patterns = 100;  // random bisections (routing.md 3.1: R = 100-1000)
  std::uint64_t seed = 1;   // same seed, same bisections
};

struct EbbResult {
  double mean = 0;  // mean flow bandwidth over all flows of all patterns (1 = injection rate)
  double min = 0;   // worst pattern's mean
  double max = 0;   // best pattern's mean
  unsigned patterns = 0;
  std::uint64_t flows = 0;        // flows over all patterns
  std::uint64_t undelivered = 0;  // flows the LFTs do not deliver (counted with bandwidth 0)
};

// Effective bisection bandwidth (Hoefler, Schneider, Lumsdaine, Cluster'08; Netgauge's
// `ebb` pattern): per pattern, a random permutation of the end ports, the first half paired
// with the second half in both directions; a directed inter-switch channel's congestion is
// the number of flows crossing it, a flow's bandwidth 1 / the highest congestion on its
// path (end-port links carry one flow per direction, so they never limit).
EbbResult effective_bisection_bandwidth(const Topology& topo, const Routes& routes,
                                        const EbbOptions& options = {});

struct ShiftOptions {
  std::vector<std::uint32_t> order;  // end port indexes; empty: leaf_major_order()
  unsigned max_shifts = 0;           // 0: every k = 1..N-1; else that many, evenly spaced
};

struct ShiftResult {
  std::uint64_t worst = 0;  // highest channel congestion of any shift
  double mean = 0;          // mean over shifts of the shift's highest channel congestion
  std::uint32_t worst_shift = 0;
  unsigned shifts = 0;            // shifts evaluated
  std::uint64_t undelivered = 0;  // flows not delivered (they load no channel)
};

// Shift permutations (routing.md 3.1): host i sends to host (i + k) mod N in `order`.
// A shift all-to-all runs as N-1 such steps, so the worst congestion of any step bounds it;
// ftree on a full fat tree gives 1 for every k (Zahavi et al., CCPE 2010).
ShiftResult shift_congestion(const Topology& topo, const Routes& routes,
                             const ShiftOptions& options = {});

struct PathStats {
  std::uint64_t paths = 0;  // delivered (source end port, destination end port) pairs
  double mean_hops = 0;     // inter-switch hops per path
  std::uint32_t max_hops = 0;
  std::uint64_t non_minimal = 0;  // paths longer than the shortest switch-graph path
  double non_minimal_percent() const {
    return paths == 0 ? 0.0 : 100.0 * static_cast<double>(non_minimal) / static_cast<double>(paths);
  }
};

// Path length of every end-port pair (base LIDs) against the breadth-first minimum.
PathStats path_stats(const Topology& topo, const Routes& routes);

}  // namespace ibsm::routing
