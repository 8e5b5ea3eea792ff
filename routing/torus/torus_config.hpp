// torus-2QoS.conf (torus_config), as documented in OpenSM's torus-2QoS.conf(5): the
// torus/mesh radices, seeds (a switch and its neighbours in +/- x, y, z), dateline
// offsets, port_order, portgroup_max_ports and max_changes.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing::torus {

inline constexpr unsigned kDims = 3;

// One seed: the switch `from` and the switches its links lead to in each direction.
struct TorusSeed {
  std::uint64_t from = 0;
  // neighbour[d][0]: in the negative direction of dimension d, [d][1]: positive; 0: none.
  std::array<std::array<std::uint64_t, 2>, kDims> neighbour{};
  std::array<int, kDims> dateline{};  // x_dateline..z_dateline: origin shift
  unsigned line = 0;                  // first line of the seed, for messages
};

struct TorusConfig {
  std::array<unsigned, kDims> radix{1, 1, 1};
  std::array<bool, kDims> wraps{};  // torus (true) or mesh; radix 2 is always a mesh
  std::vector<TorusSeed> seeds;
  unsigned portgroup_max_ports = 16;
  std::vector<PortNum> port_order;  // CA ports of a destination switch visited first
  unsigned max_changes = 32;
  bool is_torus_like() const { return wraps[0] || wraps[1] || wraps[2]; }
};

// Parses the file and checks it is complete: a torus/mesh line first, at least one seed,
// every seed with a link in each dimension of radix > 1 and both links in radix-4 torus
// dimensions, all links of a seed from one switch. Errors name file and line
// (kErrTorusConfigSyntax, kErrTorusConfigMissing).
Result<TorusConfig> parse_torus_config(const EngineConfig::Text& file);

}  // namespace ibsm::routing::torus
