#include "partitions/units.hpp"

#include <array>
#include <cctype>

#include "common/text.hpp"
#include "partitions/c_number.hpp"

namespace ibsm::partitions {
namespace {

struct RateRow {
  std::uint8_t enum_value;
  unsigned tenths_gbps;  // 2.5 Gb/s = 25
};

// IBA rate encoding (PathRecord/MCMemberRecord Rate), 2..24.
constexpr std::array<RateRow, 23> kRates{{
    {2, 25},    {3, 100},  {4, 300},  {5, 50},    {6, 200},   {7, 400},   {8, 600},    {9, 800},
    {10, 1200}, {11, 140}, {12, 560}, {13, 1120}, {14, 1680}, {15, 250},  {16, 1000},  {17, 2000},
    {18, 3000}, {19, 280}, {20, 500}, {21, 4000}, {22, 6000}, {23, 8000}, {24, 12000},
}};

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

unsigned mtu_bytes(std::uint8_t mtu_enum) {
  return mtu_enum >= 1 && mtu_enum <= 5 ? 128u << mtu_enum : 0;
}

std::optional<ParsedEnum> parse_mtu(std::string_view text) {
  const std::string t(trim(text));
  const auto n = parse_c_number_exact(t);
  if (!n) return std::nullopt;
  const std::uint64_t opensm = c_number_prefix(text);
  if (*n >= 1 && *n <= 5) return ParsedEnum{static_cast<std::uint8_t>(*n), opensm == *n};
  for (std::uint8_t e = 1; e <= 5; ++e)
    if (mtu_bytes(e) == *n) return ParsedEnum{e, opensm == e};
  return std::nullopt;
}

std::optional<ParsedEnum> parse_rate(std::string_view text) {
  const std::string t(trim(text));
  if (auto n = parse_c_number_exact(t)) {
    if (*n >= 2 && *n <= 24) return ParsedEnum{static_cast<std::uint8_t>(*n), true};
    return std::nullopt;
  }
  // <decimal>[.<digit>] <unit>
  std::size_t i = 0;
  unsigned whole = 0;
  std::size_t digits = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) && digits < 6) {
    whole = whole * 10 + static_cast<unsigned>(t[i] - '0');
    ++i;
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  unsigned tenths = whole * 10;
  if (i < t.size() && t[i] == '.') {
    ++i;
    if (i >= t.size() || !std::isdigit(static_cast<unsigned char>(t[i]))) return std::nullopt;
    tenths += static_cast<unsigned>(t[i] - '0');
    ++i;
  }
  while (i < t.size() && t[i] == ' ')
    ++i;
  const std::string_view unit = std::string_view(t).substr(i);
  if (!(iequals(unit, "Gb") || iequals(unit, "Gb/s") || iequals(unit, "Gbps") ||
        iequals(unit, "G")))
    return std::nullopt;
  for (const auto& row : kRates) {
    if (row.tenths_gbps == tenths)
      return ParsedEnum{row.enum_value, c_number_prefix(text) == row.enum_value};
  }
  return std::nullopt;
}

std::string rate_text(std::uint8_t rate_enum) {
  for (const auto& row : kRates) {
    if (row.enum_value == rate_enum) {
      std::string s = std::to_string(row.tenths_gbps / 10);
      if (row.tenths_gbps % 10) s += "." + std::to_string(row.tenths_gbps % 10);
      return s + " Gb/s";
    }
  }
  return "enum " + std::to_string(rate_enum);
}

std::string mtu_unit_form(std::uint8_t mtu_enum) {
  const unsigned b = mtu_bytes(mtu_enum);
  return b ? std::to_string(b) : std::to_string(mtu_enum);
}

std::string rate_unit_form(std::uint8_t rate_enum) {
  for (const auto& row : kRates) {
    if (row.enum_value == rate_enum) {
      std::string s = std::to_string(row.tenths_gbps / 10);
      if (row.tenths_gbps % 10) s += "." + std::to_string(row.tenths_gbps % 10);
      return s + "Gb";
    }
  }
  return std::to_string(rate_enum);
}

}  // namespace ibsm::partitions
