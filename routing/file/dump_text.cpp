#include "routing/file/dump_text.hpp"

namespace ibsm::routing::dump_text {

bool eat_number(std::string_view& s, unsigned base, std::uint64_t max, std::uint64_t& out) {
  std::uint64_t v = 0;
  std::size_t n = 0;
  bool overflow = false;
  for (; n < s.size(); ++n) {
    const char c = s[n];
    unsigned d = 0;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      d = static_cast<unsigned>(c - 'a' + 10);
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      d = static_cast<unsigned>(c - 'A' + 10);
    } else {
      break;
    }
    if (d > max || v > (max - d) / base) overflow = true;  // v * base + d would exceed max
    if (!overflow) v = v * base + d;
  }
  s.remove_prefix(n);
  if (n == 0 || overflow) return false;
  out = v;
  return true;
}

bool eat_dec_or_hex(std::string_view& s, std::uint64_t max, std::uint64_t& out) {
  if (eat(s, "0x") || eat(s, "0X")) return eat_number(s, 16, max, out);
  return eat_number(s, 10, max, out);
}

std::string at(std::string_view path, std::size_t line, std::string_view what) {
  std::string s(path);
  s += ':';
  s += std::to_string(line);
  s += ": ";
  s += what;
  return s;
}

std::string excerpt(std::string_view line) {
  std::string s;
  for (char c : trim(line).substr(0, 40))
    s += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (trim(line).size() > 40) s += "...";
  return "'" + s + "'";
}

}  // namespace ibsm::routing::dump_text
