#include "conf/qos_values.hpp"

#include <optional>

#include "common/text.hpp"
#include "conf/errors.hpp"

namespace ibsm::conf {
namespace {

// A whole unsigned C literal (strtoul base 0, as OpenSM reads these lists).
std::optional<unsigned long> qos_number(std::string_view s) {
  s = trim(s);
  unsigned base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  if (s.empty() || s.size() > 8) return std::nullopt;
  unsigned long v = 0;
  for (char c : s) {
    unsigned d = 99;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    if (c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
    if (d >= base) return std::nullopt;
    v = v * base + d;
  }
  return v;
}

// The comma-separated items of a list; one trailing comma is dropped.
std::vector<std::string_view> items(std::string_view text) {
  std::vector<std::string_view> out;
  text = trim(text);
  if (text.ends_with(',')) text.remove_suffix(1);
  while (true) {
    const auto comma = text.find(',');
    out.push_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

std::string nth(std::size_t i) {
  return "entry " + std::to_string(i + 1);
}

}  // namespace

Result<std::vector<VlArbEntry>> parse_vlarb_list(std::string_view text) {
  std::vector<VlArbEntry> out;
  const auto list = items(text);
  if (list.size() > kMaxVlArbEntries)
    return fail(kBadValue, std::to_string(list.size()) + " entries, at most " +
                               std::to_string(kMaxVlArbEntries) +
                               " fit (two blocks of 32, IBA 14.2.5.9)");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string_view item = trim(list[i]);
    if (item.empty()) return fail(kBadValue, nth(i) + " is empty");
    const auto colon = item.find(':');
    if (colon == std::string_view::npos)
      return fail(kBadValue, nth(i) + " '" + std::string(item) + "' is not VL:weight");
    const auto vl = qos_number(item.substr(0, colon));
    const auto weight = qos_number(item.substr(colon + 1));
    if (!vl || !weight)
      return fail(kBadValue, nth(i) + " '" + std::string(item) + "' is not two numbers VL:weight");
    if (*vl > 14)
      return fail(kBadValue, nth(i) + ": VL " + std::to_string(*vl) + " is not a data VL (0-14)");
    if (*weight > 255)
      return fail(kBadValue, nth(i) + ": weight " + std::to_string(*weight) + " is above 255");
    out.push_back({static_cast<std::uint8_t>(*vl), static_cast<std::uint8_t>(*weight)});
  }
  return out;
}

Result<std::array<std::uint8_t, 16>> parse_sl2vl_list(std::string_view text) {
  std::array<std::uint8_t, 16> out{};
  const auto list = items(text);
  if (list.size() != out.size())
    return fail(kBadValue,
                std::to_string(list.size()) + " VLs listed, one per SL 0-15 (16) needed");
  for (std::size_t sl = 0; sl < list.size(); ++sl) {
    const auto vl = qos_number(list[sl]);
    if (!vl)
      return fail(kBadValue, "SL " + std::to_string(sl) + ": '" + std::string(trim(list[sl])) +
                                 "' is not a number");
    if (*vl > 15)
      return fail(kBadValue,
                  "SL " + std::to_string(sl) + ": VL " + std::to_string(*vl) + " is above 15");
    out[sl] = static_cast<std::uint8_t>(*vl);
  }
  return out;
}

const char* check_vlarb_list(std::string_view v) {
  return parse_vlarb_list(v).ok()
             ? nullptr
             : "up to 64 comma-separated VL:weight entries, VL 0-14, weight 0-255";
}

std::string diagnose_vlarb_list(std::string_view v) {
  auto r = parse_vlarb_list(v);
  return r.ok() ? std::string() : r.error().message;
}

const char* check_sl2vl_list(std::string_view v) {
  return parse_sl2vl_list(v).ok() ? nullptr : "16 comma-separated VLs 0-15, the VL of SL 0 first";
}

std::string diagnose_sl2vl_list(std::string_view v) {
  auto r = parse_sl2vl_list(v);
  return r.ok() ? std::string() : r.error().message;
}

}  // namespace ibsm::conf
