// What one control connection owes its client, and when a client that does not read it
// is cut off (docs/ctl.md, "Limits").
//
// The bytes wait as a queue of strings written in order. An answer goes out from the
// string it was built in (moved in, never copied, and never shifted as it is written),
// so an answer of any size reaches a client that keeps reading; what the box holds
// apart from that one answer is bounded. A client is judged by progress: output that
// waits while nothing of it could be written for the stall limit (ctl_idle_timeout)
// means a client that stopped reading; so does a backlog beyond the answer being
// written (prompts, events, notices) that outgrows the bound. A follower's events are
// not judged by time: its subscription drops and counts what it does not take.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include "common/clock.hpp"

namespace ibsm::ctl {

class Outbox {
 public:
  // An answer to a request: its head, its body (the report, moved in) and its tail (the
  // terminator or prompt). Written after everything queued before it.
  void push_answer(std::string head, std::string body, std::string tail, Clock::TimePoint now);
  // Bytes that are not an answer: a prompt, events, a notice.
  void push_stream(std::string_view bytes, Clock::TimePoint now);

  bool empty() const { return waiting_ == 0; }
  std::size_t bytes() const { return waiting_; }
  // Some answer is not yet wholly written.
  bool answer_waiting() const;
  // The bytes waiting beyond the answer being written (the first answer in the queue):
  // what the client let pile up besides it.
  std::size_t backlog() const;

  // The next bytes to write (empty when nothing waits).
  std::string_view front() const;
  // `n` bytes of front() were written at `now`.
  void consumed(std::size_t n, Clock::TimePoint now);
  void clear();

  // The last time bytes were written, or the time bytes began to wait in an empty box:
  // how long a waiting box has made no progress is now - last_progress().
  Clock::TimePoint last_progress() const { return last_progress_; }

 private:
  struct Piece {
    std::string bytes;
    std::uint64_t answer = 0;  // the answer it belongs to (1, 2, ...); 0: not an answer
  };
  void push(std::string bytes, std::uint64_t answer, Clock::TimePoint now);

  std::deque<Piece> pieces_;
  std::size_t head_ = 0;     // bytes of pieces_.front() already written
  std::size_t waiting_ = 0;  // bytes not yet written, all pieces
  std::uint64_t answers_ = 0;
  Clock::TimePoint last_progress_{};
};

// Why a connection's client is cut off, if it is.
enum class OutboxVerdict {
  kKeep,     // nothing waits, or the client takes what waits
  kStalled,  // an answer waits and nothing could be written for the stall limit
  kBacklog,  // more than the bound waits beyond the answer being written
};

OutboxVerdict judge_outbox(const Outbox& box, Clock::TimePoint now, Clock::Duration stall_limit,
                           std::size_t max_backlog);

}  // namespace ibsm::ctl
