#include "routing/torus/torus_config.hpp"

#include <charconv>
#include <string>
#include <string_view>

#include "routing/errors.hpp"
#include "routing/torus/tokens.hpp"

namespace ibsm::routing::torus {
namespace {

// strtoul(.., 0) prefixes: 0x hex, leading 0 octal, else decimal. `rest` gets what follows
// the digits (the t/m suffix of a radix).
template <class T>
bool parse_unsigned(std::string_view tok, T& out, std::string_view* rest = nullptr) {
  int base = 10;
  if (tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) {
    base = 16;
    tok.remove_prefix(2);
  } else if (tok.size() > 1 && tok[0] == '0' && tok[1] >= '0' && tok[1] <= '7') {
    base = 8;
    tok.remove_prefix(1);
  }
  const auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), out, base);
  if (ec != std::errc{} || p == tok.data()) return false;
  const std::string_view tail = tok.substr(static_cast<std::size_t>(p - tok.data()));
  if (rest != nullptr) {
    *rest = tail;
    return true;
  }
  return tail.empty();
}

bool parse_int(std::string_view tok, int& out) {
  bool neg = false;
  if (!tok.empty() && (tok[0] == '-' || tok[0] == '+')) {
    neg = tok[0] == '-';
    tok.remove_prefix(1);
  }
  unsigned v = 0;
  if (!parse_unsigned(tok, v) || v > 0xFFFF) return false;
  out = neg ? -static_cast<int>(v) : static_cast<int>(v);
  return true;
}

constexpr const char* kAxis = "xyz";

}  // namespace

Result<TorusConfig> parse_torus_config(const EngineConfig::Text& file) {
  TorusConfig cfg;
  bool have_shape = false;
  std::string_view text = file.text;
  unsigned line_no = 0;
  const auto where = [&](unsigned line) { return file.path + ":" + std::to_string(line) + ": "; };
  // A seed is opened by the first seed keyword (or next_seed) and filled by the rest.
  const auto seed = [&]() -> TorusSeed& {
    if (cfg.seeds.empty()) cfg.seeds.push_back(TorusSeed{.line = line_no});
    return cfg.seeds.back();
  };
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    const std::string_view kw = next_token(line);
    if (kw.empty() || kw[0] == '#') continue;
    const auto bad = [&](const std::string& what) {
      return fail(kErrTorusConfigSyntax, where(line_no) + what);
    };
    if (!have_shape && kw != "torus" && kw != "mesh")
      return bad("'" + std::string(kw) +
                 "' before the 'torus' or 'mesh' line, which must come first");
    if (kw == "torus" || kw == "mesh") {
      if (have_shape) continue;  // "there can be only one", as OpenSM ignores the others
      for (unsigned d = 0; d < kDims; ++d) {
        const std::string_view tok = next_token(line);
        std::string_view suffix;
        unsigned r = 0;
        if (tok.empty() || !parse_unsigned(tok, r, &suffix) || r == 0 || r > 255 ||
            suffix.size() > 1 ||
            (suffix.size() == 1 &&
             std::string_view("tTmM").find(suffix[0]) == std::string_view::npos))
          return bad(std::string("bad ") + kAxis[d] + " radix '" + std::string(tok) +
                     "' (want 1-255 with an optional t/T/m/M suffix)");
        cfg.radix[d] = r;
        bool wraps = kw == "torus";
        if (!suffix.empty()) wraps = suffix[0] == 't' || suffix[0] == 'T';
        // A radix-2 torus is a radix-2 mesh with parallel links (as OpenSM's parse_size).
        cfg.wraps[d] = wraps && r > 2;
      }
      have_shape = true;
      continue;
    }
    if (kw == "next_seed") {
      cfg.seeds.push_back(TorusSeed{.line = line_no});
      continue;
    }
    if (kw == "portgroup_max_ports" || kw == "max_changes") {
      const std::string_view tok = next_token(line);
      unsigned v = 0;
      if (!parse_unsigned(tok, v)) return bad("'" + std::string(kw) + "' needs a number");
      (kw == "max_changes" ? cfg.max_changes : cfg.portgroup_max_ports) = v;
      continue;
    }
    if (kw == "port_order") {
      for (std::string_view tok = next_token(line); !tok.empty(); tok = next_token(line)) {
        unsigned p = 0;
        if (!parse_unsigned(tok, p) || p > 255)
          return bad("port_order: bad port '" + std::string(tok) + "'");
        bool dup = false;
        for (PortNum q : cfg.port_order)
          dup = dup || q == p;
        if (!dup) cfg.port_order.push_back(static_cast<PortNum>(p));  // duplicates ignored
      }
      continue;
    }
    if (kw.size() == 7 && kw.substr(2) == "_link" && (kw[1] == 'p' || kw[1] == 'm') &&
        (kw[0] == 'x' || kw[0] == 'y' || kw[0] == 'z')) {
      const unsigned d = static_cast<unsigned>(kw[0] - 'x');
      std::uint64_t from = 0, to = 0;
      const std::string_view a = next_token(line), b = next_token(line);
      if (!parse_unsigned(a, from) || !parse_unsigned(b, to) || from == 0 || to == 0)
        return bad(std::string(kw) + " needs two switch GUIDs");
      TorusSeed& s = seed();
      if (s.from != 0 && s.from != from)
        return bad(std::string(kw) + ": all links of a seed must start at the same switch");
      s.from = from;
      s.neighbour[d][kw[1] == 'p' ? 1 : 0] = to;
      continue;
    }
    if (kw.size() == 10 && kw.substr(1) == "_dateline" &&
        (kw[0] == 'x' || kw[0] == 'y' || kw[0] == 'z')) {
      int v = 0;
      if (!parse_int(next_token(line), v)) return bad(std::string(kw) + " needs an integer");
      seed().dateline[static_cast<unsigned>(kw[0] - 'x')] = v;
      continue;
    }
    return bad("unknown keyword '" + std::string(kw) + "'");
  }
  if (!have_shape) return fail(kErrTorusConfigMissing, file.path + ": no 'torus' or 'mesh' line");
  // Seeds without links (a trailing next_seed) add nothing; the rest must be complete.
  std::vector<TorusSeed> seeds;
  for (const TorusSeed& s : cfg.seeds) {
    if (s.from == 0) continue;
    for (unsigned d = 0; d < kDims; ++d) {
      const bool any = s.neighbour[d][0] != 0 || s.neighbour[d][1] != 0;
      if (cfg.radix[d] > 1 && !any)
        return fail(kErrTorusConfigMissing,
                    where(s.line) + "seed has no " + kAxis[d] + "p_link or " + kAxis[d] + "m_link");
      if (cfg.radix[d] == 1 && any)
        return fail(kErrTorusConfigMissing, where(s.line) + "seed has a " + kAxis[d] +
                                                " link but the " + kAxis[d] + " radix is 1");
      if (cfg.radix[d] == 4 && cfg.wraps[d] && (s.neighbour[d][0] == 0 || s.neighbour[d][1] == 0))
        return fail(kErrTorusConfigMissing, where(s.line) + "radix-4 torus dimension " + kAxis[d] +
                                                " needs both " + kAxis[d] + "p_link and " +
                                                kAxis[d] + "m_link");
    }
    seeds.push_back(s);
  }
  if (seeds.empty())
    return fail(kErrTorusConfigMissing, file.path + ": no seed (xp_link/yp_link/zp_link lines)");
  cfg.seeds = std::move(seeds);
  return cfg;
}

}  // namespace ibsm::routing::torus
