#include "sm/lids/guid2lid.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ibsm::sm {

namespace {

bool parse_number(const std::string& tok, unsigned long long max, unsigned long long& out) {
  if (tok.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoull(tok.c_str(), &end, 0);
  return errno == 0 && end != nullptr && *end == '\0' && out <= max;
}

}  // namespace

Guid2LidParse parse_guid2lid(std::string_view text) {
  Guid2LidParse r;
  std::istringstream in{std::string(text)};
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::string g, lo, hi, extra;
    if (!(ls >> g)) continue;  // blank line
    if (g[0] == '#') continue;
    unsigned long long guid = 0, min = 0, max = 0;
    if (!(ls >> lo >> hi) || (ls >> extra) || !parse_number(g, UINT64_MAX, guid) ||
        !parse_number(lo, mad::kMaxUnicastLid, min) ||
        !parse_number(hi, mad::kMaxUnicastLid, max) || guid == 0 || min == 0 || max < min) {
      r.warnings.push_back("line " + std::to_string(lineno) + ": expected '0xGUID 0xMINLID " +
                           "0xMAXLID' with 1 <= min <= max <= 0xBFFF, got '" + line + "'");
      continue;
    }
    r.db[guid] = LidRange{static_cast<mad::Lid>(min), static_cast<mad::Lid>(max)};
  }
  return r;
}

std::string format_guid2lid(const Guid2Lid& db) {
  std::string out;
  char buf[64];
  for (const auto& [guid, range] : db) {
    std::snprintf(buf, sizeof buf, "0x%016llx 0x%04x 0x%04x\n\n",
                  static_cast<unsigned long long>(guid), range.min, range.max);
    out += buf;
  }
  return out;
}

}  // namespace ibsm::sm
