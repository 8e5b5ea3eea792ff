// The one place the OpsSnapshot lives: the SM's thread publishes, any thread reads.
// Both are an atomic shared_ptr swap, so a reader never blocks the SM and keeps the
// snapshot it took for as long as it needs it.
#pragma once

#include <atomic>
#include <memory>

#include "ops/ops_snapshot.hpp"

namespace ibsm::ops {

class OpsPublisher {
 public:
  void publish(OpsSnapshotPtr s) { current_.store(std::move(s), std::memory_order_release); }
  // Null until the SM published its first snapshot (at start-up, before any sweep).
  OpsSnapshotPtr current() const { return current_.load(std::memory_order_acquire); }

 private:
  std::atomic<OpsSnapshotPtr> current_;
};

}  // namespace ibsm::ops
