// C integer literals (c_number.hpp): strtoul's reading, overflow reported.
#include "common/c_number.hpp"

#include <limits>

namespace ibsm {
namespace {

bool is_c_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// The digit's value in bases up to 16; 16 for anything else.
unsigned c_digit(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<unsigned>(c - 'A' + 10);
  return 16;
}

}  // namespace

Result<CNumber, CNumberError> scan_c_number(std::string_view text, CNumberSyntax syntax) {
  std::size_t i = 0;
  if (syntax.leading_space) {
    while (i < text.size() && is_c_blank(text[i]))
      ++i;
  }
  CNumber n;
  if (syntax.sign && i < text.size() && (text[i] == '+' || text[i] == '-')) {
    n.negative = text[i] == '-';
    ++i;
  }
  unsigned base = syntax.base16 ? 16 : 10;
  const bool hex_prefix = i + 2 < text.size() && text[i] == '0' &&
                          (text[i + 1] == 'x' || text[i + 1] == 'X') && c_digit(text[i + 2]) < 16;
  if (hex_prefix) {
    base = 16;
    i += 2;
  } else if (!syntax.base16 && i < text.size() && text[i] == '0') {
    base = 8;  // the '0' itself is read as an octal digit
  }
  const std::size_t digits = i;
  bool overflow = false;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  for (; i < text.size(); ++i) {
    const unsigned d = c_digit(text[i]);
    if (d >= base) break;
    if (n.magnitude > (kMax - d) / base) overflow = true;
    n.magnitude = n.magnitude * base + d;
  }
  if (i == digits) return fail(CNumberError{CNumberFault::kNoDigits, 0});
  if (overflow) return fail(CNumberError{CNumberFault::kOverflow, i});
  n.consumed = i;
  return n;
}

Result<CNumber, CNumberError> parse_c_number(std::string_view text, CNumberSyntax syntax) {
  auto n = scan_c_number(text, syntax);
  if (n && n->consumed != text.size())
    return fail(CNumberError{CNumberFault::kTrailing, n->consumed});
  return n;
}

}  // namespace ibsm
