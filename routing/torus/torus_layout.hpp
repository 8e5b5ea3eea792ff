// Torus coordinates for the switches of a fabric, found from torus-2QoS.conf's seeds and
// the cabling, as OpenSM's torus-2QoS does: the seed fixes the origin and the three
// directions, then 4-loops of links (squares of the grid) and straight runs place the
// rest. Missing switches and links are tolerated as long as every present switch ends up
// with one consistent coordinate; anything else means the fabric is not the configured
// torus and the engine refuses it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/result.hpp"
#include "routing/engine.hpp"
#include "routing/torus/torus_config.hpp"

namespace ibsm::routing::torus {

inline constexpr std::uint32_t kNoSwitch = UINT32_MAX;
inline constexpr std::uint8_t kNoDir = 0xFF;  // port to an end port, or unused

// Direction group of a port: 2 * dimension + 1 for the positive direction, 2 * dimension
// for the negative one (OpenSM's port group numbering).
inline constexpr std::uint8_t dir_group(unsigned dim, bool positive) {
  return static_cast<std::uint8_t>(2 * dim + (positive ? 1 : 0));
}

using Coord = std::array<int, kDims>;

struct TorusLayout {
  std::array<unsigned, kDims> radix{1, 1, 1};
  std::array<bool, kDims> wraps{};
  std::vector<Coord> coord;         // per Topology::switches entry
  std::vector<std::uint32_t> grid;  // switch at each coordinate (kNoSwitch: missing)
  // groups[s][g]: the ports of switch s in direction group g (parallel links), ascending.
  std::vector<std::array<std::vector<PortNum>, 2 * kDims>> groups;
  // port_dir[s][port]: direction group of the port, kNoDir for ports to end ports.
  std::vector<std::vector<std::uint8_t>> port_dir;
  unsigned seed = 0;  // index of the seed that placed the switches

  std::size_t index(const Coord& c) const {
    return (std::size_t(c[0]) * radix[1] + std::size_t(c[1])) * radix[2] + std::size_t(c[2]);
  }
  std::uint32_t at(const Coord& c) const { return grid[index(c)]; }
};

// Places every switch of `topo`. Fails with kErrTorusSeedUnusable when no seed's switches
// are in the fabric and cabled as configured, kErrTorusMismatch when a switch cannot be
// placed consistently, kErrTorusDisjointRing when failures split a 1D ring.
Result<TorusLayout> place_switches(const Topology& topo, const TorusConfig& config,
                                   const std::string& file_name);

}  // namespace ibsm::routing::torus
