#include "routing/channel_index.hpp"

#include <algorithm>

namespace ibsm::routing {

ChannelIndex::ChannelIndex(const Topology& topo) {
  const std::size_t n = topo.switches.size();
  first_.assign(n + 1, 0);
  ports_.resize(n);
  out_.resize(n);
  for (std::size_t s = 0; s < n; ++s) {
    ports_[s] = topo.switches[s].num_ports;
    first_[s + 1] = first_[s] + topo.switches[s].num_ports + 1U;
  }
  by_port_.assign(first_[n], kNone);
  for (std::uint32_t s = 0; s < n; ++s) {
    for (const Link& l : topo.switches[s].links) {
      if (l.kind != Link::Kind::kSwitch || l.peer >= n || l.port == 0 || l.port > ports_[s])
        continue;
      std::uint32_t& slot = by_port_[first_[s] + l.port];
      if (slot != kNone) continue;  // one link per port
      slot = size();
      from_.push_back(s);
      to_.push_back(l.peer);
      port_.push_back(l.port);
      peer_port_.push_back(l.peer_port);
    }
  }
  for (std::uint32_t c = 0; c < size(); ++c)
    out_[from_[c]].push_back(c);
  for (auto& list : out_)
    std::sort(list.begin(), list.end(),
              [this](std::uint32_t a, std::uint32_t b) { return port_[a] < port_[b]; });
}

void channels_of_path(const ChannelIndex& ch, const Routes& routes, std::uint32_t s, Lid dlid,
                      std::vector<std::uint32_t>& out, unsigned limit) {
  out.clear();
  for (unsigned hop = 0; hop < limit && s < routes.lfts.size(); ++hop) {
    const Lft& lft = routes.lfts[s];
    if (dlid >= lft.size()) return;
    const std::uint32_t c = ch.at(s, lft[dlid]);
    if (c == ChannelIndex::kNone) return;  // delivered here, to an end port, or dropped
    out.push_back(c);
    s = ch.to(c);
  }
}

}  // namespace ibsm::routing
