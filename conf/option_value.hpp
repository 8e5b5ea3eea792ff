// Reading and writing one option value in OpenSM's text form.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "conf/option_table.hpp"

namespace ibsm::conf {

// How an integer value text is read.
enum class IntBase { kAuto, kHex };  // kAuto: strtoul base 0 (0x hex, 0 octal); kHex: base 16

// Sets the row's field from `text` as opensm.conf does: booleans are true only
// for the literal TRUE; integers are C base-0 literals that must be whole and in
// range; "(null)" clears a string. On success returns a note for the operator
// (empty if none), e.g. when "true" is read as FALSE. On failure the Error
// (kBadValue) says what is wrong and what is allowed, without the location.
// A whole unsigned C integer literal (strtoul base 0: 0x hex, 0 octal, else decimal),
// nothing before or after it; nullopt otherwise or beyond 64 bits.
std::optional<std::uint64_t> parse_c_integer(std::string_view text);

Result<std::string> set_value(const OptionRow& row, Options& o, std::string_view text,
                              IntBase base = IntBase::kAuto);

// The field's value as OpenSM writes it (TRUE, 0x12, (null), ...).
std::string format_value(const OptionRow& row, const Options& o);

// The default as OpenSM writes it.
std::string format_default(const OptionRow& row);

bool is_default(const OptionRow& row, const Options& o);

// What the row accepts: "0-15", "TRUE or FALSE", "both, in, out or off", ...
std::string allowed_values(const OptionRow& row);

}  // namespace ibsm::conf
