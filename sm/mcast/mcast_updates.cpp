// McastUpdates (sm/mcast/mcast_updates.hpp): the pacing of the passes over changed
// groups and of the SA snapshot's MFT amendments between sweeps.
#include "sm/mcast/mcast_updates.hpp"

#include <algorithm>

namespace ibsm::sm::mcast {

std::chrono::milliseconds McastUpdates::poll_wait(bool pending, std::uint64_t changes,
                                                  std::chrono::milliseconds wait) {
  const auto now = clock_.now();
  pacing_.observe(now, pending, changes);
  if (const auto due = pacing_.due())
    wait = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(*due - now),
                      std::chrono::milliseconds(0), wait);
  return wait;
}

bool McastUpdates::pass_due(bool pending, std::uint64_t changes) {
  const auto now = clock_.now();
  pacing_.observe(now, pending, changes);
  const auto due = pacing_.due();
  if (!due || now < *due) return false;
  pacing_.passed();
  return true;
}

bool McastUpdates::publish(MulticastManager& mcast, const Amend& amend) {
  pending_ = mcast.take_held_changed() || pending_;
  if (!pending_ || mcast.busy()) return false;
  // A burst of joins on a big fabric must not turn into a copy per join: the copies
  // may take at most a tenth of the time (small fabrics: at once).
  if (clock_.now() - published_ < 10 * cost_) return false;
  const auto t0 = std::chrono::steady_clock::now();
  if (!amend(mcast)) return false;
  published_ = clock_.now();
  cost_ = std::chrono::duration_cast<Clock::Duration>(std::chrono::steady_clock::now() - t0);
  pending_ = false;
  return true;
}

void McastUpdates::snapshot_published(MulticastManager& mcast) {
  pending_ = false;  // this snapshot carries every MFT confirmed so far
  static_cast<void>(mcast.take_held_changed());
}

}  // namespace ibsm::sm::mcast
