#include "ops/event_bus.hpp"

#include <algorithm>
#include <utility>

namespace ibsm::ops {

Subscription::Subscription(std::size_t capacity, std::function<void()> wake)
    : capacity_(std::max<std::size_t>(capacity, 1)), wake_(std::move(wake)) {}

bool Subscription::offer(const EventPtr& e) {
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= capacity_) {
      if (dropped_pending_ == 0) first_dropped_seq_ = e->seq;
      last_dropped_seq_ = e->seq;
      ++dropped_pending_;
      dropped_total_.fetch_add(1);
      return false;
    }
    queue_.push_back(e);
  }
  cv_.notify_one();
  if (wake_) wake_();
  return true;
}

std::vector<EventPtr> Subscription::take() {
  std::deque<EventPtr> got;
  std::uint64_t dropped = 0, first = 0, last = 0;
  {
    std::lock_guard lock(mu_);
    got.swap(queue_);
    dropped = std::exchange(dropped_pending_, 0);
    first = first_dropped_seq_;
    last = last_dropped_seq_;
  }
  std::vector<EventPtr> out;
  out.reserve(got.size() + 1);
  if (dropped > 0) {
    // The loss is reported where it happened in the sequence: before what came after it.
    auto note = std::make_shared<Event>();
    note->time = std::chrono::system_clock::now();
    note->type = EventType::kEventsDropped;
    note->fields = {{"dropped", dropped},
                    {"first_seq", first},
                    {"last_seq", last},
                    {"total_dropped", dropped_total_.load()},
                    {"reason", std::string("reader too slow: its queue of ") +
                                   std::to_string(capacity_) + " events was full"}};
    out.push_back(std::move(note));
  }
  for (auto& e : got)
    out.push_back(std::move(e));
  return out;
}

bool Subscription::wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return !queue_.empty() || dropped_pending_ > 0; });
}

EventBus::EventBus(std::size_t history, WallClock wall_clock)
    : history_cap_(history), wall_clock_(std::move(wall_clock)) {
  if (!wall_clock_) wall_clock_ = [] { return std::chrono::system_clock::now(); };
}

void EventBus::emit(EventType type, std::vector<EventField> fields) {
  auto e = std::make_shared<Event>();
  e->time = wall_clock_();
  e->type = type;
  e->fields = std::move(fields);
  std::lock_guard lock(mu_);
  e->seq = ++seq_;
  EventPtr shared = std::move(e);
  if (history_cap_ > 0) {
    if (history_.size() >= history_cap_) history_.pop_front();
    history_.push_back(shared);
  }
  // Released subscriptions are forgotten here, so a reader that vanished costs nothing.
  std::erase_if(subscribers_, [&](const std::weak_ptr<Subscription>& w) {
    auto s = w.lock();
    if (!s) return true;
    if (!s->offer(shared)) ++dropped_;
    return false;
  });
}

std::shared_ptr<Subscription> EventBus::subscribe(std::size_t capacity,
                                                  std::function<void()> wake) {
  auto s = std::make_shared<Subscription>(capacity, std::move(wake));
  std::lock_guard lock(mu_);
  subscribers_.push_back(s);
  return s;
}

std::vector<EventPtr> EventBus::history(std::size_t max) const {
  std::lock_guard lock(mu_);
  const std::size_t n = std::min(max, history_.size());
  return {history_.end() - static_cast<std::ptrdiff_t>(n), history_.end()};
}

EventBusStats EventBus::stats() const {
  std::lock_guard lock(mu_);
  std::size_t live = 0;
  for (const auto& w : subscribers_)
    live += w.expired() ? 0 : 1;
  return {seq_, dropped_, live};
}

}  // namespace ibsm::ops
