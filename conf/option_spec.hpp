// The vocabulary of one option row (conf/option_list.hpp): which topic it belongs
// to, how its value is checked and written, whether SIGHUP re-reads it, whether
// ibsm implements it, and which command-line flag sets it.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace ibsm::conf {

// Topic of an option. Drives the TOML section and the headings of a written
// opensm.conf. Order = order of appearance in both. kIbsm holds ibsm's own
// keys and comes last, so a written opensm.conf lists OpenSM's keys in OpenSM's
// order first.
enum class Section : std::uint8_t {
  kDevice,
  kPartitions,
  kSweep,
  kRouting,
  kHandover,
  kTiming,
  kMisc,
  kPerfmgr,
  kEvents,
  kLogging,
  kQos,
  kCongestion,
  kIbsm,  // ibsm extensions: keys OpenSM 3.3.23 does not have, with ibsm's defaults
};
inline constexpr std::array kAllSections = {
    Section::kDevice,   Section::kPartitions, Section::kSweep, Section::kRouting,
    Section::kHandover, Section::kTiming,     Section::kMisc,  Section::kPerfmgr,
    Section::kEvents,   Section::kLogging,    Section::kQos,   Section::kCongestion,
    Section::kIbsm,
};

// Whether the keys of a section are ibsm's own rather than OpenSM's. OpenSM
// 3.3.23 logs "Unrecognized token" for such a key in opensm.conf and reads on,
// so a file holding them still loads in OpenSM; OpenSM's own `-c` dump drops
// them. The OpenSM-parity checks (160 keys, OpenSM's defaults) skip these rows.
constexpr bool is_ibsm_extension(Section s) {
  return s == Section::kIbsm;
}

// TOML table name of a section ("device", "routing", ...).
std::string_view section_name(Section s);
// Heading used in a written opensm.conf ("DEVICE ATTRIBUTES").
std::string_view section_title(Section s);

// Re-read by a running SM on SIGHUP (OpenSM's "can_update"), or restart only
// (the keys marked with a dagger in OpenSM's documentation).
enum class Reload : std::uint8_t { kHup, kRestart };

// Whether ibsm acts on the option yet. An unimplemented option is accepted
// with any valid value, but a non-default value is reported at start-up.
enum class Impl : std::uint8_t { kNo, kYes };

// How a value is parsed, range-checked and written back.
enum class Fmt : std::uint8_t {
  kBool,    // TRUE / FALSE; reading: only the literal TRUE is true (as OpenSM)
  kDec,     // integer, written in decimal
  kHex,     // integer, written 0x%0<width>x
  kText,    // free string; "(null)" = unset = empty
  kChoice,  // one of a fixed list of words
  kRaw,     // string with its own syntax, checked by a function
};

// Checks a raw value; returns nullptr if fine, else a description of the
// accepted syntax.
using RawCheck = const char* (*)(std::string_view value);
// Optionally, what exactly is wrong with a value the check refused ("entry 3: VL 16
// is not a data VL"), for the error message; empty when nothing is.
using RawDiagnose = std::string (*)(std::string_view value);
// For a key opensm.conf may give more than once, each line adding to the value
// (OpenSM's per-SL cc_ca_cong_setting_* keys: "<SL> <value>" per line): the value
// after `line` is read on top of `current`. Such a value is a comma-separated
// list, written back one line per element.
using RawMerge = std::string (*)(std::string_view current, std::string_view line);

struct Spec {
  Fmt fmt = Fmt::kText;
  int width = 0;  // kHex: digits written
  bool ranged = false;
  std::int64_t lo = 0;
  std::uint64_t hi = 0;
  std::array<std::string_view, 5> choices{};
  RawCheck check = nullptr;
  RawDiagnose diagnose = nullptr;
  RawMerge merge = nullptr;  // kRaw: a key whose lines add up (see RawMerge)
};

constexpr Spec flag() {
  return {.fmt = Fmt::kBool};
}
constexpr Spec dec() {
  return {.fmt = Fmt::kDec};
}
constexpr Spec dec(std::int64_t lo, std::uint64_t hi) {
  return {.fmt = Fmt::kDec, .ranged = true, .lo = lo, .hi = hi};
}
constexpr Spec hex(int width) {
  return {.fmt = Fmt::kHex, .width = width};
}
constexpr Spec hex(int width, std::int64_t lo, std::uint64_t hi) {
  return {.fmt = Fmt::kHex, .width = width, .ranged = true, .lo = lo, .hi = hi};
}
constexpr Spec text() {
  return {.fmt = Fmt::kText};
}
constexpr Spec choice(std::string_view a, std::string_view b, std::string_view c = {},
                      std::string_view d = {}, std::string_view e = {}) {
  return {.fmt = Fmt::kChoice, .choices = {a, b, c, d, e}};
}
constexpr Spec raw(RawCheck check, RawDiagnose diagnose = nullptr) {
  return {.fmt = Fmt::kRaw, .check = check, .diagnose = diagnose};
}
constexpr Spec raw_lines(RawCheck check, RawDiagnose diagnose, RawMerge merge) {
  return {.fmt = Fmt::kRaw, .check = check, .diagnose = diagnose, .merge = merge};
}

// What a command-line flag does to its option.
enum class CliKind : std::uint8_t {
  kNone,    // no flag
  kArg,     // takes a value, parsed like the opensm.conf value
  kHexArg,  // takes a value parsed as hexadecimal, "0x" optional (OpenSM -g, -k)
  kSet,     // no value; sets the boolean TRUE
  kClear,   // no value; sets the boolean FALSE
};

struct Cli {
  CliKind kind = CliKind::kNone;
  char short_name = 0;         // 0 = long form only
  std::string_view long_name;  // without dashes
  std::string_view alias;      // second long name, or empty
};

constexpr Cli no_cli() {
  return {};
}
constexpr Cli cli_arg(char s, std::string_view l, std::string_view alias = {}) {
  return {CliKind::kArg, s, l, alias};
}
constexpr Cli cli_hex(char s, std::string_view l) {
  return {CliKind::kHexArg, s, l, {}};
}
constexpr Cli cli_set(char s, std::string_view l) {
  return {CliKind::kSet, s, l, {}};
}
constexpr Cli cli_clear(char s, std::string_view l) {
  return {CliKind::kClear, s, l, {}};
}

}  // namespace ibsm::conf
