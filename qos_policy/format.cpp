// Printing a policy (format.hpp).
#include "qos_policy/format.hpp"

#include <cctype>
#include <cstdio>
#include <string_view>
#include <tuple>

namespace ibsm::qos_policy {

namespace {

std::string num(std::uint64_t v, bool hex) {
  char buf[32];
  std::snprintf(buf, sizeof buf, hex ? "0x%llx" : "%llu", static_cast<unsigned long long>(v));
  return buf;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v)
    s += (s.empty() ? "" : ", ") + x;
  return s;
}

// "  # line 12, from qos-ulps": where an item came from, as a comment.
std::string note(const SourcePos& pos, std::string_view extra = {}) {
  std::string s = pos.line == 0 ? std::string() : "line " + std::to_string(pos.line);
  if (!extra.empty()) s += (s.empty() ? "" : ", ") + std::string(extra);
  return s.empty() ? s : "  # " + s;
}

// A name as the scanner reads it back: unquoted names lose blanks and may hold
// keywords, so anything beyond letters, digits, '_' and '.' is quoted.
std::string name(const std::string& n) {
  for (char c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return '"' + n + '"';
  }
  return n;
}

std::string names(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v)
    s += (s.empty() ? "" : ", ") + name(x);
  return s;
}

}  // namespace

std::string format_ranges(const Ranges& r, bool hex) {
  std::string s;
  for (const Range& x : r) {
    s += s.empty() ? "" : ",";
    s += num(x.lo, hex);
    if (x.hi != x.lo) s += "-" + num(x.hi, hex);
  }
  return s;
}

std::string describe_level(const Level& l) {
  std::string s = "qos-level '" + l.name + "'";
  if (l.pos.line != 0) s += " (line " + std::to_string(l.pos.line) + ")";
  s += ": sl " + std::to_string(l.sl.value_or(0));
  if (l.mtu_limit) s += ", mtu-limit " + std::to_string(*l.mtu_limit);
  if (l.rate_limit) s += ", rate-limit " + std::to_string(*l.rate_limit);
  if (l.packet_life) s += ", packet-life " + std::to_string(*l.packet_life);
  if (!l.pkeys.empty()) s += ", pkey " + format_ranges(l.pkeys, true);
  if (!l.path_bits.empty()) s += ", path-bits " + format_ranges(l.path_bits, false);
  return s;
}

std::string describe_rule(const Policy& p, std::size_t rule) {
  const MatchRule& r = p.rules[rule];
  std::string s =
      "qos-match-rule " + std::to_string(rule + 1) + " (line " + std::to_string(r.pos.line);
  if (!r.ulp.empty()) s += ", qos-ulps '" + r.ulp + "'";
  if (!r.use.empty()) s += ", '" + r.use + "'";
  return s + ")";
}

