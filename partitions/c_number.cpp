#include "partitions/c_number.hpp"

#include <limits>

namespace ibsm::partitions {
namespace {

bool is_c_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

}  // namespace

std::optional<CNumber> parse_c_number(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && is_c_space(text[i]))
    ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  unsigned base = 10;
  if (i < text.size() && text[i] == '0') {
    if (i + 2 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X') &&
        digit_value(text[i + 2]) < 16) {
      base = 16;
      i += 2;
    } else {
      base = 8;
    }
  }
  const std::size_t digits_start = i;
  std::uint64_t value = 0;
  bool overflow = false;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  while (i < text.size()) {
    const int d = digit_value(text[i]);
    if (d >= static_cast<int>(base)) break;
    if (value > (kMax - static_cast<unsigned>(d)) / base) overflow = true;
    value = value * base + static_cast<unsigned>(d);
    ++i;
  }
  if (i == digits_start) return std::nullopt;
  if (overflow) {
    value = kMax;
  } else if (negative) {
    value = ~value + 1;  // strtoul negates in the unsigned type
  }
  return CNumber{value, i};
}

std::optional<std::uint64_t> parse_c_number_exact(std::string_view text) {
  auto n = parse_c_number(text);
  if (!n || n->consumed != text.size()) return std::nullopt;
  return n->value;
}

std::uint64_t c_number_prefix(std::string_view text) {
  auto n = parse_c_number(text);
  return n ? n->value : 0;
}

}  // namespace ibsm::partitions
