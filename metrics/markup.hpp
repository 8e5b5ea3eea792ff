// Text into HTML and SVG: what the status page writes of the fabric (node
// descriptions come off the wire and may hold anything) is escaped, and numbers are
// written without a locale or a format string.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace ibsm::metrics::markup {

inline void escaped(std::string& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters have no business in a name: a blank.
        out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
  }
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
