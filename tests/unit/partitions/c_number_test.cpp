#include "partitions/c_number.hpp"

#include <gtest/gtest.h>

namespace ibsm::partitions {
namespace {

TEST(CNumber, ReadsHexOctalDecimalLikeStrtoul) {
  EXPECT_EQ(parse_c_number_exact("0x7fff"), 0x7fffu);
  EXPECT_EQ(parse_c_number_exact("0X1F"), 0x1fu);
  EXPECT_EQ(parse_c_number_exact("017"), 15u);
  EXPECT_EQ(parse_c_number_exact("15"), 15u);
  EXPECT_EQ(parse_c_number_exact("0"), 0u);
}

TEST(CNumber, RejectsTrailingJunkWhenExact) {
  EXPECT_FALSE(parse_c_number_exact("08"));  // octal stops at 8
  EXPECT_FALSE(parse_c_number_exact("123abc"));
  EXPECT_FALSE(parse_c_number_exact(""));
  EXPECT_FALSE(parse_c_number_exact("x"));
}

TEST(CNumber, PrefixIsWhatStrtoulReturns) {
  EXPECT_EQ(c_number_prefix("4096"), 4096u);
  EXPECT_EQ(c_number_prefix("10Gb"), 10u);
  EXPECT_EQ(c_number_prefix("abc"), 0u);
  EXPECT_EQ(c_number_prefix("0x"), 0u);  // "0" then 'x'
  EXPECT_EQ(c_number_prefix(" -1x"), ~0ull);
}

TEST(CNumber, NegativeWrapsAndOverflowSaturates) {
  EXPECT_EQ(parse_c_number_exact("-1"), ~0ull);
  EXPECT_EQ(parse_c_number_exact("0x1ffffffffffffffff"), ~0ull);
}

}  // namespace
}  // namespace ibsm::partitions
