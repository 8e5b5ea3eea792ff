// McastUpdates: multicast between sweeps, apart from the SubnetManager. Joins and
// leaves change the SA's groups while the SM polls its port; this decides when the
// changed groups' trees are recomputed (sm/mcast/mcast_pacing.hpp: once the joins pause, at
// least every max_wait while they keep coming) and when the SA's snapshot is amended
// with the MFTs the switches confirmed (MulticastForwardingTableRecord): once the Sets
// are answered, and on a big fabric no more often than ten times the amendment's cost.
// The SM's loop asks it between polls; the trees and Sets are MulticastManager's
// (sm/mcast/multicast_manager.hpp), the amendment is the SA publisher's (a callback).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "common/clock.hpp"
#include "sm/mcast/mcast_pacing.hpp"
#include "sm/mcast/multicast_manager.hpp"

namespace ibsm::sm::mcast {

class McastUpdates {
 public:
  explicit McastUpdates(const Clock& clock) : clock_(clock) {}

  // Before the loop polls: `wait`, or less so that a pass over changed groups is not
  // late (the last joins of a storm arrive after the last pass, and nothing else may
  // come to end the wait). `pending`: changed groups wait and may be programmed now;
  // `changes`: every membership change so far (McGroupStore::changes_seen).
  std::chrono::milliseconds poll_wait(bool pending, std::uint64_t changes,
                                      std::chrono::milliseconds wait);
  // After the poll: whether the pass is due now. True counts it as done: the caller
  // recomputes the changed groups (MulticastManager::program_dirty).
  bool pass_due(bool pending, std::uint64_t changes);

  // Amends the SA's snapshot with the MFTs `mcast` holds; false when there is no
  // snapshot to amend (then it stays due).
  using Amend = std::function<bool(const MulticastManager& mcast)>;
  // Once the Sets between sweeps are answered and some switch's MFT changed, calls
  // `amend`, at most once per ten times the last amendment's cost. True when it did.
  bool publish(MulticastManager& mcast, const Amend& amend);
  // A full SA snapshot was built: it carries every MFT confirmed so far.
  void snapshot_published(MulticastManager& mcast);

  bool publish_pending() const { return pending_; }

 private:
  const Clock& clock_;
  McastPacing pacing_;            // when changed groups are recomputed
  Clock::TimePoint published_{};  // last amendment carrying MFT changes
  bool pending_ = false;          // MFT changes not in the SA's snapshot yet
  Clock::Duration cost_{};        // wall time the last amendment took
};

}  // namespace ibsm::sm::mcast
