// Channels grouped by the switch they enter, in channel order (compressed rows): the
// backward adjacency that a Dijkstra from a destination (sssp, minhop's hop weights) and
// a walk up a destination's forwarding tree (the rebalancing pass, dfsssp's layering)
// follow.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ibsm::routing {

class InChannels {
 public:
  InChannels() = default;
  // Channels 0 .. channels - 1; `to(c)`: the switch (below `switches`) channel c enters.
  template <typename To>
  InChannels(std::uint32_t switches, std::uint32_t channels, To&& to)
      : first_(switches + 1, 0), list_(channels) {
    for (std::uint32_t c = 0; c < channels; ++c)
      ++first_[to(c) + 1];
    for (std::uint32_t s = 0; s < switches; ++s)
      first_[s + 1] += first_[s];
    std::vector<std::uint32_t> fill(first_.begin(), first_.end() - 1);
    for (std::uint32_t c = 0; c < channels; ++c)
      list_[fill[to(c)]++] = c;
  }

  bool empty() const { return first_.empty(); }
  // The channels entering switch s.
  std::span<const std::uint32_t> of(std::uint32_t s) const {
    return {list_.data() + first_[s], first_[s + 1] - first_[s]};
  }

 private:
  std::vector<std::uint32_t> first_, list_;
};

}  // namespace ibsm::routing
