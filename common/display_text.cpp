#include "common/display_text.hpp"

namespace ibsm::text {

char32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = at(i);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  std::size_t len = 0;
  char32_t cp = 0;
  // The range of the second byte narrows for E0, ED, F0 and F4 (Table 3-7): that
  // refuses overlong forms, surrogates and values past U+10FFFF.
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    ++i;
    return kBadSequence;
  }
  if (s.size() - i < len) {
    ++i;
    return kBadSequence;
  }
  for (std::size_t k = 1; k < len; ++k) {
    const unsigned char b = at(i + k);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) {
      ++i;
      return kBadSequence;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  i += len;
  return cp;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_hidden_code_point(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
         (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE || cp == kBadSequence;
}

char32_t display_code_point(char32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\v' || cp == '\f' || cp == '\r') return U' ';
  return is_hidden_code_point(cp) ? kReplacement : cp;
}

std::string display_text(std::string_view wire, std::size_t max_bytes) {
  wire = wire.substr(0, wire.find('\0'));
  std::string out;
  out.reserve(wire.size() < max_bytes ? wire.size() : max_bytes);
  std::string one;
  for (std::size_t i = 0; i < wire.size();) {
    one.clear();
    append_utf8(one, display_code_point(next_code_point(wire, i)));
    if (out.size() + one.size() > max_bytes) break;
    out += one;
  }
  return out;
}

bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();)
    if (next_code_point(s, i) == kBadSequence) return false;
  return true;
}

bool is_display_text(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const char32_t cp = next_code_point(s, i);
    if (cp == kBadSequence || cp == 0 || display_code_point(cp) != cp) return false;
  }
  return true;
}

std::string display_name(const std::string* mapped, std::string_view description) {
  if (mapped != nullptr) return *mapped;
  return display_text(description, kNodeNameBytes);
}

}  // namespace ibsm::text
