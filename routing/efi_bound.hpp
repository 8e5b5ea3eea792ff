// The least edge forwarding index (busiest channel's all-to-all route count) any
// routing of a fabric can reach: the local searches that lower the EFI (rebalance.hpp,
// nue's relief) stop once they meet it, which on complete fat trees the greedy engines
// already do (docs/routing.md: 5166 on ft3-5184, 5814 on kary-18-3-5832).
#pragma once

#include <cstdint>
#include <vector>

#include "routing/channel_index.hpp"

namespace ibsm::routing {

// A switch's sources must send sources * (destinations elsewhere in its part of the
// fabric) routes over its out-channels, and its destinations receive as many over its
// in-channels, so the busiest channel carries at least that over the channel count:
// the maximum over switches and both directions, rounded up. `sources[s]` and
// `lids_at[s]` (both one entry per switch): the end ports that send and the LIDs that
// receive at switch s.
std::uint64_t efi_lower_bound(const ChannelIndex& ch, const std::vector<std::uint32_t>& sources,
                              const std::vector<std::uint32_t>& lids_at);

}  // namespace ibsm::routing
