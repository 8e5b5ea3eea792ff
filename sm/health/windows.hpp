// The windows a condition is counted in, one per port and condition:
//  - SweepWindow: "n of the last w sweeps" as a bit mask of the last 31 sweeps (why
//    NVIDIA's windows stop at 31). Sweeps the port was not seen in count as clean.
//  - TimeWindow: "n within a period", keeping only the last n times (a port that
//    sends a thousand traps a second costs n entries, not a thousand).
//  - CountWindow: a counter's increase within the last hour, from PerfMgr deltas that
//    each cover some elapsed time.
// Pure: the sweep number and the time come in.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>

#include "common/clock.hpp"

namespace ibsm::sm::health {

class SweepWindow {
 public:
  // Records sweep `sweep` (numbers only grow) as `hit` or not; returns the hits in
  // the last `window` sweeps, this one included.
  unsigned record(std::uint64_t sweep, bool hit, unsigned window);
  bool empty() const { return bits_ == 0; }

 private:
  std::uint32_t bits_ = 0;  // bit 0 = sweep last_
  std::uint64_t last_ = 0;
};

class TimeWindow {
 public:
  // Records one event at `now`; returns the events within `period` up to now,
  // counting at most `keep`.
  unsigned record(Clock::TimePoint now, Clock::Duration period, unsigned keep);
  bool empty() const { return times_.empty(); }

 private:
  std::deque<Clock::TimePoint> times_;
};

class CountWindow {
 public:
  static constexpr auto kSpan = std::chrono::hours(1);
  // Adds `delta` counted over `elapsed` up to `now`; returns the increase within the
  // last hour. A delta over more than an hour counts its hourly share only.
  std::uint64_t record(Clock::TimePoint now, std::uint64_t delta, Clock::Duration elapsed);
  bool empty() const { return parts_.empty(); }

 private:
  struct Part {
    Clock::TimePoint at;
    std::uint64_t delta;
  };
  std::deque<Part> parts_;
  std::uint64_t sum_ = 0;
};

}  // namespace ibsm::sm::health
