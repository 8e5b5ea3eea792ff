// SmpWindow: how many SMPs may be on the wire now, learnt from how the fabric
// answers. A pure controller: no I/O, no clock of its own; SmpClient feeds it
// events (sent, answered with its round trip, timed out, abandoned) and asks
// it before every send.
//
// The global window works like TCP's congestion window: slow start from
// `initial` (doubling per round trip), then additive increase (+1 per window
// of answers), multiplicative decrease (halving) on congestion. Congestion is
// a timeout or a late answer (round trip over half the transaction timeout:
// the responder's queue is nearing the deadline), and the window reacts to it
// at most once per round trip: only signals about SMPs sent after the last
// decrease count, so one burst of timeouts is one halving, not a collapse.
// It grows only while it is used: while the most SMPs in flight since the last
// decrease reach half of it, so a phase of few SMPs at a time cannot grow it
// to the cap for the next burst to hit at once.
//
// One slow responder must not throttle the rest, so the global window only
// shrinks when signals come from two different destinations within one such
// epoch (shared congestion: the SM's port, the first switch, a simulator).
// A destination's own signals halve its own limit of SMPs in flight instead:
// a slow switch management processor gets few SMPs at a time, stops timing
// out, and everything else keeps the full window.
//
// OpenSM's escape from a stalled window is kept as OpenSM defines it
// (max_wire_smps2, max_smps_timeout): while the window stays full with no SMP
// completing for `stall_timeout`, one more SMP may go out, up to `stall_cap`
// in total; any completion takes the allowance back.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "common/clock.hpp"
#include "mad/smp.hpp"

namespace ibsm::mad {

// Who has to answer an SMP: the management processor at the end of its
// directed route, or behind its LID. A hash: a collision only merges the
// limits of two destinations.
using SmpDestination = std::uint64_t;
SmpDestination destination_of(const SmpTarget& target);

struct SmpWindowSettings {
  unsigned initial = 4;           // first window (OpenSM's fixed default: safe everywhere)
  unsigned cap = 128;             // never more on the wire (max_wire_smps when given)
  unsigned per_destination = 16;  // never more in flight to one destination
  Clock::Duration timeout = std::chrono::milliseconds(200);  // transaction_timeout
  unsigned stall_cap = 0;  // max_wire_smps2; at most `cap` (the default) turns the escape off
  Clock::Duration stall_timeout = std::chrono::milliseconds(600);  // max_smps_timeout
};

class SmpWindow {
 public:
  explicit SmpWindow(const SmpWindowSettings& s);
  // New bounds (SIGHUP); what was learnt is kept within them.
  void reconfigure(const SmpWindowSettings& s);

  // Grants the stall allowance when due; call before asking may_send.
  void tick(Clock::TimePoint now);
  // Is there room on the wire at all?
  bool full() const { return in_flight_ >= allowed(); }
  // May one more SMP to `dest` go on the wire now?
  bool may_send(SmpDestination dest) const;

  void on_sent(SmpDestination dest, Clock::TimePoint now);
  // An answer (any status) to an SMP sent at `sent_at`.
  void on_answer(SmpDestination dest, Clock::TimePoint sent_at, Clock::TimePoint now);
  // The SMP sent at `sent_at` missed its deadline.
  void on_timeout(SmpDestination dest, Clock::TimePoint sent_at, Clock::TimePoint now);
  // Left the wire without saying anything about speed (send failure, malformed answer).
  void on_abandoned(SmpDestination dest, Clock::TimePoint now);

  // The window now (without the stall allowance).
  unsigned limit() const;
  // The window plus the stall allowance: what may be on the wire now.
  unsigned allowed() const;
  unsigned in_flight() const { return in_flight_; }
  unsigned peak_in_flight() const { return peak_in_flight_; }
  std::uint64_t decreases() const { return decreases_; }
  // Why the window last changed ("slow start", "timeout", ...), for the log.
  const char* last_reason() const { return reason_; }
  // When the stall allowance grows next, if the window is full and it can.
  std::optional<Clock::TimePoint> stall_deadline() const;
  // The current limit of one destination (for tests and the log).
  unsigned destination_limit(SmpDestination dest) const;

 private:
  struct Destination {
    unsigned in_flight = 0;
    double limit = 0;
    Clock::TimePoint last_decrease{};  // signals about SMPs sent before it are old news
  };

  void leave(SmpDestination dest, Clock::TimePoint now);
  void congestion(SmpDestination dest, Clock::TimePoint sent_at, Clock::TimePoint now,
                  const char* why);
  void grow();
  void forget_if_idle(SmpDestination dest);

  SmpWindowSettings s_;
  double cwnd_;
  double ssthresh_;
  Clock::TimePoint last_decrease_{};
  std::optional<SmpDestination> epoch_signal_from_;  // first destination to signal this epoch
  unsigned in_flight_ = 0;
  unsigned peak_in_flight_ = 0;
  unsigned used_ = 0;   // most in flight since the last decrease
  unsigned acked_ = 0;  // answers towards the next additive increase
  std::uint64_t decreases_ = 0;
  unsigned stall_extra_ = 0;
  Clock::TimePoint last_progress_{};
  const char* reason_ = "initial";
  std::unordered_map<SmpDestination, Destination> dests_;
};

}  // namespace ibsm::mad
