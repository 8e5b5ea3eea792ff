#include "common/log_limit.hpp"

namespace ibsm {

bool LogLimit::allow(Clock::TimePoint now) {
  if (!started_ || now - window_ >= interval_) {
    started_ = true;
    window_ = now;
    in_window_ = 0;
  }
  if (in_window_ >= burst_) {
    ++pending_;
    return false;
  }
  ++in_window_;
  suppressed_ = pending_;
  pending_ = 0;
  return true;
}

}  // namespace ibsm
