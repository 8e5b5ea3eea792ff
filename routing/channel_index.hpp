// Numbers the directed inter-switch channels of a topology (switch s leaving by port p
// towards another switch): the nodes of a channel dependency graph, for the engines
// that build one while routing (lash, nue). Channels to and from end ports never
// take part in a credit loop and get no number.
#pragma once

#include <cstdint>
#include <vector>

#include "routing/engine.hpp"

namespace ibsm::routing {

class ChannelIndex {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  explicit ChannelIndex(const Topology& topo);

  std::uint32_t size() const { return static_cast<std::uint32_t>(from_.size()); }
  // The channel switch s sends on through port p; kNone for end ports and dead ports.
  std::uint32_t at(std::uint32_t s, PortNum p) const {
    const std::size_t i = first_[s] + p;
    return p <= ports_[s] ? by_port_[i] : kNone;
  }
  std::uint32_t from(std::uint32_t c) const { return from_[c]; }  // sending switch
  std::uint32_t to(std::uint32_t c) const { return to_[c]; }      // receiving switch
  PortNum port(std::uint32_t c) const { return port_[c]; }
  PortNum peer_port(std::uint32_t c) const { return peer_port_[c]; }
  // Channels leaving switch s, in port order.
  const std::vector<std::uint32_t>& out(std::uint32_t s) const { return out_[s]; }

 private:
  std::vector<std::size_t> first_;
  std::vector<PortNum> ports_;
  std::vector<std::uint32_t> by_port_;
  std::vector<std::uint32_t> from_, to_;
  std::vector<PortNum> port_, peer_port_;
  std::vector<std::vector<std::uint32_t>> out_;
};

// The channels a packet from switch `s` to `dlid` crosses, following the LFTs; stops
// where it is delivered, dropped, or after `limit` switch hops (a forwarding loop).
// Appends to `out` (cleared first).
void channels_of_path(const ChannelIndex& ch, const Routes& routes, std::uint32_t s, Lid dlid,
                      std::vector<std::uint32_t>& out, unsigned limit = 64);

}  // namespace ibsm::routing
