// Text helpers shared by the readers of admin files (opensm.conf, QoS lists, GUID
// files, dumps, partitions.conf units).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace ibsm {

// `s` without leading and trailing white space (the C locale's: space, \t, \n, \v,
// \f, \r).
constexpr std::string_view trim(std::string_view s) {
  constexpr std::string_view kBlank = " \t\n\v\f\r";
  const auto b = s.find_first_not_of(kBlank);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kBlank) - b + 1);
}

// Equal but for ASCII letter case: the keywords of OpenSM's files.
constexpr bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// A GUID or other 64-bit identifier as OpenSM's logs, dumps and files print it: 0x and
// 16 hex digits ("0x0002c90300a1b2c3").
inline std::string hex_guid(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace ibsm
