#include "routing/guid_file.hpp"

#include <cctype>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <string>

#include "common/text.hpp"
#include "routing/errors.hpp"

namespace ibsm::routing {

namespace {

// "0x" followed by 1..16 hex digits.
bool parse_guid(std::string_view s, std::uint64_t& out) {
  if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
  std::uint64_t v = 0;
  for (char c : s.substr(2)) {
    const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                  : c >= 'a' && c <= 'f'                      ? c - 'a' + 10
                  : c >= 'A' && c <= 'F'                      ? c - 'A' + 10
                                                              : -1;
    if (d < 0) return false;
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  out = v;
  return true;
}

// The id column of ids_guid_file: decimal, or hex with 0x.
bool parse_id(std::string_view s, std::uint64_t& out) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return parse_guid(s, out);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && end == s.data() + s.size();
}

}  // namespace

GuidFile parse_guid_file(std::string_view text, std::string_view file_name, ErrorId bad_line,
                         bool with_ids) {
  GuidFile out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    ++line_no;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    std::size_t space = 0;
    while (space < line.size() && !std::isspace(static_cast<unsigned char>(line[space])))
      ++space;
    const std::string_view first = line.substr(0, space);
    const std::string_view rest = trim(line.substr(space));
    const auto where =
        std::string(file_name) + ":" + std::to_string(line_no) + ": '" + std::string(line) + "' ";
    std::uint64_t guid = 0;
    if (!parse_guid(first, guid) || guid == 0) {
      out.warnings.push_back({bad_line, where + "is not a GUID (0x + hex); line skipped"});
      continue;
    }
    if (with_ids) {
      std::uint64_t id = 0;
      if (!parse_id(rest, id)) {
        out.warnings.push_back(
            {bad_line, where + "has no id after the GUID (decimal or 0x hex); line skipped"});
        continue;
      }
      out.ids.emplace_back(guid, id);
    }
    out.guids.push_back(guid);
  }
  return out;
}

RootGuids parse_root_guids(std::string_view text, std::string_view file_name) {
  return parse_guid_file(text, file_name, kErrRootGuidFile);
}

}  // namespace ibsm::routing
