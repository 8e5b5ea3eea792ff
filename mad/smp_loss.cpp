#include "mad/smp_loss.hpp"

#include <algorithm>
#include <cmath>

namespace ibsm::mad {

unsigned attempts_for_loss(double loss, unsigned configured, unsigned cap, double target) {
  cap = std::max(cap, configured);
  if (!(loss > 0)) return configured;  // also NaN
  if (loss >= 1) return cap;
  // loss^n <= target  <=>  n >= log(target) / log(loss) (both logarithms negative)
  const double n = std::ceil(std::log(target) / std::log(loss));
  if (!(n < static_cast<double>(cap))) return cap;
  return std::clamp(static_cast<unsigned>(n), configured, cap);
}

void SmpLoss::on_answered(unsigned attempts) {
  if (attempts == 0) return;
  // Exponential decay per transaction: old evidence fades over about kHorizon answers.
  constexpr double kKeep = 1.0 - 1.0 / kHorizon;
  lost_ = lost_ * kKeep + static_cast<double>(attempts - 1);
  answered_ = answered_ * kKeep + 1.0;
  late_ *= kKeep;
  ++samples_;
}

void SmpLoss::on_late_answer() {
  late_ += 1.0;
}

double SmpLoss::random_loss() const {
  // One late answer keeps this off for about 1500 answered transactions (0.998^1500).
  constexpr double kLateForgotten = 0.05;
  if (late_ > kLateForgotten) return 0;
  return std::min(loss(), kMaxRandomLoss);
}

double SmpLoss::loss() const {
  if (samples_ < kMinSample) return 0;
  return lost_ / (lost_ + answered_);
}

unsigned SmpLoss::attempts(unsigned configured) const {
  return attempts_for_loss(loss(), configured, kMaxAttempts, kTargetFailure);
}

}  // namespace ibsm::mad
