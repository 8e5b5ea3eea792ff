// The clock seam. Everything that waits (MAD timeouts, sweep intervals, standby
// polling) asks a Clock, so unit tests drive time with FakeClock instead of sleeping.
#pragma once

#include <chrono>

namespace ibsm {

class Clock {
 public:
  using Duration = std::chrono::steady_clock::duration;
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

class SteadyClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
};

class FakeClock final : public Clock {
 public:
  TimePoint now() const override { return now_; }
  void advance(Duration d) { now_ += d; }
  void set(TimePoint t) { now_ = t; }

 private:
  TimePoint now_{std::chrono::seconds(1000)};
};

}  // namespace ibsm
