// Rate limit for the control server's refusal lines (IBSM-8004 not allowed, IBSM-8005
// root only, IBSM-8023 wrong console token): a local user who loops on connect-and-ask
// must not fill the disk or drown the SM's own lines. In each window (10 s from the
// first refusal) the first `burst` refusals get a line each, naming the peer; the rest
// are counted, and one summary line follows when the window ends, naming the last one.
// Pure: the caller passes the time (the server's injected clock) and writes the lines.
// Unlike common/log_limit.hpp, whose held-back count waits for the next line, a window
// that ends is summed up at once (the server asks at every turn of its loop): an
// attack that stops still leaves its count in the log.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "common/clock.hpp"

namespace ibsm::ctl {

class RefusalLimiter {
 public:
  struct Summary {
    std::size_t suppressed = 0;  // refusals not logged in the window that ended
    std::string last_peer;       // the last of them
  };
  struct Decision {
    std::optional<Summary> summary;  // of the window this refusal closed: log it first
    bool log_this = false;           // this refusal gets a line of its own
  };

  explicit RefusalLimiter(std::size_t burst = 5, Clock::Duration window = std::chrono::seconds(10))
      : burst_(burst), window_(window) {}

  Decision note(Clock::TimePoint now, const std::string& peer) {
    Decision d;
    d.summary = due(now);
    if (!start_) start_ = now;
    ++count_;
    d.log_this = count_ <= burst_;
    if (!d.log_this) last_peer_ = peer;
    return d;
  }

  // The summary of a window that has ended with refusals not logged (once); the
  // server asks at every turn of its loop.
  std::optional<Summary> due(Clock::TimePoint now) {
    if (!start_ || now - *start_ < window_) return std::nullopt;
    std::optional<Summary> s;
    if (count_ > burst_) s = Summary{count_ - burst_, last_peer_};
    start_.reset();
    count_ = 0;
    last_peer_.clear();
    return s;
  }

 private:
  std::size_t burst_;
  Clock::Duration window_;
  std::optional<Clock::TimePoint> start_;
  std::size_t count_ = 0;
  std::string last_peer_;
};

}  // namespace ibsm::ctl
