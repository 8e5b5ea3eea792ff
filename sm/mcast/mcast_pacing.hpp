// When the SM recomputes the multicast trees of groups whose members changed between
// sweeps (MulticastManager::program_dirty): once the joins pause, and at least every
// max_wait while they keep coming.
//
// A lone join gets its MFTs after `quiet` (the host can send within a few ms; a fixed
// 20 ms pass made it wait up to the whole interval). A storm (every host rejoins after
// a ClientReregister or a failover) gets a pass every max_wait while it lasts, so the
// SM spends less of it recomputing trees away from the SA's answers, and one pass
// `quiet` after its last join. The MFT Sets hardly change: on kary-18-3-5832 hosts join
// in GUID order, each edge switch's block changes about once whatever the pacing
// (about 1 045 Sets with 20 ms passes and with these).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>

#include "common/clock.hpp"

namespace ibsm::sm {

class McastPacing {
 public:
  static constexpr std::chrono::milliseconds kQuiet{5};
  static constexpr std::chrono::milliseconds kMaxWait{50};

  // `changes` counts every membership change so far (McGroupStore::changes_seen);
  // `pending` says whether any is still waiting for a pass.
  void observe(Clock::TimePoint now, bool pending, std::uint64_t changes) {
    if (!pending) {
      since_.reset();
      seen_ = changes;
      return;
    }
    if (!since_) since_ = now;
    if (changes != seen_) {
      last_ = now;
      seen_ = changes;
    }
  }
  // When the pass is due (nullopt: nothing waits).
  std::optional<Clock::TimePoint> due() const {
    if (!since_) return std::nullopt;
    return std::min(std::max(last_, *since_) + kQuiet, *since_ + kMaxWait);
  }
  // The pass ran: what arrives later starts a new wait.
  void passed() { since_.reset(); }

 private:
  std::optional<Clock::TimePoint> since_;  // first change the next pass covers
  Clock::TimePoint last_{};                // latest change seen
  std::uint64_t seen_ = 0;
};

}  // namespace ibsm::sm
