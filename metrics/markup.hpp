// Text into HTML and SVG: what the status page writes of the fabric (node
// descriptions come off the wire and may hold anything) is escaped by the one markup
// escaper, and numbers are written without a locale or a format string.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/escape.hpp"

namespace ibsm::metrics::markup {

// Text into HTML and SVG/XML 1.0: the one markup escaper (common/escape.hpp).
inline void escaped(std::string& out, std::string_view text) {
  ibsm::text::append_markup(out, text);
}

inline void number(std::string& out, std::uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// Coordinates: whole units are plenty on screen.
inline void coord(std::string& out, double v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, std::lround(v));
  out.append(buf, r.ptr);
}

// "0x" and 16 lowercase hex digits, as ibnetdiscover and the exporter write GUIDs.
inline void guid(std::string& out, std::uint64_t g) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "0x";
  for (int shift = 60; shift >= 0; shift -= 4)
    out += kHex[(g >> shift) & 0xf];
}

}  // namespace ibsm::metrics::markup
