// Switch-to-switch hop distances in one byte per switch pair.
//
// OpenSM keeps hops[switch][lid][port] (S*L*P bytes, 200+ MB at 10k hosts). Min-hop
// routing only needs the distance between switches: an end port's distance is that of
// the switch it hangs off, and a port is minimal when its peer switch is one hop closer.
// S*S bytes is under 3 MB even for 1620 switches.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

class HopMatrix {
 public:
  static constexpr std::uint8_t kUnreachable = 0xFF;

  // BFS from every switch over inter-switch links. Fails with kErrDiameterTooLarge
  // if a distance does not fit below kUnreachable.
  static Result<HopMatrix> compute(const Topology& topo);

  std::uint32_t num_switches() const { return n_; }
  std::uint8_t hops(std::uint32_t from, std::uint32_t to) const {
    return cells_[std::size_t{from} * n_ + to];
  }
  // Distances from `from` to every switch. Links are bidirectional, so this is also the
  // distance of every switch *to* `from`: one contiguous row serves a whole destination.
  const std::uint8_t* row(std::uint32_t from) const { return &cells_[std::size_t{from} * n_]; }
  // The switches that reach `dst` (itself excluded), farthest first and by index within a
  // distance (a counting sort): the order in which destination-based engines decide next
  // hops, so each switch's next switch is decided before it. Reuses `out`'s storage.
  void farthest_first(std::uint32_t dst, std::vector<std::uint32_t>& out) const;

 private:
  std::uint32_t n_ = 0;
  std::vector<std::uint8_t> cells_;
};

}  // namespace ibsm::routing
