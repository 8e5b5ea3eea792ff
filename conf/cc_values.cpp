#include "conf/cc_values.hpp"

#include <optional>

#include "common/text.hpp"
#include "conf/errors.hpp"
#include "conf/option_value.hpp"

namespace ibsm::conf {
namespace {

// A whole unsigned C literal (strtoul base 0, as OpenSM reads these keys), blanks around.
std::optional<std::uint64_t> cc_number(std::string_view s) {
  return parse_c_integer(trim(s));
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

template <class T>
const char* check_with(Result<T> r, const char* syntax) {
  return r.ok() ? nullptr : syntax;
}

template <class T>
std::string diagnose_with(Result<T> r) {
  return r.ok() ? std::string() : r.error().message;
}

constexpr const char* kMaskSyntax = "a 256-bit mask: 0x followed by up to 64 hexadecimal digits";
constexpr const char* kShiftMultSyntax = "shift:multiplier, shift 0-3, multiplier 0-16383";
constexpr const char* kCctSyntax =
    "a comma-separated list of at most 128 shift:multiplier (shift 0-3, multiplier 0-16383), "
    "or (null)";
constexpr const char* kSl16Syntax = "<SL> <value>, SL 0-15, value 0-65535";
constexpr const char* kSl8Syntax = "<SL> <value>, SL 0-15, value 0-255";

// One "<SL> <value>" element.
Result<std::pair<unsigned, std::uint32_t>> sl_value(std::string_view item, std::uint32_t max) {
  item = trim(item);
  const auto blank = item.find_first_of(" \t");
  if (blank == std::string_view::npos)
    return fail(kBadValue, "'" + std::string(item) + "': an SL and a value are needed");
  const auto sl = cc_number(item.substr(0, blank));
  const auto value = cc_number(item.substr(blank));
  if (!sl)
    return fail(kBadValue, "SL '" + std::string(item.substr(0, blank)) + "' is not a number");
  if (*sl >= kCcSls) return fail(kBadValue, "SL " + std::to_string(*sl) + " is not 0-15");
  if (!value)
    return fail(kBadValue, "value '" + std::string(trim(item.substr(blank))) + "' is not a number");
  if (*value > max)
    return fail(kBadValue, "value " + std::to_string(*value) + " of SL " + std::to_string(*sl) +
                               " is above " + std::to_string(max));
  return std::pair{static_cast<unsigned>(*sl), static_cast<std::uint32_t>(*value)};
}

std::string merge_sl(std::string_view current, std::string_view line, std::uint32_t max) {
  auto now = parse_sl_values(current, max);
  auto add = sl_value(line, max);
  if (!now.ok() || !add.ok()) return std::string(line);
  (*now)[add->first] = add->second;
  return format_sl_values(*now);
}

}  // namespace

Result<std::array<std::uint8_t, 32>> parse_mask256(std::string_view text) {
  std::string_view v = trim(text);
  if (v.starts_with("0x") || v.starts_with("0X")) v.remove_prefix(2);
  if (v.empty()) return fail(kBadValue, "no hexadecimal digits");
  if (v.size() > 64)
    return fail(kBadValue, std::to_string(v.size()) + " hexadecimal digits, at most 64 (256 bits)");
  std::array<std::uint8_t, 32> out{};
  // The last digit is bits 0-3: fill from the end.
  for (std::size_t i = 0; i < v.size(); ++i) {
    const char c = v[v.size() - 1 - i];
    const int d = hex_digit(c);
    if (d < 0) return fail(kBadValue, std::string("'") + c + "' is not a hexadecimal digit");
    out[31 - i / 2] |= static_cast<std::uint8_t>(d << (4 * (i % 2)));
  }
  return out;
}

Result<ShiftMultiplier> parse_shift_multiplier(std::string_view text) {
  text = trim(text);
  const auto colon = text.find(':');
  if (colon == std::string_view::npos)
    return fail(kBadValue, "'" + std::string(text) + "' has no ':' between shift and multiplier");
  const auto shift = cc_number(text.substr(0, colon));
  const auto mult = cc_number(text.substr(colon + 1));
  if (!shift || !mult) return fail(kBadValue, "'" + std::string(text) + "': not two numbers");
  if (*shift > 3) return fail(kBadValue, "shift " + std::to_string(*shift) + " is not 0-3");
  if (*mult > 16383)
    return fail(kBadValue, "multiplier " + std::to_string(*mult) + " is above 16383 (14 bits)");
  return ShiftMultiplier{static_cast<std::uint8_t>(*shift), static_cast<std::uint16_t>(*mult)};
}

Result<std::vector<ShiftMultiplier>> parse_cct_list(std::string_view text) {
  std::vector<ShiftMultiplier> out;
  text = trim(text);
  if (text.empty() || text == "(null)") return out;
  std::size_t n = 0;
  while (true) {
    const auto comma = text.find(',');
    auto entry = parse_shift_multiplier(text.substr(0, comma));
    if (!entry.ok())
      return fail(kBadValue, "entry " + std::to_string(n + 1) + ": " + entry.error().message);
    out.push_back(*entry);
    ++n;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (out.size() > kMaxCctEntries)
    return fail(kBadValue,
                std::to_string(out.size()) + " entries, at most " + std::to_string(kMaxCctEntries));
  return out;
}

Result<std::array<std::uint32_t, kCcSls>> parse_sl_values(std::string_view text,
                                                          std::uint32_t max) {
  std::array<std::uint32_t, kCcSls> out{};
  text = trim(text);
  if (text.empty()) return out;
  while (true) {
    const auto comma = text.find(',');
    auto e = sl_value(text.substr(0, comma), max);
    if (!e.ok()) return fail(e.error());
    out[e->first] = e->second;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

std::string format_sl_values(const std::array<std::uint32_t, kCcSls>& values) {
  std::string out;
  for (std::size_t sl = 0; sl < values.size(); ++sl) {
    if (values[sl] == 0) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(sl) + " " + std::to_string(values[sl]);
  }
  return out.empty() ? "0 0" : out;
}

const char* check_hex_mask256(std::string_view v) {
  return check_with(parse_mask256(v), kMaskSyntax);
}
std::string diagnose_hex_mask256(std::string_view v) {
  return diagnose_with(parse_mask256(v));
}
const char* check_shift_mult(std::string_view v) {
  return check_with(parse_shift_multiplier(v), kShiftMultSyntax);
}
std::string diagnose_shift_mult(std::string_view v) {
  return diagnose_with(parse_shift_multiplier(v));
}
const char* check_cct_list(std::string_view v) {
  return check_with(parse_cct_list(v), kCctSyntax);
}
std::string diagnose_cct_list(std::string_view v) {
  return diagnose_with(parse_cct_list(v));
}
const char* check_sl_values16(std::string_view v) {
  return check_with(parse_sl_values(v, 0xffff), kSl16Syntax);
}
std::string diagnose_sl_values16(std::string_view v) {
  return diagnose_with(parse_sl_values(v, 0xffff));
}
const char* check_sl_values8(std::string_view v) {
  return check_with(parse_sl_values(v, 0xff), kSl8Syntax);
}
std::string diagnose_sl_values8(std::string_view v) {
  return diagnose_with(parse_sl_values(v, 0xff));
}
std::string merge_sl_values16(std::string_view current, std::string_view line) {
  return merge_sl(current, line, 0xffff);
}
std::string merge_sl_values8(std::string_view current, std::string_view line) {
  return merge_sl(current, line, 0xff);
}

}  // namespace ibsm::conf
