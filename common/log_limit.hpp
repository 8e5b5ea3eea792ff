// One rate limit for log lines about what peers send or do (forged answers, refused
// connections, requests over a bound): at most `burst` lines per `interval`, the rest
// counted, and the count named by the next line that goes out, so a peer that loops
// cannot flood the log or the disk. Pure: the caller passes the time (an injected
// clock, or steady_clock). The control server's refusals add a summary at the end of a
// window (ctl/refusal_log.hpp); the SA logs at powers of two (sa/limits.hpp).
#pragma once

#include <chrono>
#include <cstdint>

#include "common/clock.hpp"

namespace ibsm {

class LogLimit {
 public:
  explicit LogLimit(Clock::Duration interval = std::chrono::seconds(1), unsigned burst = 5)
      : interval_(interval), burst_(burst) {}
  // True when a line may go out now; `suppressed()` then says how many did not since
  // the previous line.
  bool allow(Clock::TimePoint now);
  std::uint64_t suppressed() const { return suppressed_; }

 private:
  Clock::Duration interval_;
  unsigned burst_;
  Clock::TimePoint window_{};
  bool started_ = false;
  unsigned in_window_ = 0;
  std::uint64_t suppressed_ = 0;
  std::uint64_t pending_ = 0;
};

}  // namespace ibsm
