#include "rest/login_limiter.hpp"

#include <algorithm>

namespace ibsm::rest {

Clock::Duration LoginLimiter::credit_at(const Bucket& b, Clock::TimePoint now) const {
  const Clock::Duration elapsed = now > b.at ? now - b.at : Clock::Duration::zero();
  return std::min(full(), b.credit + elapsed);
}

const LoginLimiter::Bucket* LoginLimiter::find(std::string_view address) const {
  if (const auto it = buckets_.find(std::string(address)); it != buckets_.end()) return &it->second;
  if (buckets_.size() >= config_.max_addresses && overflow_used_) return &overflow_;
  return nullptr;
}

bool LoginLimiter::may_try(std::string_view address, Clock::TimePoint now) const {
  const Bucket* b = find(address);
  return b == nullptr || credit_at(*b, now) >= config_.refill_every;
}

Clock::Duration LoginLimiter::retry_after(std::string_view address, Clock::TimePoint now) const {
  const Bucket* b = find(address);
  if (b == nullptr) return Clock::Duration::zero();
  const Clock::Duration credit = credit_at(*b, now);
  return credit >= config_.refill_every ? Clock::Duration::zero() : config_.refill_every - credit;
}

LoginLimiter::Bucket& LoginLimiter::bucket_for(std::string_view address, Clock::TimePoint now) {
  if (auto it = buckets_.find(std::string(address)); it != buckets_.end()) return it->second;
  if (buckets_.size() >= config_.max_addresses) {
    std::erase_if(buckets_, [&](const auto& kv) { return credit_at(kv.second, now) >= full(); });
  }
  if (buckets_.size() >= config_.max_addresses) {
    if (!overflow_used_) overflow_ = {full(), now};
    overflow_used_ = true;
    return overflow_;
  }
  return buckets_.emplace(std::string(address), Bucket{full(), now}).first->second;
}

void LoginLimiter::failed(std::string_view address, Clock::TimePoint now) {
  Bucket& b = bucket_for(address, now);
  const Clock::Duration credit = credit_at(b, now);
  b.credit =
      credit >= config_.refill_every ? credit - config_.refill_every : Clock::Duration::zero();
  b.at = now;
}

}  // namespace ibsm::rest
