// Reading what a command printed (dcb, ibping, ibv_rc_pingpong): its verdict is on
// its last line.
#pragma once

#include <string>

namespace ibsm::agent {

// The last non-blank line of `out`, without its line end.
inline std::string last_line(const std::string& out) {
  std::string t = out;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
    t.pop_back();
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace ibsm::agent
