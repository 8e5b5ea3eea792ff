// Small scanning helpers shared by the readers of OpenSM's dump files (LFTs, LID matrix).
// They work on string_views of one line and never read past its end, so a truncated or
// binary file can only produce a parse error, never a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "common/text.hpp"
#include "routing/guid_file.hpp"

namespace ibsm::routing::dump_text {

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

using ibsm::trim;

inline void skip_spaces(std::string_view& s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
}

// Consumes `prefix` if `s` starts with it.
inline bool eat(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// Consumes the digits of an unsigned number in `base` (10 or 16, no prefix). Fails on no
// digit or on a value above `max` (the digits are consumed either way).
bool eat_number(std::string_view& s, unsigned base, std::uint64_t max, std::uint64_t& out);

// A number written as "0x<hex>" or as decimal (OpenSM writes LFT ranges in decimal,
// ibroute in hex).
bool eat_dec_or_hex(std::string_view& s, std::uint64_t max, std::uint64_t& out);

// Calls fn(line_number, line) for every line of `text` (1-based, line without its '\n').
// fn returns false to stop early.
template <class Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!fn(++line_no, line)) return;
  }
}

// "path:line: what", the location style of every dump reader error.
std::string at(std::string_view path, std::size_t line, std::string_view what);

// The start of an offending line for messages, printable and at most 40 characters.
std::string excerpt(std::string_view line);

using ibsm::hex_guid;  // common/text.hpp

}  // namespace ibsm::routing::dump_text
