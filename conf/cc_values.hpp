// The text forms of OpenSM's congestion-control keys (cc_sw_cong_setting_*,
// cc_ca_cong_setting_*, cc_cct), parsed and checked here so that a malformed or
// out-of-range value is a configuration error naming the key and the fault (at
// start-up and on SIGHUP, where the whole reload is then refused), never a MAD
// with truncated fields. The layouts they feed are IBA vol. 1 Annex A10
// (sm/cc/cc_layouts.hpp).
//
// Syntax, as OpenSM 3.3.23 reads them (osm_subnet.c; numbers are C literals: 12,
// 0xc, 014):
//   mask:   "0x" and up to 64 hex digits, a 256-bit number (bit n = port n);
//   shift:multiplier: shift 0-3, multiplier 0-16383 (A10.4.3.2/A10.4.3.9: 2 + 14 bits);
//   cc_cct: "shift:multiplier,..." at most 128 entries (OpenSM's OSM_CCT_ENTRY_MAX,
//           two CongestionControlTable blocks), "(null)"/empty = no table;
//   per SL: "<SL> <value>" with SL 0-15. opensm.conf gives one line per SL
//           (OpenSM writes only the SLs that are set), so these keys add up line
//           by line (conf/option_spec.hpp RawMerge); ibsm holds them as a list
//           "SL value,SL value" sorted by SL, zero values left out, "0 0" when
//           all are zero (OpenSM's default line).
// OpenSM silently truncates values that do not fit their fields and drops CCT
// entries past 128; ibsm refuses them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace ibsm::conf {

inline constexpr std::size_t kMaxCctEntries = 128;
inline constexpr std::size_t kCcSls = 16;

struct ShiftMultiplier {
  std::uint8_t shift = 0;        // 0-3
  std::uint16_t multiplier = 0;  // 0-16383
  bool operator==(const ShiftMultiplier&) const = default;
};

// Most significant byte first, as the mask goes on the wire.
Result<std::array<std::uint8_t, 32>> parse_mask256(std::string_view text);
Result<ShiftMultiplier> parse_shift_multiplier(std::string_view text);
Result<std::vector<ShiftMultiplier>> parse_cct_list(std::string_view text);
// Values by SL (0 where not given); `max` bounds each value.
Result<std::array<std::uint32_t, kCcSls>> parse_sl_values(std::string_view text, std::uint32_t max);
// The canonical list form of values by SL (see above).
std::string format_sl_values(const std::array<std::uint32_t, kCcSls>& values);

// The option table's checks and diagnoses (conf/option_spec.hpp).
const char* check_hex_mask256(std::string_view v);
std::string diagnose_hex_mask256(std::string_view v);
const char* check_shift_mult(std::string_view v);
std::string diagnose_shift_mult(std::string_view v);
const char* check_cct_list(std::string_view v);
std::string diagnose_cct_list(std::string_view v);
// "<SL> <value>" lists with 16-bit (ccti_timer) or 8-bit values.
const char* check_sl_values16(std::string_view v);
std::string diagnose_sl_values16(std::string_view v);
const char* check_sl_values8(std::string_view v);
std::string diagnose_sl_values8(std::string_view v);
// RawMerge of the per-SL keys: `line` ("<SL> <value>") set on top of `current`.
// A line that does not parse is returned as it is, for the check to refuse.
std::string merge_sl_values16(std::string_view current, std::string_view line);
std::string merge_sl_values8(std::string_view current, std::string_view line);

}  // namespace ibsm::conf
