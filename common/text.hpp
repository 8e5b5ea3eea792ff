// Text helpers shared by the readers of admin files (opensm.conf, QoS lists, GUID
// files, dumps, partitions.conf units).
#pragma once

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

}  // namespace ibsm
