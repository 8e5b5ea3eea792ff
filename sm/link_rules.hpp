// Link-parameter rules the SM applies to both ends of a link, as pure functions.
#pragma once

#include <algorithm>
#include <cstdint>

#include "mad/types.hpp"

namespace ibsm::sm {

// IBA 14.2.5.6 NeighborMTU: at most the smaller MTUCap of the two ends
// (MTU enum: 1=256 ... 5=4096, so the smaller code is the smaller MTU).
constexpr std::uint8_t neighbor_mtu(std::uint8_t local_cap, std::uint8_t peer_cap) {
  return std::min(local_cap, peer_cap);
}

// IBA 14.2.5.6 OperationalVLs: at most the VLCap of both ends; OpenSM further
// caps it with max_op_vls. Codes: 1=VL0, 2=VL0-1, 3=VL0-3, 4=VL0-7, 5=VL0-14.
constexpr std::uint8_t operational_vls(std::uint8_t local_cap, std::uint8_t peer_cap,
                                       std::uint8_t max_op_vls) {
  const std::uint8_t v = std::min({local_cap, peer_cap, max_op_vls});
  return v == 0 ? 1 : v;
}

// IBA 7.2: the SM raises a port one state at a time (Init -> Armed -> Active);
// a port already at or beyond the target is left alone (X -> X is an error).
constexpr mad::PortState next_state(mad::PortState current, mad::PortState target) {
  if (current == mad::PortState::kDown || current == mad::PortState::kNoChange)
    return mad::PortState::kNoChange;
  const auto c = static_cast<unsigned>(current);
  const auto t = static_cast<unsigned>(target);
  if (c >= t || current == mad::PortState::kActive) return mad::PortState::kNoChange;
  return static_cast<mad::PortState>(c + 1 > t ? t : c + 1);
}

}  // namespace ibsm::sm
