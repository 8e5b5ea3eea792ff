#include "sm/health/windows.hpp"

#include <bit>

namespace ibsm::sm::health {

unsigned SweepWindow::record(std::uint64_t sweep, bool hit, unsigned window) {
  const std::uint64_t gap = sweep - last_;
  bits_ = gap >= 32 ? 0 : static_cast<std::uint32_t>(std::uint64_t{bits_} << gap);
  last_ = sweep;
  if (hit) bits_ |= 1u;
  const std::uint32_t mask = window >= 32 ? ~0u : (1u << window) - 1u;
  return static_cast<unsigned>(std::popcount(bits_ & mask));
}

unsigned TimeWindow::record(Clock::TimePoint now, Clock::Duration period, unsigned keep) {
  times_.push_back(now);
  while (!times_.empty() && (times_.front() <= now - period || times_.size() > keep))
    times_.pop_front();
  return static_cast<unsigned>(times_.size());
}

std::uint64_t CountWindow::record(Clock::TimePoint now, std::uint64_t delta,
                                  Clock::Duration elapsed) {
  if (elapsed > kSpan) {
    const auto span = std::chrono::duration_cast<Clock::Duration>(kSpan).count();
    delta = static_cast<std::uint64_t>(static_cast<long double>(delta) * span / elapsed.count());
  }
  if (delta != 0) {
    parts_.push_back({now, delta});
    sum_ += delta;
  }
  while (!parts_.empty() && parts_.front().at <= now - kSpan) {
    sum_ -= parts_.front().delta;
    parts_.pop_front();
  }
  return sum_;
}

}  // namespace ibsm::sm::health
