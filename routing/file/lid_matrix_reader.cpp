#include "routing/file/lid_matrix_reader.hpp"

#include <optional>
#include <string>
#include <unordered_map>

#include "routing/errors.hpp"
#include "routing/file/dump_text.hpp"
#include "routing/lid_owners.hpp"

namespace ibsm::routing {
namespace {

using namespace dump_text;

// At most 255 external ports plus port 0 (IBA 14.2.5.3: NumPorts is one byte).
constexpr std::size_t kMaxColumns = 256;

// "Switch: guid 0x<hex>" (OpenSM's reader only looks for "Switch" and " guid 0x").
std::optional<std::string> parse_header(std::string_view s, std::uint64_t& guid) {
  const std::size_t g = s.find(" guid 0x");
  if (g == std::string_view::npos) return "no ' guid 0x<guid>' in the switch header";
  s.remove_prefix(g + 8);
  if (!eat_number(s, 16, UINT64_MAX, guid) || !trim(s).empty()) return "bad switch GUID";
  return std::nullopt;
}

// "0x<lid>: <hh> <hh> ... [# portguid 0x<guid>]"
std::optional<std::string> parse_row(std::string_view s, LidMatrixRow& row) {
  std::uint64_t v = 0;
  if (!eat(s, "0x") || !eat_number(s, 16, UINT64_MAX, v)) return "bad LID";
  if (v > kMaxUnicastLid) return "LID above the unicast range 0xBFFF";
  row.lid = static_cast<Lid>(v);
  if (!eat(s, ":")) return "expected ':' after the LID";
  skip_spaces(s);
  while (!s.empty() && s.front() != '#') {
    if (row.hops.size() == kMaxColumns) return "more than 256 port columns";
    if (!eat_number(s, 16, UINT64_MAX, v)) return "bad hop count";
    if (v > 0xff) return "hop count above 0xff";
    if (!s.empty() && !is_space(s.front()) && s.front() != '#')
      return "expected a blank after a hop count";
    row.hops.push_back(static_cast<std::uint8_t>(v));
    skip_spaces(s);
  }
  if (row.hops.empty()) return "no hop counts";
  // The comment is informational (OpenSM's reader also tolerates a broken one).
  if (eat(s, "#")) {
    skip_spaces(s);
    if (eat(s, "portguid 0x") && eat_number(s, 16, UINT64_MAX, v)) row.port_guid = v;
  }
  return std::nullopt;
}

}  // namespace

Result<LidMatrix> parse_lid_matrix(std::string_view text, std::string_view path) {
  LidMatrix m;
  std::unordered_map<std::uint64_t, std::size_t> header_line;
  std::vector<bool> seen;  // LIDs of the current switch
  std::optional<Error> error;
  std::size_t last_line = 0;
  auto failed = [&](std::size_t line, std::string_view what) {
    error = Error{kErrLidMatrixSyntax, at(path, line, what)};
    return false;
  };
  auto close_ok = [&](std::size_t line) {
    if (m.switches.empty() || !m.switches.back().rows.empty()) return true;
    return failed(line,
                  "the switch of line " + std::to_string(m.switches.back().line) + " has no rows");
  };

  for_each_line(text, [&](std::size_t line_no, std::string_view raw) {
    last_line = line_no;
    const std::string_view s = trim(raw);
    if (s.empty() || s.front() == '#') return true;
    if (s.starts_with("Switch")) {
      if (!close_ok(line_no)) return false;
      LidMatrixSwitch sw;
      sw.line = line_no;
      if (auto why = parse_header(s, sw.guid)) return failed(line_no, *why + ": " + excerpt(s));
      if (auto [it, fresh] = header_line.emplace(sw.guid, line_no); !fresh)
        return failed(line_no, "switch " + hex_guid(sw.guid) + " already listed at line " +
                                   std::to_string(it->second));
      m.switches.push_back(std::move(sw));
      seen.assign(std::size_t{kMaxUnicastLid} + 1, false);
      return true;
    }
    if (s.starts_with("0x")) {
      if (m.switches.empty()) return failed(line_no, "LID row before any 'Switch:' header");
      LidMatrixRow row;
      if (auto why = parse_row(s, row)) return failed(line_no, *why + ": " + excerpt(s));
      LidMatrixSwitch& sw = m.switches.back();
      if (seen[row.lid]) return failed(line_no, "LID listed twice for this switch: " + excerpt(s));
      seen[row.lid] = true;
      // Every row of a switch has one column per port; fewer is a cut-off line.
      if (!sw.rows.empty() && sw.rows.front().hops.size() != row.hops.size())
        return failed(line_no, std::to_string(row.hops.size()) +
                                   " port columns, but the first row of the switch of line " +
                                   std::to_string(sw.line) + " has " +
                                   std::to_string(sw.rows.front().hops.size()) + ": truncated?");
      sw.rows.push_back(std::move(row));
      return true;
    }
    return failed(line_no, "not part of a LID matrix dump: " + excerpt(s));
  });

  if (error) return fail(*error);
  if (!close_ok(last_line)) return fail(*error);
  if (m.switches.empty())
    return fail(kErrLidMatrixSyntax, at(path, last_line, "no 'Switch:' block: not a LID matrix"));
  return m;
}

}  // namespace ibsm::routing
