#include "sa/prefix_routes.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ibsm::sa {
namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// A 64-bit hex number, 0x optional, nothing else.
bool parse_hex64(std::string_view t, std::uint64_t& out) {
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  if (t.empty() || t.size() > 16) return false;
  std::uint64_t v = 0;
  for (char c : t) {
    unsigned d;
    if (c >= '0' && c <= '9')
      d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A' + 10);
    else
      return false;
    v = v << 4 | d;
  }
  out = v;
  return true;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

Result<PrefixRoutes> parse_prefix_routes(std::string_view text, std::string_view origin) {
  PrefixRoutes out;
  out.origin = std::string(origin);
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    line = line.substr(0, line.find('#'));
    // Tokens with their columns (1-based).
    struct Token {
      std::string_view text;
      std::size_t column;
    };
    std::vector<Token> tokens;
    for (std::size_t i = 0; i < line.size();) {
      if (blank(line[i])) {
        ++i;
        continue;
      }
      const std::size_t start = i;
      while (i < line.size() && !blank(line[i]))
        ++i;
      tokens.push_back({line.substr(start, i - start), start + 1});
    }
    if (tokens.empty()) continue;
    auto where = [&](std::size_t column) {
      return out.origin + ":" + std::to_string(line_no) + ":" + std::to_string(column) + ": ";
    };
    if (tokens.size() < 2)
      return fail(kErrPrefixRoutesSyntax,
                  where(tokens[0].column + tokens[0].text.size()) +
                      "missing router port GUID after the prefix (\"<prefix> <GUID or *>\")");
    if (tokens.size() > 2)
      return fail(kErrPrefixRoutesSyntax, where(tokens[2].column) + "unexpected '" +
                                              std::string(tokens[2].text) +
                                              "' after the router port GUID");
    PrefixRoute r;
    r.line = line_no;
    if (tokens[0].text == "*") {
      r.any_prefix = true;
    } else if (!parse_hex64(tokens[0].text, r.prefix)) {
      return fail(kErrPrefixRoutesSyntax, where(tokens[0].column) + "bad subnet prefix '" +
                                              std::string(tokens[0].text) +
                                              "': 64-bit hexadecimal (0x optional) or *");
    }
    if (tokens[1].text == "*") {
      r.any_router = true;
    } else if (!parse_hex64(tokens[1].text, r.router) || r.router == 0) {
      return fail(kErrPrefixRoutesSyntax, where(tokens[1].column) + "bad router port GUID '" +
                                              std::string(tokens[1].text) +
                                              "': non-zero 64-bit hexadecimal (0x optional) or *");
    }
    out.routes.push_back(r);
  }
  return out;
}

Result<PrefixRoutes> load_prefix_routes(const std::string& path) {
  PrefixRoutes none;
  none.origin = path;
  if (path.empty()) return none;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return none;
    return fail(kErrPrefixRoutesUnreadable, "cannot open " + path + ": " + std::strerror(errno));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return fail(kErrPrefixRoutesUnreadable, "cannot read " + path);
  return parse_prefix_routes(buf.str(), path);
}

mad::Guid route_for(const PrefixRoutes& r, std::uint64_t prefix,
                    const std::vector<mad::Guid>& routers) {
  if (routers.empty()) return 0;
  for (const PrefixRoute& route : r.routes) {
    if (!route.any_prefix && route.prefix != prefix) continue;
    if (route.any_router) return routers.front();
    if (std::binary_search(routers.begin(), routers.end(), route.router)) return route.router;
  }
  return 0;
}

std::vector<std::string> routes_without_router(const PrefixRoutes& r,
                                               const std::vector<mad::Guid>& routers) {
  std::vector<std::string> out;
  for (const PrefixRoute& route : r.routes) {
    if (route.any_router) continue;
    if (std::binary_search(routers.begin(), routers.end(), route.router)) continue;
    out.push_back(r.origin + ":" + std::to_string(route.line) + ": " + hex(route.router) +
                  " is not the port GUID of a router in the fabric");
  }
  return out;
}

}  // namespace ibsm::sa
