#include "ctl/outbox.hpp"

#include <utility>

namespace ibsm::ctl {

void Outbox::push(std::string bytes, std::uint64_t answer, Clock::TimePoint now) {
  if (bytes.empty()) return;
  if (waiting_ == 0) last_progress_ = now;  // the wait for this client starts now
  waiting_ += bytes.size();
  pieces_.push_back(Piece{std::move(bytes), answer});
}

void Outbox::push_answer(std::string head, std::string body, std::string tail,
                         Clock::TimePoint now) {
  const std::uint64_t id = ++answers_;
  // An empty answer still counts: its tail (`.ok`) is the answer.
  push(std::move(head), id, now);
  push(std::move(body), id, now);
  push(std::move(tail), id, now);
}

void Outbox::push_stream(std::string_view bytes, Clock::TimePoint now) {
  if (bytes.empty()) return;
  // Events and prompts come in small pieces: they join a stream piece that is waiting
  // at the end rather than each taking a piece of its own.
  if (!pieces_.empty() && pieces_.back().answer == 0 && pieces_.back().bytes.size() < 64 * 1024) {
    if (waiting_ == 0) last_progress_ = now;
    pieces_.back().bytes.append(bytes);
    waiting_ += bytes.size();
    return;
  }
  push(std::string(bytes), 0, now);
}

bool Outbox::answer_waiting() const {
  for (const Piece& p : pieces_)
    if (p.answer != 0) return true;
  return false;
}

std::size_t Outbox::backlog() const {
  std::uint64_t current = 0;
  std::size_t in_current = 0;
  for (std::size_t i = 0; i < pieces_.size(); ++i) {
    const Piece& p = pieces_[i];
    if (p.answer == 0) continue;
    if (current == 0) current = p.answer;
    if (p.answer != current) break;
    in_current += p.bytes.size() - (i == 0 ? head_ : 0);
  }
  return waiting_ - in_current;
}

std::string_view Outbox::front() const {
  if (pieces_.empty()) return {};
  return std::string_view(pieces_.front().bytes).substr(head_);
}

void Outbox::consumed(std::size_t n, Clock::TimePoint now) {
  if (n == 0) return;
  last_progress_ = now;
  waiting_ -= n;
  head_ += n;
  if (head_ == pieces_.front().bytes.size()) {
    pieces_.pop_front();  // a written answer's memory goes back at once
    head_ = 0;
  }
}

void Outbox::clear() {
  pieces_.clear();
  head_ = 0;
  waiting_ = 0;
}

OutboxVerdict judge_outbox(const Outbox& box, Clock::TimePoint now, Clock::Duration stall_limit,
                           std::size_t max_backlog) {
  if (box.empty()) return OutboxVerdict::kKeep;
  if (box.backlog() > max_backlog) return OutboxVerdict::kBacklog;
  // Events waiting for a follower that does not read are the subscription's to drop
  // and count; the connection is judged when an answer waits.
  if (box.answer_waiting() && now - box.last_progress() > stall_limit)
    return OutboxVerdict::kStalled;
  return OutboxVerdict::kKeep;
}

}  // namespace ibsm::ctl
