#include "routing/file/lft_dump_reader.hpp"

#include <optional>
#include <unordered_map>

#include "routing/errors.hpp"
#include "routing/file/dump_text.hpp"
#include "routing/lid_owners.hpp"  // kMaxUnicastLid

namespace ibsm::routing {
namespace {

using namespace dump_text;

// The header of one switch block, as opensm-lfts.dump (osm_dump.c dump_ucast_lfts) and
// ibroute (dump_unicast_tables) write it:
//   Unicast lids [0-12] of switch Lid 3 guid 0x0002c90000000001 ('sw1'):
//   Unicast lids [0x0-0xc] of switch Lid 3 guid 0x0002c90000000001 (sw1):
struct Header {
  std::uint64_t first = 0, last = 0;
  LftDumpSwitch sw;
};

std::optional<std::string> parse_header(std::string_view s, Header& h) {
  if (!eat(s, "Unicast lids [")) return "not a switch header";
  if (!eat_dec_or_hex(s, kMaxUnicastLid, h.first) || !eat(s, "-") ||
      !eat_dec_or_hex(s, kMaxUnicastLid, h.last) || !eat(s, "]") || h.first > h.last)
    return "bad LID range '[first-last]' (at most 0xBFFF)";
  if (!eat(s, " of switch ")) return "expected ' of switch '";
  const std::size_t g = s.find(" guid 0x");
  if (g == std::string_view::npos) return "no ' guid 0x<guid>'";
  // ibroute names the switch by its port id ("Lid 3", or a directed route); OpenSM always
  // writes "Lid <decimal>". Only the GUID identifies the switch.
  std::string_view who = s.substr(0, g);
  std::uint64_t lid = 0;
  if (eat(who, "Lid ") && !(eat_dec_or_hex(who, kMaxUnicastLid, lid) && trim(who).empty()))
    return "bad switch LID";
  h.sw.lid = static_cast<Lid>(lid);
  s.remove_prefix(g + 8);
  if (!eat_number(s, 16, UINT64_MAX, h.sw.guid)) return "bad switch GUID";
  skip_spaces(s);
  // "('<description>'):" or "(<description>):"; a description may hold anything, so the
  // last "):" ends it.
  if (!eat(s, "(") || !s.ends_with("):")) return "expected '(<description>):' after the GUID";
  std::string_view desc = s.substr(0, s.size() - 2);
  if (desc.size() >= 2 && desc.front() == '\'' && desc.back() == '\'')
    desc = desc.substr(1, desc.size() - 2);
  h.sw.description = std::string(desc);
  return std::nullopt;
}

// "<n> lids dumped" (OpenSM) or "<n> valid lids dumped" / "<n> lids dumped" (ibroute).
bool is_footer(std::string_view s) {
  std::uint64_t n = 0;
  if (!eat_number(s, 10, UINT32_MAX, n)) return false;
  skip_spaces(s);
  eat(s, "valid ");
  return s == "lids dumped";
}

// ibroute's column titles under the header.
bool is_column_title(std::string_view s) {
  return (s.starts_with("Lid ") && s.find("Destination") != std::string_view::npos) ||
         (s.starts_with("Port ") && s.find("Info") != std::string_view::npos);
}

// "0x<lid> <port>" then anything after a blank ("# Channel Adapter ..." or ": (...)").
std::optional<std::string> parse_entry(std::string_view s, Lid& lid, PortNum& port) {
  std::uint64_t l = 0, p = 0;
  if (!eat(s, "0x") || !eat_number(s, 16, UINT64_MAX, l)) return "bad LID";
  if (l > kMaxUnicastLid) return "LID above the unicast range 0xBFFF";
  if (s.empty()) return "missing port number (truncated?)";
  if (!is_space(s.front())) return "expected a blank after the LID";
  skip_spaces(s);
  if (!eat_number(s, 10, UINT64_MAX, p)) return "missing port number";
  if (p > 255) return "port " + std::to_string(p) + " above 255";
  if (!s.empty() && !is_space(s.front())) return "expected a blank after the port";
  lid = static_cast<Lid>(l);
  port = static_cast<PortNum>(p);
  return std::nullopt;
}

struct OpenBlock {
  std::size_t line = 0;  // of the header
  Header header;
  std::vector<bool> seen;  // LIDs listed so far
};

}  // namespace

Result<LftDump> parse_lft_dump(std::string_view text, std::string_view path) {
  LftDump dump;
  std::optional<OpenBlock> open;
  std::unordered_map<std::uint64_t, std::size_t> header_line;  // GUID -> line of its block
  std::optional<Error> error;
  std::size_t last_line = 0;
  auto failed = [&](std::size_t line, std::string_view what) {
    error = Error{kErrLftDumpSyntax, at(path, line, what)};
    return false;
  };

  for_each_line(text, [&](std::size_t line_no, std::string_view raw) {
    last_line = line_no;
    const std::string_view s = trim(raw);
    if (s.empty() || s.front() == '#') return true;
    if (s.starts_with("Multicast mlids"))
      return failed(line_no, "a multicast (MFT) dump, not unicast LFTs");
    if (s.starts_with("Unicast lids")) {
      if (open)
        return failed(line_no, "new switch block, but the block of line " +
                                   std::to_string(open->line) + " has no 'lids dumped' footer");
      OpenBlock b;
      b.line = line_no;
      if (auto why = parse_header(s, b.header)) return failed(line_no, *why + ": " + excerpt(s));
      const std::uint64_t guid = b.header.sw.guid;
      if (auto [it, fresh] = header_line.emplace(guid, line_no); !fresh)
        return failed(line_no, "switch " + hex_guid(guid) + " already listed at line " +
                                   std::to_string(it->second));
      b.seen.assign(b.header.last + 1, false);
      open = std::move(b);
      return true;
    }
    if (is_footer(s)) {
      if (!open) return failed(line_no, "'lids dumped' footer outside a switch block");
      dump.switches.push_back(std::move(open->header.sw));
      open.reset();
      return true;
    }
    if (open && is_column_title(s)) return true;
    if (s.starts_with("0x")) {
      if (!open) return failed(line_no, "LFT entry outside a switch block");
      Lid lid = 0;
      PortNum port = 0;
      if (auto why = parse_entry(s, lid, port)) return failed(line_no, *why + ": " + excerpt(s));
      if (lid < open->header.first || lid > open->header.last)
        return failed(line_no, "LID outside the block's range [" +
                                   std::to_string(open->header.first) + "-" +
                                   std::to_string(open->header.last) + "]: " + excerpt(s));
      if (open->seen[lid]) return failed(line_no, "LID listed twice in this block: " + excerpt(s));
      open->seen[lid] = true;
      open->header.sw.entries.emplace_back(lid, port);
      return true;
    }
    return failed(line_no, "not part of an LFT dump: " + excerpt(s));
  });

  if (error) return fail(*error);
  if (open)
    return fail(kErrLftDumpSyntax,
                at(path, last_line,
                   "file ends inside the switch block of line " + std::to_string(open->line) +
                       " (no 'lids dumped' footer): truncated?"));
  if (dump.switches.empty())
    return fail(kErrLftDumpSyntax, at(path, last_line, "no switch block: not an LFT dump"));
  return dump;
}

}  // namespace ibsm::routing
