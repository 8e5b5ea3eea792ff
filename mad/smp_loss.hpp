// SmpLoss: how many SMP attempts the fabric loses, and so how many attempts a
// transaction needs before the SM may conclude that nobody answers.
//
// Why: transaction_retries (3, OpenSM's default) is right for a clean fabric, where a
// request that goes unanswered four times means a node that is gone. On a fabric that
// drops SMPs at random (a bad cable, a flaky switch, 20 % loss in ibsim) four attempts
// fail for p^4 of all requests: at 20 % loss that is 1 in 625, tens of failed SMPs per
// sweep of a 2048-host fabric, so every sweep ends with errors and the SM never reaches
// a clean SUBNET UP (OpenSM declares it anyway and drops the nodes it missed). More
// attempts for every request would make a node that really left cost more everywhere.
//
// So the SM learns the loss rate from transactions that were answered in the end: a
// request answered on its third attempt shows two attempts lost on a path that works.
// Nodes that never answer do not count, so a dead switch does not look like loss. The
// attempts a transaction gets are the fewest that bring its failure probability
// (loss^attempts) under kTargetFailure, never fewer than configured and never more
// than kMaxAttempts. On a clean fabric the estimate stays near 0 and nothing changes.
//
// The same estimate keeps random loss from collapsing the SMP window: TCP's lesson is
// that a window halving on every loss starves on a lossy link, so SmpClient puts up to
// the expected number of timeouts down to loss (random_loss()) and only the excess is
// congestion. Late answers (a slow management processor, a queue) switch that off:
// then the timeouts are slowness and the window must shrink.
#pragma once

#include <cstdint>

namespace ibsm::mad {

// Attempts for a transaction when attempts are lost at rate `loss`: the smallest n with
// loss^n <= target, clamped to [configured, cap]. Pure, for tests.
unsigned attempts_for_loss(double loss, unsigned configured, unsigned cap, double target);

class SmpLoss {
 public:
  // A request should fail only this rarely for loss alone: 1 in a million, a few
  // hundredths of a failed SMP per sweep of the largest fabrics in bench/.
  static constexpr double kTargetFailure = 1e-6;
  // At most this many attempts (OpenSM's default allows 4): 16 x transaction_timeout
  // (3.2 s) for a node that left a lossy fabric mid-sweep.
  static constexpr unsigned kMaxAttempts = 16;
  // The estimate follows about this many recent transactions, so it recovers within a
  // sweep when the loss stops.
  static constexpr double kHorizon = 512;
  // Fewer answered transactions than this say too little to act on.
  static constexpr std::uint64_t kMinSample = 32;

  // A transaction was answered (any status) on attempt number `attempts` (1 = first).
  void on_answered(unsigned attempts);
  // An answer came after its attempt had been given up on: a responder that is slow,
  // not a fabric that loses SMPs.
  void on_late_answer();
  // Fraction of attempts lost on paths that work; 0 until kMinSample transactions.
  double loss() const;
  // Attempts a transaction gets when the configuration allows `configured`.
  unsigned attempts(unsigned configured) const;
  // The share of timeouts the SMP window should put down to random loss rather than
  // congestion: loss(), at most kMaxRandomLoss, and 0 while late answers show that
  // timeouts are (also) slowness, which the window must back off from.
  double random_loss() const;

  static constexpr double kMaxRandomLoss = 0.5;

 private:
  double lost_ = 0;            // decayed count of lost attempts
  double answered_ = 0;        // decayed count of answered transactions
  std::uint64_t samples_ = 0;  // answered transactions ever
  double late_ = 0;            // decayed count of late answers
};

}  // namespace ibsm::mad
