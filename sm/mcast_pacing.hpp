// When the SM recomputes the multicast trees of groups whose members changed between
// sweeps (MulticastManager::program_dirty): once the joins pause, and at least every
// max_wait while they keep coming.
//
// A lone join gets its MFTs after `quiet` (the host can send within a few ms). A
// storm (every host rejoins after a ClientReregister or a failover) gets a pass every
// max_wait while it lasts and one `quiet` after its last join: every pass recomputes
// the trees and Sets each changed MFT block, so fewer passes send fewer Sets (a block
// gathers more of its switch's new members) and spend less of the SM's time away from
// the SA's answers. With a fixed 20 ms pass, kary-18-3-5832's storm took 11 passes and
// 1 050 MFT Sets, and a join arriving just after a pass waited the whole interval.
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
