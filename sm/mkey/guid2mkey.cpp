#include "sm/mkey/guid2mkey.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ibsm::sm::mkey {

namespace {

bool parse_u64(const std::string& tok, std::uint64_t& out) {
  if (tok.empty() || tok[0] == '-' || tok[0] == '+') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(tok.c_str(), &end, 0);
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  out = v;
  return true;
}

}  // namespace

Guid2MkeyParse parse_guid2mkey(std::string_view text, std::string_view file) {
  Guid2MkeyParse r;
  std::istringstream in{std::string(text)};
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::string g, k, extra;
    if (!(ls >> g) || g[0] == '#') continue;  // blank line or comment
    std::uint64_t guid = 0, key = 0;
    if (!(ls >> k) || (ls >> extra) || !parse_u64(g, guid) || !parse_u64(k, key) || guid == 0) {
      r.warnings.push_back(std::string(file) + ":" + std::to_string(lineno) +
                           ": expected '0xPORTGUID 0xMKEY' with a non-zero GUID, got '" + line +
                           "'");
      continue;
    }
    r.db[guid] = key;
  }
  return r;
}

std::string format_guid2mkey(const Guid2Mkey& db) {
  std::string out;
  char buf[64];
  for (const auto& [guid, key] : db) {
    std::snprintf(buf, sizeof buf, "0x%016llx 0x%016llx\n\n", static_cast<unsigned long long>(guid),
                  static_cast<unsigned long long>(key));
    out += buf;
  }
  return out;
}

}  // namespace ibsm::sm::mkey
