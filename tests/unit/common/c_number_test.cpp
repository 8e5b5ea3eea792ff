// common/c_number.hpp: the one reader of C integer literals. Its strtoul-like syntax
// is checked against the C library's own strtoull on many generated texts.
#include "common/c_number.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <random>
#include <string>

namespace ibsm {
namespace {

std::uint64_t value_of(std::string_view text, CNumberSyntax syntax = {}) {
  auto n = parse_c_number(text, syntax);
  EXPECT_TRUE(n.ok()) << text;
  return n ? n->wrapped() : 0;
}

CNumberFault fault_of(std::string_view text, CNumberSyntax syntax = {}) {
  auto n = parse_c_number(text, syntax);
  EXPECT_FALSE(n.ok()) << text;
  return n ? CNumberFault::kNoDigits : n.error().fault;
}

TEST(CNumber, ReadsHexOctalAndDecimal) {
  EXPECT_EQ(value_of("0x7fff"), 0x7fffu);
  EXPECT_EQ(value_of("0X1F"), 0x1fu);
  EXPECT_EQ(value_of("017"), 15u);
  EXPECT_EQ(value_of("15"), 15u);
  EXPECT_EQ(value_of("0"), 0u);
  EXPECT_EQ(value_of("0xffffffffffffffff"), ~0ull);
  EXPECT_EQ(value_of("18446744073709551615"), ~0ull);
}

TEST(CNumber, TrailingJunkIsAnErrorThatSaysWhereTheNumberEnds) {
  for (std::string_view t : {"08", "123abc", "0x", "0xg", "1 "}) {
    auto n = parse_c_number(t);
    ASSERT_FALSE(n.ok()) << t;
    EXPECT_EQ(n.error().fault, CNumberFault::kTrailing) << t;
  }
  EXPECT_EQ(parse_c_number("123abc").error().at, 3u);
  EXPECT_EQ(parse_c_number("0x").error().at, 1u);  // "0", then 'x' that no hex digit follows
}

TEST(CNumber, NoDigitsIsAnError) {
  EXPECT_EQ(fault_of(""), CNumberFault::kNoDigits);
  EXPECT_EQ(fault_of("x"), CNumberFault::kNoDigits);
  EXPECT_EQ(fault_of(" 1"), CNumberFault::kNoDigits);  // no blanks unless allowed
  EXPECT_EQ(fault_of("-1"), CNumberFault::kNoDigits);  // no sign unless allowed
  EXPECT_EQ(fault_of("+1"), CNumberFault::kNoDigits);
}

TEST(CNumber, OverflowIsAnErrorNotASaturation) {
  EXPECT_EQ(fault_of("0x1ffffffffffffffff"), CNumberFault::kOverflow);
  EXPECT_EQ(fault_of("18446744073709551616"), CNumberFault::kOverflow);
  EXPECT_EQ(fault_of("02000000000000000000000"), CNumberFault::kOverflow);
  auto n = scan_c_number("99999999999999999999 rest");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().at, 20u);
}

TEST(CNumber, ScanReadsOnlyTheLeadingNumber) {
  auto n = scan_c_number("10Gb");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->magnitude, 10u);
  EXPECT_EQ(n->consumed, 2u);
  n = scan_c_number("0x");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->magnitude, 0u);
  EXPECT_EQ(n->consumed, 1u);
}

TEST(CNumber, SignAndBlanksWhenTheSyntaxAllowsThem) {
  const CNumberSyntax strtoul{.leading_space = true, .sign = true};
  auto n = parse_c_number(" \t-0x10", strtoul);
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(n->negative);
  EXPECT_EQ(n->magnitude, 16u);
  EXPECT_EQ(n->wrapped(), ~0ull - 15);
  EXPECT_EQ(value_of("+7", strtoul), 7u);
  EXPECT_EQ(fault_of("- 7", strtoul), CNumberFault::kNoDigits);
}

TEST(CNumber, Base16TakesHexDigitsWithOrWithoutThePrefix) {
  const CNumberSyntax hex{.base16 = true};
  EXPECT_EQ(value_of("ff", hex), 0xffu);
  EXPECT_EQ(value_of("0xff", hex), 0xffu);
  EXPECT_EQ(value_of("010", hex), 0x10u);  // no octal in base 16
  EXPECT_EQ(fault_of("0x", hex), CNumberFault::kTrailing);
}

// The same texts through strtoull: the same value, the same end, and overflow where
// strtoull reports ERANGE. The alphabet leaves out 'b': newer C libraries read "0b"
// as a binary prefix (C23), which OpenSM's numbers never had.
TEST(CNumber, AgreesWithStrtoull) {
  // Mixed texts, and runs of digits long enough to overflow.
  const std::string mixed = "0000111789aAfFxXgz -+\t", digits = "0123456789acdefACDEF";
  std::mt19937 rng(34);
  std::uniform_int_distribution<std::size_t> len(0, 30);
  int compared = 0;
  for (int round = 0; round < 50000; ++round) {
    const std::string& alphabet = round % 2 == 0 ? mixed : digits;
    std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
    std::string text = round % 4 == 1 ? "-0x" : "";
    for (std::size_t k = len(rng); k > 0; --k)
      text += alphabet[pick(rng)];
    for (const bool base16 : {false, true}) {
      const CNumberSyntax syntax{.leading_space = true, .sign = true, .base16 = base16};
      errno = 0;
      char* end = nullptr;
      const unsigned long long want = std::strtoull(text.c_str(), &end, base16 ? 16 : 0);
      const auto want_end = static_cast<std::size_t>(end - text.c_str());
      const auto got = scan_c_number(text, syntax);
      if (errno == ERANGE) {
        ASSERT_FALSE(got.ok()) << text;
        EXPECT_EQ(got.error().fault, CNumberFault::kOverflow) << text;
        EXPECT_EQ(got.error().at, want_end) << text;
      } else if (want_end == 0) {
        ASSERT_FALSE(got.ok()) << text;
        EXPECT_EQ(got.error().fault, CNumberFault::kNoDigits) << text;
      } else {
        ASSERT_TRUE(got.ok()) << text;
        EXPECT_EQ(got->wrapped(), want) << text;
        EXPECT_EQ(got->consumed, want_end) << text;
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 100000);
}

}  // namespace
}  // namespace ibsm
