#include "routing/torus/port_order_file.hpp"

#include <charconv>
#include <string>
#include <string_view>
#include <unordered_map>

#include "routing/errors.hpp"
#include "routing/torus/tokens.hpp"

namespace ibsm::routing::torus {
namespace {

// strtoull(p, &e, 0) semantics for the tokens OpenSM accepts: 0x hex, leading-0 octal,
// decimal.
bool parse_number(std::string_view tok, std::uint64_t& out) {
  int base = 10;
  if (tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) {
    base = 16;
    tok.remove_prefix(2);
  } else if (tok.size() > 1 && tok[0] == '0') {
    base = 8;
    tok.remove_prefix(1);
  }
  if (tok.empty()) return false;
  const auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), out, base);
  return ec == std::errc{} && p == tok.data() + tok.size();
}

}  // namespace

Result<std::vector<PortOrderLine>> parse_port_order(const EngineConfig::Text& file) {
  std::vector<PortOrderLine> out;
  std::string_view text = file.text;
  unsigned line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    std::string_view tok = next_token(line);
    if (tok.empty()) continue;
    const auto bad = [&](std::string_view what, std::string_view t) {
      return fail(kErrPortOrderFile, file.path + ":" + std::to_string(line_no) + ": " +
                                         std::string(what) + " '" + std::string(t) + "'");
    };
    PortOrderLine l;
    l.line = line_no;
    if (!parse_number(tok, l.guid)) return bad("not a switch GUID:", tok);
    for (tok = next_token(line); !tok.empty(); tok = next_token(line)) {
      std::uint64_t port = 0;
      if (!parse_number(tok, port) || port > 255) return bad("not a port number:", tok);
      l.ports.push_back(static_cast<unsigned>(port));
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::vector<PortNum>> port_orders(const Topology& topo,
                                              const std::vector<PortOrderLine>& lines,
                                              const std::string& file_name,
                                              std::vector<Error>& warnings) {
  std::vector<std::vector<PortNum>> orders(topo.switches.size());
  std::unordered_map<std::uint64_t, std::uint32_t> by_guid;
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s)
    by_guid.emplace(topo.switches[s].guid, s);
  const auto ignore = [&](const PortOrderLine& l, const std::string& why) {
    warnings.push_back(Error{kErrPortOrderIgnored,
                             file_name + ":" + std::to_string(l.line) + ": line ignored: " + why});
  };
  for (const PortOrderLine& l : lines) {
    const auto it = by_guid.find(l.guid);
    if (it == by_guid.end()) {
      ignore(l, "no switch has this GUID");
      continue;
    }
    const Switch& sw = topo.switches[it->second];
    std::vector<PortNum>& order = orders[it->second];
    if (!order.empty()) {
      ignore(l, "switch listed before");
      continue;
    }
    std::vector<bool> seen(std::size_t{sw.num_ports} + 1, false);
    bool ok = !l.ports.empty();
    for (unsigned p : l.ports) {
      if (p == 0 || p > sw.num_ports || seen[p]) {
        ignore(l, "port " + std::to_string(p) + " is 0, above the switch's " +
                      std::to_string(sw.num_ports) + " ports or listed twice");
        ok = false;
        break;
      }
      seen[p] = true;
      order.push_back(static_cast<PortNum>(p));
    }
    if (!ok) {
      order.clear();
      continue;
    }
    for (unsigned p = 1; p <= sw.num_ports; ++p)
      if (!seen[p]) order.push_back(static_cast<PortNum>(p));
  }
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s)
    if (orders[s].empty())
      for (unsigned p = 1; p <= topo.switches[s].num_ports; ++p)
        orders[s].push_back(static_cast<PortNum>(p));
  return orders;
}

}  // namespace ibsm::routing::torus
