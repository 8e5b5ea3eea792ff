// The EFI lower bound (see efi_bound.hpp).
#include "routing/efi_bound.hpp"

#include <algorithm>

namespace ibsm::routing {

std::uint64_t efi_lower_bound(const ChannelIndex& ch, const std::vector<std::uint32_t>& sources,
                              const std::vector<std::uint32_t>& lids_at) {
  const auto n = static_cast<std::uint32_t>(sources.size());
  std::vector<std::uint32_t> in(n, 0);
  for (std::uint32_t c = 0; c < ch.size(); ++c)
    ++in[ch.to(c)];
  // Parts of the fabric (links run both ways, so following out-channels finds them) and
  // the sources and LIDs each holds.
  std::vector<std::uint32_t> part(n, UINT32_MAX), queue;
  std::vector<std::uint64_t> part_sources, part_lids;
  for (std::uint32_t r = 0; r < n; ++r) {
    if (part[r] != UINT32_MAX) continue;
    const auto id = static_cast<std::uint32_t>(part_sources.size());
    part_sources.push_back(0);
    part_lids.push_back(0);
    queue.assign(1, r);
    part[r] = id;
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const std::uint32_t s = queue[i];
      part_sources[id] += sources[s];
      part_lids[id] += lids_at[s];
      for (std::uint32_t c : ch.out(s))
        if (part[ch.to(c)] == UINT32_MAX) {
          part[ch.to(c)] = id;
          queue.push_back(ch.to(c));
        }
    }
  }
  std::uint64_t bound = 0;
  for (std::uint32_t s = 0; s < n; ++s) {
    const std::uint64_t out = ch.out(s).size();
    if (out == 0 || in[s] == 0) continue;
    const std::uint64_t lids_here = lids_at[s];
    const std::uint64_t lids_elsewhere = part_lids[part[s]] - lids_here;
    const std::uint64_t sources_elsewhere = part_sources[part[s]] - sources[s];
    bound = std::max(bound, (sources[s] * lids_elsewhere + out - 1) / out);
    bound = std::max(bound, (lids_here * sources_elsewhere + in[s] - 1) / in[s]);
  }
  return bound;
}

}  // namespace ibsm::routing
