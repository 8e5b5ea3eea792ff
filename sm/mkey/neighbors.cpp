#include "sm/mkey/neighbors.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

namespace ibsm::sm::mkey {

namespace {

std::optional<PortEnd> parse_end(const std::string& tok) {
  const auto colon = tok.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == tok.size()) return std::nullopt;
  const std::string g = tok.substr(0, colon), p = tok.substr(colon + 1);
  if (g[0] == '-' || p[0] == '-') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const unsigned long long guid = std::strtoull(g.c_str(), &end, 0);
  if (errno != 0 || *end != '\0' || guid == 0) return std::nullopt;
  const unsigned long port = std::strtoul(p.c_str(), &end, 0);
  if (errno != 0 || *end != '\0' || port > 254) return std::nullopt;
  return PortEnd{guid, static_cast<mad::PortNum>(port)};
}

std::string format_end(const PortEnd& e) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%016llx:%u", static_cast<unsigned long long>(e.first),
                static_cast<unsigned>(e.second));
  return buf;
}

}  // namespace

NeighborsParse parse_neighbors(std::string_view text, std::string_view file) {
  NeighborsParse r;
  std::istringstream in{std::string(text)};
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::string a, b, extra;
    if (!(ls >> a) || a[0] == '#') continue;
    std::optional<PortEnd> ea, eb;
    if (!(ls >> b) || (ls >> extra) || !(ea = parse_end(a)) || !(eb = parse_end(b))) {
      r.warnings.push_back(std::string(file) + ":" + std::to_string(lineno) +
                           ": expected '0xPORTGUID:PORT 0xPORTGUID:PORT', got '" + line + "'");
      continue;
    }
    r.db[*ea] = *eb;
  }
  // A link is recorded from both ends; a one-way record is stale (OpenSM's ERR 7518).
  for (auto it = r.db.begin(); it != r.db.end();) {
    auto back = r.db.find(it->second);
    if (back == r.db.end() || back->second != it->first) {
      r.warnings.push_back(std::string(file) + ": " + format_end(it->first) + " -> " +
                           format_end(it->second) + " does not point back; dropped");
      it = r.db.erase(it);
    } else {
      ++it;
    }
  }
  return r;
}

std::string format_neighbors(const Neighbors& db) {
  std::string out;
  for (const auto& [a, b] : db)
    out += format_end(a) + " " + format_end(b) + "\n\n";
  return out;
}

}  // namespace ibsm::sm::mkey
