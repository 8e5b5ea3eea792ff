// A directed-route path (IBA 14.2.2.1): the output port taken at each hop from
// the SM's node. Hop count 0 addresses the SM's own node.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "mad/types.hpp"

namespace ibsm::mad {

class DrPath {
 public:
  static constexpr std::size_t kMaxHops = 63;  // IBA 14.2.2.1: HopCount is 6 bits

  DrPath() = default;

  std::size_t hops() const { return hops_; }
  // Output port at hop i (1-based, as in the SMP's InitialPath[i]).
  PortNum port_at(std::size_t hop) const { return path_[hop]; }
  // The path one hop further out through `port`, or nullopt past 63 hops.
  std::optional<DrPath> extended(PortNum port) const;
  // InitialPath field contents: index 0 unused, 1..hops() set.
  const std::array<std::uint8_t, 64>& initial_path() const { return path_; }

  // "0,1,3" as smpquery -D and ibnetdiscover print it.
  std::string to_string() const;
  bool operator==(const DrPath&) const = default;

 private:
  std::array<std::uint8_t, 64> path_{};
  std::uint8_t hops_ = 0;
};

}  // namespace ibsm::mad
