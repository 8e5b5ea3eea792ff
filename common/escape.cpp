#include "common/escape.hpp"

#include "common/display_text.hpp"

namespace ibsm::text {

namespace {

// Calls f(cp) for each code point of `v`, U+FFFD for each byte that is not valid UTF-8.
template <class F>
void each_code_point(std::string_view v, F&& f) {
  for (std::size_t i = 0; i < v.size();) {
    const char32_t cp = next_code_point(v, i);
    f(cp == kBadSequence ? kReplacement : cp);
  }
}

void append_hex4(std::string& out, char32_t cp) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4)
    out += kHex[(cp >> shift) & 0xF];
}

}  // namespace

void append_prometheus_label(std::string& out, std::string_view v) {
  each_code_point(v, [&](char32_t cp) {
    switch (cp) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        append_utf8(out, display_code_point(cp));
    }
  });
}

std::string prometheus_label(std::string_view v) {
  std::string r;
  r.reserve(v.size());
  append_prometheus_label(r, v);
  return r;
}

void append_markup(std::string& out, std::string_view v) {
  each_code_point(v, [&](char32_t cp) {
    switch (cp) {
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
        append_utf8(out, display_code_point(cp));
    }
  });
}

void append_json_string(std::string& out, std::string_view v) {
  out += '"';
  each_code_point(v, [&](char32_t cp) {
    switch (cp) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029)
          append_hex4(out, cp);
        else
          append_utf8(out, cp);
    }
  });
  out += '"';
}

}  // namespace ibsm::text
