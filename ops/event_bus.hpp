// The event bus: the SM emits events on its own thread; any number of readers
// (ibsm-ctl events --follow, the events file, later the metrics endpoint) each
// subscribe with a bounded queue. emit() never waits for a reader: a full queue
// drops the event for that reader and counts it, and the reader is told what it lost
// (an events_dropped event) before its next event. The bus also keeps the last
// events for readers that ask for history (`ibsm-ctl events`).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "ops/event.hpp"

namespace ibsm::ops {

class EventBus;

// One reader's queue. Thread-safe: the bus pushes from the SM's thread, the reader
// pops from its own.
class Subscription {
 public:
  Subscription(std::size_t capacity, std::function<void()> wake);
  // What arrived since the last call, oldest first; an events_dropped event leads
  // when events were lost in between. Never waits.
  std::vector<EventPtr> take();
  // Waits up to `timeout` for an event (readers with a thread of their own).
  bool wait(std::chrono::milliseconds timeout);
  std::uint64_t dropped_total() const { return dropped_total_.load(); }
  std::size_t capacity() const { return capacity_; }

 private:
  friend class EventBus;
  // SM thread. Returns false when the event was dropped.
  bool offer(const EventPtr& e);

  const std::size_t capacity_;
  std::function<void()> wake_;  // called after a push (must not block: eventfd, notify)
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<EventPtr> queue_;
  std::uint64_t dropped_pending_ = 0;  // since the reader's last take()
  std::uint64_t first_dropped_seq_ = 0;
  std::uint64_t last_dropped_seq_ = 0;
  std::atomic<std::uint64_t> dropped_total_{0};
};

struct EventBusStats {
  std::uint64_t emitted = 0;
  std::uint64_t dropped = 0;  // summed over readers
  std::size_t subscribers = 0;
};

class EventBus {
 public:
  using WallClock = std::function<std::chrono::system_clock::time_point()>;
  // `history`: events kept for `events` without --follow.
  explicit EventBus(std::size_t history = 1000, WallClock wall_clock = {});

  // SM thread. Stamps time and sequence number and hands the event to every reader.
  void emit(EventType type, std::vector<EventField> fields);

  // Any thread. The subscription lives as long as the caller holds it; the bus
  // forgets it at the next emit after it is released.
  std::shared_ptr<Subscription> subscribe(std::size_t capacity, std::function<void()> wake = {});
  // The last events (at most `max`), oldest first.
  std::vector<EventPtr> history(std::size_t max) const;
  EventBusStats stats() const;

 private:
  const std::size_t history_cap_;
  WallClock wall_clock_;
  mutable std::mutex mu_;  // subscribers_, history_, counters: held for pushes only
  std::vector<std::weak_ptr<Subscription>> subscribers_;
  std::deque<EventPtr> history_;
  std::uint64_t seq_ = 0;
  std::uint64_t dropped_ = 0;
};

}  // namespace ibsm::ops
