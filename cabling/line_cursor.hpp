// A cursor over one line of a topology file: the small lexer both readers share.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ibsm::cabling {

class LineCursor {
 public:
  explicit LineCursor(std::string_view line) : s_(line) {}

  void skip_blanks() {
    while (!s_.empty() && (s_.front() == ' ' || s_.front() == '\t' || s_.front() == '\r'))
      s_.remove_prefix(1);
  }
  bool done() {
    skip_blanks();
    return s_.empty();
  }
  bool peek(char c) const { return !s_.empty() && s_.front() == c; }
  bool eat(char c) {
    if (!peek(c)) return false;
    s_.remove_prefix(1);
    return true;
  }
  // The next blank-separated word.
  std::string_view word() {
    skip_blanks();
    std::size_t n = 0;
    while (n < s_.size() && s_[n] != ' ' && s_[n] != '\t' && s_[n] != '\r')
      ++n;
    const auto w = s_.substr(0, n);
    s_.remove_prefix(n);
    return w;
  }
  // "text": the text without quotes; nullopt when no quoted string starts here.
  std::optional<std::string_view> quoted() {
    skip_blanks();
    if (!peek('"')) return std::nullopt;
    const auto end = s_.find('"', 1);
    if (end == std::string_view::npos) return std::nullopt;
    const auto q = s_.substr(1, end - 1);
    s_.remove_prefix(end + 1);
    return q;
  }
  // Text up to (not including) `c`; nullopt when `c` does not follow.
  std::optional<std::string_view> until(char c) {
    const auto end = s_.find(c);
    if (end == std::string_view::npos) return std::nullopt;
    const auto t = s_.substr(0, end);
    s_.remove_prefix(end + 1);
    return t;
  }
  std::string_view rest() const { return s_; }

 private:
  std::string_view s_;
};

// Decimal digits only, at most `max`; nullopt otherwise.
inline std::optional<unsigned> parse_decimal(std::string_view t, unsigned max) {
  if (t.empty() || t.size() > 9) return std::nullopt;
  unsigned v = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (v > max) return std::nullopt;
  return v;
}

// 1-16 hex digits, "0x" optional; nullopt otherwise.
inline std::optional<std::uint64_t> parse_hex_guid(std::string_view t) {
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  if (t.empty() || t.size() > 16) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : t) {
    unsigned d = 0;
    if (c >= '0' && c <= '9')
      d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A' + 10);
    else
      return std::nullopt;
    v = (v << 4) | d;
  }
  return v;
}

}  // namespace ibsm::cabling
