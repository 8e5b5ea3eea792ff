// Route analysis on computed LFTs: where a packet goes, whether every end port reaches
// every other, and how all-to-all traffic spreads over the inter-switch channels
// (routing.md 3.1: validity and edge forwarding index). Works from the in-memory
// tables in O(LIDs * switches), so tests and benchmarks can grade any engine's output.
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
  std::vector<std::string> examples;  // first few failures, human-readable
  bool all_delivered() const { return delivered == pairs; }
};

// Every end port attached to a switch towards every LID of every other such end port.
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

}  // namespace ibsm::routing
