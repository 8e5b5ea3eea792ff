// common/log_limit: the one rate limit of log lines about peers (forged answers,
// refused connections): a burst per interval, the rest counted into the next line.
#include "common/log_limit.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "common/clock.hpp"

namespace ibsm {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(LogLimit, BurstPerIntervalThenCountsTheRest) {
  FakeClock clock;
  LogLimit limit(seconds(1), 3);
  int allowed = 0;
  for (int i = 0; i < 10; ++i)
    allowed += limit.allow(clock.now()) ? 1 : 0;
  EXPECT_EQ(allowed, 3);
  clock.advance(milliseconds(999));
  EXPECT_FALSE(limit.allow(clock.now()));
  clock.advance(milliseconds(1));
  ASSERT_TRUE(limit.allow(clock.now()));
  EXPECT_EQ(limit.suppressed(), 8u);  // 7 in the first second, 1 just before its end
  ASSERT_TRUE(limit.allow(clock.now()));
  EXPECT_EQ(limit.suppressed(), 0u);
}

// A burst of one: the metrics endpoint's "N since the previous such line".
TEST(LogLimit, OneLinePerIntervalNamesTheCountHeldBack) {
  LogLimit limit(seconds(10), 1);
  const Clock::TimePoint t0{seconds(1000)};
  const auto line = [&](Clock::Duration at) -> std::uint64_t {
    return limit.allow(t0 + at) ? limit.suppressed() + 1 : 0;
  };
  EXPECT_EQ(line(seconds(0)), 1u);
  EXPECT_EQ(line(seconds(1)), 0u);
  EXPECT_EQ(line(seconds(9)), 0u);
  EXPECT_EQ(line(seconds(10)), 3u);
  EXPECT_EQ(line(seconds(11)), 0u);
  EXPECT_EQ(line(seconds(30)), 2u);
}

}  // namespace
}  // namespace ibsm
