// C integer literals, read the one way ibsm reads them: as C's strtoul/strtoull do,
// which is how OpenSM reads every number in its files and on its command line ("0x1f"
// hex, "017" octal, "15" decimal). Each reader (partitions.conf, opensm.conf and the
// command line, the QoS policy file) picks which of strtoul's liberties its format
// allows (leading blanks, a sign, base 16) and maps the one error type to the words
// its users have always read. Unlike strtoul, overflow is an error, not a silent
// saturation; a caller that must saturate as OpenSM does says so itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/result.hpp"

namespace ibsm {

struct CNumberSyntax {
  bool leading_space = false;  // C blanks before the number are skipped (strtoul does)
  bool sign = false;           // one '+' or '-' may precede the digits
  bool base16 = false;         // strtoul(..., 16): hex digits, "0x" optional; else base 0
};

struct CNumber {
  std::uint64_t magnitude = 0;  // the digits' value, without the sign
  bool negative = false;        // a '-' was read (CNumberSyntax::sign)
  std::size_t consumed = 0;     // characters read, like strtoul's end pointer

  // strtoul's value: a negative number negated in the unsigned type ("-1" is ~0).
  std::uint64_t wrapped() const { return negative ? ~magnitude + 1 : magnitude; }
};

enum class CNumberFault : std::uint8_t {
  kNoDigits,  // no digit where the number should start (strtoul's end == start)
  kOverflow,  // the digits do not fit in 64 bits
  kTrailing,  // something follows the number (only when the whole text must be one)
};

struct CNumberError {
  CNumberFault fault = CNumberFault::kNoDigits;
  std::size_t at = 0;  // kOverflow, kTrailing: where the digits end
};

// The number at the start of `text`, as far as it goes: "0x" counts as the hex prefix
// only when a hex digit follows it, a leading "0" makes the rest octal and reading
// stops at the first character that is not a digit of the base (as strtoul).
Result<CNumber, CNumberError> scan_c_number(std::string_view text, CNumberSyntax syntax = {});

// The whole text is one number, nothing before or after it (OpenSM's
// "end == text || *end" check): kTrailing when something is left.
Result<CNumber, CNumberError> parse_c_number(std::string_view text, CNumberSyntax syntax = {});

}  // namespace ibsm
