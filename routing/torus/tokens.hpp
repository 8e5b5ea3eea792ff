// Tokens of the torus engine's files (torus-2QoS.conf, the port order file): runs of
// characters between blanks, as OpenSM's readers split them.
#pragma once

#include <string_view>

namespace ibsm::routing::torus {

// The next token of `s`, which loses it and the blanks before it; empty at the end.
inline std::string_view next_token(std::string_view& s) {
  const std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) {
    s = {};
    return {};
  }
  s.remove_prefix(b);
  const std::size_t e = s.find_first_of(" \t\r");
  const std::string_view tok = s.substr(0, e);
  s.remove_prefix(e == std::string_view::npos ? s.size() : e);
  return tok;
}

}  // namespace ibsm::routing::torus
