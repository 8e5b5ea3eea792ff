#include "mad/smp_window.hpp"

#include <algorithm>
#include <cmath>

namespace ibsm::mad {

namespace {

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

std::uint64_t mix(std::uint64_t h, std::uint64_t byte) {
  return (h ^ byte) * kFnvPrime;
}

}  // namespace

SmpDestination destination_of(const SmpTarget& target) {
  std::uint64_t h = kFnvOffset;
  if (const auto* lid = std::get_if<Lid>(&target)) {
    h = mix(h, 'L');
    h = mix(h, *lid & 0xff);
    return mix(h, *lid >> 8);
  }
  const auto& path = std::get<DrPath>(target);
  h = mix(h, 'D');
  for (std::size_t i = 1; i <= path.hops(); ++i)
    h = mix(h, path.port_at(i));
  return mix(h, path.hops());
}

SmpWindow::SmpWindow(const SmpWindowSettings& s)
    : s_(s), cwnd_(std::max(1u, std::min(s.initial, s.cap))), ssthresh_(s.cap) {}

void SmpWindow::reconfigure(const SmpWindowSettings& s) {
  s_ = s;
  s_.cap = std::max(1u, s_.cap);
  cwnd_ = std::min(cwnd_, static_cast<double>(s_.cap));
  ssthresh_ = std::min(ssthresh_, static_cast<double>(s_.cap));
  for (auto& [key, d] : dests_)
    d.limit = std::min(d.limit, static_cast<double>(s_.per_destination));
  stall_extra_ = 0;
}

unsigned SmpWindow::limit() const {
  return std::max(1u, static_cast<unsigned>(std::floor(cwnd_)));
}

unsigned SmpWindow::allowed() const {
  const unsigned base = limit();
  if (stall_extra_ == 0 || s_.stall_cap <= base) return base;
  return std::min(base + stall_extra_, s_.stall_cap);
}

std::optional<Clock::TimePoint> SmpWindow::stall_deadline() const {
  if (s_.stall_cap <= limit()) return std::nullopt;  // off, or nothing above the window
  if (in_flight_ < allowed() || allowed() >= s_.stall_cap) return std::nullopt;
  return last_progress_ + s_.stall_timeout;
}

void SmpWindow::tick(Clock::TimePoint now) {
  // OpenSM: each full max_smps_timeout without a completion lets one more out.
  if (auto due = stall_deadline(); due && now >= *due) {
    ++stall_extra_;
    last_progress_ = now;
  }
}

bool SmpWindow::may_send(SmpDestination dest) const {
  if (full()) return false;
  auto it = dests_.find(dest);
  if (it == dests_.end()) return true;
  return it->second.in_flight < std::max(1u, static_cast<unsigned>(it->second.limit));
}

void SmpWindow::on_sent(SmpDestination dest, Clock::TimePoint now) {
  auto [it, fresh] = dests_.try_emplace(dest);
  if (fresh) it->second.limit = s_.per_destination;
  ++it->second.in_flight;
  ++in_flight_;
  peak_in_flight_ = std::max(peak_in_flight_, in_flight_);
  used_ = std::max(used_, in_flight_);
  if (in_flight_ >= allowed()) last_progress_ = now;  // the stall clock starts when it fills
}

void SmpWindow::leave(SmpDestination dest, Clock::TimePoint now) {
  if (in_flight_ > 0) --in_flight_;
  if (auto it = dests_.find(dest); it != dests_.end() && it->second.in_flight > 0)
    --it->second.in_flight;
  stall_extra_ = 0;  // OpenSM: any completion takes the allowance back
  last_progress_ = now;
}

void SmpWindow::forget_if_idle(SmpDestination dest) {
  // Keeps the table as small as what is in flight plus the slow destinations.
  auto it = dests_.find(dest);
  if (it != dests_.end() && it->second.in_flight == 0 && it->second.limit >= s_.per_destination)
    dests_.erase(it);
}

void SmpWindow::grow() {
  // Only a window that was used says anything about a bigger one (else an idle
  // or serial phase would grow it to the cap and the next burst would go out at
  // once): it grows while the most in flight since the last decrease reaches
  // half of it, so it never gets past twice what the fabric has shown it takes.
  if (2 * used_ < limit()) return;
  if (cwnd_ < ssthresh_) {
    cwnd_ += 1;  // slow start: +1 per answer = doubling per round trip
    reason_ = "slow start";
  } else if (++acked_ >= limit()) {
    // Congestion avoidance: +1 per window of answers, counted exactly (adding
    // 1/cwnd per answer falls short of +1 by rounding).
    cwnd_ += 1;
    acked_ = 0;
    reason_ = "additive increase";
  }
  cwnd_ = std::min(cwnd_, static_cast<double>(s_.cap));
}

void SmpWindow::congestion(SmpDestination dest, Clock::TimePoint sent_at, Clock::TimePoint now,
                           const char* why) {
  auto it = dests_.find(dest);
  if (it != dests_.end() && sent_at >= it->second.last_decrease) {
    it->second.limit = std::max(1.0, it->second.limit / 2);
    it->second.last_decrease = now;
  }
  if (sent_at < last_decrease_) return;  // this epoch was already answered with a decrease
  if (!epoch_signal_from_ || *epoch_signal_from_ == dest) {
    // One destination alone is that destination's problem (its own limit).
    epoch_signal_from_ = dest;
    ssthresh_ = std::min(ssthresh_, cwnd_);  // but stop probing upwards quickly
    return;
  }
  ssthresh_ = std::max(1.0, cwnd_ / 2);
  cwnd_ = ssthresh_;
  used_ = in_flight_;  // what the halved window is judged by starts anew
  acked_ = 0;
  last_decrease_ = now;
  epoch_signal_from_.reset();
  ++decreases_;
  reason_ = why;
}

void SmpWindow::on_answer(SmpDestination dest, Clock::TimePoint sent_at, Clock::TimePoint now) {
  leave(dest, now);
  if (2 * (now - sent_at) > s_.timeout) {
    congestion(dest, sent_at, now, "late answers");
    return;
  }
  if (auto it = dests_.find(dest); it != dests_.end())
    it->second.limit =
        std::min(static_cast<double>(s_.per_destination), it->second.limit + 1 / it->second.limit);
  grow();
  forget_if_idle(dest);
}

void SmpWindow::on_timeout(SmpDestination dest, Clock::TimePoint sent_at, Clock::TimePoint now) {
  leave(dest, now);
  congestion(dest, sent_at, now, "timeouts");
}

void SmpWindow::on_abandoned(SmpDestination dest, Clock::TimePoint now) {
  leave(dest, now);
  forget_if_idle(dest);
}

unsigned SmpWindow::destination_limit(SmpDestination dest) const {
  auto it = dests_.find(dest);
  return it == dests_.end() ? s_.per_destination
                            : std::max(1u, static_cast<unsigned>(it->second.limit));
}

}  // namespace ibsm::mad
