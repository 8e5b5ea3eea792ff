// The failed-login limiter of the REST API: a token bucket per client address. Each
// failed login takes a token; an address with no token left is refused (429) before its
// password is hashed, so a guesser costs no CPU; tokens come back at a steady rate up to
// the burst. Time is passed in (an injected clock's now()), memory is bounded: at most
// `max_addresses` buckets; when full, buckets that refilled are dropped (they hold
// nothing), and if none did, new addresses share one overflow bucket, so spraying from
// many addresses cannot flush an attacker's bucket.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/clock.hpp"

namespace ibsm::rest {

struct LimiterConfig {
  unsigned burst = 10;                                     // failures before refusing
  Clock::Duration refill_every = std::chrono::seconds(6);  // one token back per period
  std::size_t max_addresses = 4096;
};

class LoginLimiter {
 public:
  explicit LoginLimiter(LimiterConfig config = {}) : config_(config) {}

  // May `address` try a login at `now`? False: answer 429, do not check the password.
  bool may_try(std::string_view address, Clock::TimePoint now) const;
  // A login from `address` failed at `now`.
  void failed(std::string_view address, Clock::TimePoint now);
  // When `address` may try again, from `now` (zero when it may now): Retry-After.
  Clock::Duration retry_after(std::string_view address, Clock::TimePoint now) const;

  std::size_t tracked() const { return buckets_.size(); }

 private:
  struct Bucket {
    Clock::Duration credit{};  // tokens as time: burst * refill_every when full
    Clock::TimePoint at{};
  };
  Clock::Duration full() const { return config_.refill_every * config_.burst; }
  Clock::Duration credit_at(const Bucket& b, Clock::TimePoint now) const;
  const Bucket* find(std::string_view address) const;
  Bucket& bucket_for(std::string_view address, Clock::TimePoint now);

  LimiterConfig config_;
  std::unordered_map<std::string, Bucket> buckets_;
  Bucket overflow_{};
  bool overflow_used_ = false;
};

}  // namespace ibsm::rest