std::string format_policy(const Policy& p) {
  std::string o;
  o += "port-groups\n";
  for (const PortGroup& g : p.groups) {
    o += "    port-group" + note(g.pos, g.generated ? "from qos-ulps" : "") + "\n";
    o += "        name: " + name(g.name) + "\n";
    if (!g.use.empty()) o += "        use: " + name(g.use) + "\n";
    if (!g.guids.empty()) o += "        port-guid: " + format_ranges(g.guids, true) + "\n";
    if (!g.port_names.empty()) o += "        port-name: " + names(g.port_names) + "\n";
    if (!g.pkeys.empty()) o += "        pkey: " + format_ranges(g.pkeys, true) + "\n";
    if (!g.partitions.empty()) o += "        partition: " + names(g.partitions) + "\n";
    std::vector<std::string> types;
    if (g.node_types & kTypeCa) types.emplace_back("CA");
    if (g.node_types & kTypeSwitch) types.emplace_back("SWITCH");
    if (g.node_types & kTypeRouter) types.emplace_back("ROUTER");
    if (g.self) types.emplace_back("SELF");
    if (!types.empty()) o += "        node-type: " + join(types) + "\n";
    o += "    end-port-group\n";
  }
  o += "end-port-groups\n\nqos-setup\n";
  if (!p.vlarb.empty()) {
    o += "    vlarb-tables\n";
    for (const VlArbScope& v : p.vlarb) {
      o += "        vlarb-scope" + note(v.pos) + "\n";
      if (!v.groups.empty()) o += "            group: " + names(v.groups) + "\n";
      if (!v.across.empty()) o += "            across: " + names(v.across) + "\n";
      for (const auto* list : {&v.high, &v.low}) {
        if (list->empty()) continue;
        std::string s;
        for (const auto& [vl, w] : *list)
          s += (s.empty() ? "" : ",") + std::to_string(vl) + ":" + std::to_string(w);
        o += std::string("            ") + (list == &v.high ? "vlarb-high: " : "vlarb-low: ") + s +
             "\n";
      }
      if (v.high_limit) o += "            vl-high-limit: " + std::to_string(*v.high_limit) + "\n";
      o += "        end-vlarb-scope\n";
    }
    o += "    end-vlarb-tables\n";
  }
  if (!p.sl2vl.empty()) {
    o += "    sl2vl-tables\n";
    for (const Sl2VlScope& v : p.sl2vl) {
      o += "        sl2vl-scope" + note(v.pos) + "\n";
      if (!v.groups.empty()) o += "            group: " + names(v.groups) + "\n";
      if (!v.across_from.empty()) o += "            across-from: " + names(v.across_from) + "\n";
      if (!v.across_to.empty()) o += "            across-to: " + names(v.across_to) + "\n";
      using Side = std::tuple<bool, const std::bitset<128>*, const char*>;
      for (const auto& [set, bits, name] :
           {Side{v.from_set, &v.from, "from"}, Side{v.to_set, &v.to, "to"}}) {
        if (!set) continue;
        Ranges r;
        for (std::uint64_t port = 0; port < kMaxSwitchPorts; ++port) {
          if (bits->test(port)) r.push_back({port, port});
        }
        normalize(r);
        o += std::string("            ") + name + ": " +
             (bits->all() ? std::string("*") : format_ranges(r, false)) + "\n";
      }
      std::string t;
      for (auto vl : v.table)
        t += (t.empty() ? "" : ",") + std::to_string(vl);
      o += "            sl2vl-table: " + t + "\n        end-sl2vl-scope\n";
    }
    o += "    end-sl2vl-tables\n";
  }
  o += "end-qos-setup\n\nqos-levels\n";
  for (std::size_t n = 0; n < p.levels.size(); ++n) {
    const Level& l = p.levels[n];
    std::string extra = l.generated ? "from qos-ulps" : "";
    if (n == p.default_level) extra += std::string(extra.empty() ? "" : ", ") + "the default level";
    o += "    qos-level" + note(l.pos, extra) + "\n";
    o += "        name: " + name(l.name) + "\n";
    if (!l.use.empty()) o += "        use: " + name(l.use) + "\n";
    o += "        sl: " + std::to_string(l.sl.value_or(0)) + "\n";
    if (l.mtu_limit) o += "        mtu-limit: " + std::to_string(*l.mtu_limit) + "\n";
    if (l.rate_limit) o += "        rate-limit: " + std::to_string(*l.rate_limit) + "\n";
    if (l.packet_life) o += "        packet-life: " + std::to_string(*l.packet_life) + "\n";
    if (!l.path_bits.empty()) o += "        path-bits: " + format_ranges(l.path_bits, false) + "\n";
    if (!l.pkeys.empty()) o += "        pkey: " + format_ranges(l.pkeys, true) + "\n";
    o += "    end-qos-level\n";
  }
  o += "end-qos-levels\n\nqos-match-rules\n";
  for (std::size_t n = 0; n < p.rules.size(); ++n) {
    const MatchRule& r = p.rules[n];
    o += "    qos-match-rule  # " + std::to_string(n + 1) + ", line " + std::to_string(r.pos.line) +
         (r.ulp.empty() ? "" : ", qos-ulps '" + r.ulp + "'") + "\n";
    if (!r.use.empty()) o += "        use: " + name(r.use) + "\n";
    if (!r.qos_class.empty()) o += "        qos-class: " + format_ranges(r.qos_class, false) + "\n";
    std::vector<std::string> src, dst;
    for (auto g : r.source_groups)
      src.push_back(name(p.groups[g].name));
    for (auto g : r.destination_groups)
      dst.push_back(name(p.groups[g].name));
    if (!src.empty()) o += "        source: " + join(src) + "\n";
    if (!dst.empty()) o += "        destination: " + join(dst) + "\n";
    if (!r.service_id.empty())
      o += "        service-id: " + format_ranges(r.service_id, true) + "\n";
    if (!r.pkey.empty()) o += "        pkey: " + format_ranges(r.pkey, true) + "\n";
    o += "        qos-level-name: " + name(p.levels[r.level].name) + "\n    end-qos-match-rule\n";
  }
  o += "end-qos-match-rules\n";
  return o;
}

}  // namespace ibsm::qos_policy
