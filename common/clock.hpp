// The clock seam. Everything that waits (MAD timeouts, sweep intervals, standby
// polling) asks a Clock, so unit tests drive time with FakeClock instead of sleeping.
#pragma once

#include <chrono>
#include <thread>

namespace ibsm {

class Clock {
 public:
  using Duration = std::chrono::steady_clock::duration;
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
  // Lets time pass (on a FakeClock, at once) without waiting for anything.
  // Const: whoever may read the clock may wait on it.
  virtual void sleep_for(Duration d) const = 0;
};

class SteadyClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
  void sleep_for(Duration d) const override { std::this_thread::sleep_for(d); }
};

class FakeClock final : public Clock {
 public:
  TimePoint now() const override { return now_; }
  void sleep_for(Duration d) const override { now_ += d; }
  void advance(Duration d) { now_ += d; }
  void set(TimePoint t) { now_ = t; }

 private:
  // Mutable: a const sleep_for() moves it, as time passes for a const steady_clock.
  mutable TimePoint now_{std::chrono::seconds(1000)};
};

}  // namespace ibsm
