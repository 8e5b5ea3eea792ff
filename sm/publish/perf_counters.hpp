// The PerfMgr's counters as /metrics and ibsm-ctl read them: an immutable copy taken on
// the SM's thread after each PerfMgr sweep, never more often (a copy of a big fabric's
// counters is not free), and held until the next one.
#pragma once

#include <cstdint>
#include <functional>

#include "perfmgr/counter_snapshot.hpp"

namespace ibsm::sm::publish {

class PerfCounterCopy {
 public:
  // `sweeps`: the PerfMgr's finished sweeps so far; `copy` takes its counters. Copies
  // when a sweep finished since the last copy and returns true (publish the ops
  // snapshot again); else false, and `copy` is not called.
  bool refresh(std::uint64_t sweeps, const std::function<perfmgr::CounterSnapshotPtr()>& copy) {
    if (sweeps == copied_sweeps_) return false;
    copied_sweeps_ = sweeps;
    counters_ = copy();
    return true;
  }
  // Null before the PerfMgr's first sweep.
  const perfmgr::CounterSnapshotPtr& counters() const { return counters_; }

 private:
  perfmgr::CounterSnapshotPtr counters_;
  std::uint64_t copied_sweeps_ = 0;
};

}  // namespace ibsm::sm::publish
