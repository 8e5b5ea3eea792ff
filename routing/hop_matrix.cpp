#include "routing/hop_matrix.hpp"

#include <array>
#include <string>

#include "routing/errors.hpp"

namespace ibsm::routing {

Result<HopMatrix> HopMatrix::compute(const Topology& topo) {
  const auto n = static_cast<std::uint32_t>(topo.switches.size());
  // Compact adjacency (neighbour switch indices) so the S BFS runs stay in cache.
  std::vector<std::uint32_t> offsets(n + 1, 0);
  std::vector<std::uint32_t> peers;
  for (std::uint32_t s = 0; s < n; ++s) {
    for (const Link& l : topo.switches[s].links) {
      if (l.kind != Link::Kind::kSwitch) continue;
      if (l.peer >= n)
        return fail(kErrTopologyInvalid, "switch " + std::to_string(s) + " port " +
                                             std::to_string(l.port) + " links to switch index " +
                                             std::to_string(l.peer) + " which does not exist");
      peers.push_back(l.peer);
    }
    offsets[s + 1] = static_cast<std::uint32_t>(peers.size());
  }

  HopMatrix m;
  m.n_ = n;
  m.cells_.assign(std::size_t{n} * n, kUnreachable);
  std::vector<std::uint32_t> queue(n);
  for (std::uint32_t src = 0; src < n; ++src) {
    std::uint8_t* row = &m.cells_[std::size_t{src} * n];
    row[src] = 0;
    std::uint32_t head = 0;
    std::uint32_t tail = 0;
    queue[tail++] = src;
    while (head < tail) {
      const std::uint32_t s = queue[head++];
      const unsigned next = row[s] + 1U;
      for (std::uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) {
        const std::uint32_t p = peers[i];
        if (row[p] != kUnreachable) continue;
        if (next >= kUnreachable)
          return fail(kErrDiameterTooLarge, "switch " + std::to_string(p) +
                                                " is more than 254 hops from switch " +
                                                std::to_string(src));
        row[p] = static_cast<std::uint8_t>(next);
        queue[tail++] = p;
      }
    }
  }
  return m;
}

void HopMatrix::farthest_first(std::uint32_t dst, std::vector<std::uint32_t>& out) const {
  const std::uint8_t* r = row(dst);
  std::array<std::uint32_t, kUnreachable + 1> start{};
  for (std::uint32_t s = 0; s < n_; ++s)
    ++start[r[s]];
  // Bucket starts for distances from high to low, skipping unreachable and dst itself.
  std::uint32_t pos = 0;
  for (int d = kUnreachable - 1; d >= 1; --d) {
    const std::uint32_t count = start[d];
    start[d] = pos;
    pos += count;
  }
  out.assign(pos, 0);
  for (std::uint32_t s = 0; s < n_; ++s)
    if (r[s] != 0 && r[s] != kUnreachable) out[start[r[s]]++] = s;
}

}  // namespace ibsm::routing
