#include "partitions/tool/show.hpp"

#include <cstdio>
#include <optional>

#include "partitions/c_number.hpp"
#include "partitions/formatter.hpp"
#include "partitions/units.hpp"

namespace ibsm::partitions {
namespace {

std::string flags_summary(const ResolvedConfig& r, std::size_t part) {
  std::string s;
  const auto& p = r.partitions[part];
  if (p.ipoib) s += "ipoib ";
  for (const GroupSpec& g : r.groups) {
    if (g.partition != part || !g.broadcast) continue;
    s += "mtu=" + std::to_string(mtu_bytes(g.mtu)) + " rate=" + rate_text(g.rate);
    break;
  }
  if (p.sl) s += " sl=" + std::to_string(p.sl);
  if (p.auto_pkey) s += " (auto P_Key)";
  return s.empty() ? "-" : s;
}

std::string pad(std::string s, std::size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

}  // namespace

std::string list_partitions(const Config& config, const ResolvedConfig& r) {
  (void)config;
  std::string out =
      pad("NAME", 18) + pad("P_KEY", 8) + pad("MEMBERS", 24) + pad("GROUPS", 7) + "FLAGS\n";
  for (std::size_t i = 0; i < r.partitions.size(); ++i) {
    int full = 0, limited = 0, both = 0;
    for (const MemberRule& rule : r.rules) {
      if (rule.partition != i || rule.implicit) continue;
      (rule.membership == Membership::kFull      ? full
       : rule.membership == Membership::kLimited ? limited
                                                 : both)++;
    }
    int groups = 0;
    for (const GroupSpec& g : r.groups)
      groups += g.partition == i;
    std::string members = std::to_string(full + limited + both) + " (" + std::to_string(full) +
                          " full, " + std::to_string(limited) + " limited" +
                          (both ? ", " + std::to_string(both) + " both" : "") + ")";
    out += pad(r.partitions[i].name, 18) + pad(hex_pkey(r.partitions[i].pkey), 8) +
           pad(members, 24) + pad(std::to_string(groups), 7) + flags_summary(r, i) + "\n";
  }
  return out;
}

std::string show_partition(const Config& config, const ResolvedConfig& r,
                           const std::string& selector) {
  std::optional<std::size_t> part;
  auto n = parse_c_number_exact(selector);
  for (std::size_t i = 0; i < r.partitions.size() && !part; ++i)
    if ((n && r.partitions[i].pkey == (*n & 0x7fff)) || (!n && r.partitions[i].name == selector))
      part = i;
  if (!part) return "";
  const auto& p = r.partitions[*part];
  std::string out = "Partition " + p.name + "\n  P_Key:      " + hex_pkey(p.pkey) +
                    (p.auto_pkey ? " (assigned automatically)" : "") + "\n";
  out += "  SL:         " + std::to_string(p.sl) + "\n";
  out += "  Statements:";
  for (std::size_t s = 0; s < config.statements.size(); ++s)
    if (r.statement_partition[s] == *part)
      out += " line " + std::to_string(config.statements[s].loc.line);
  if (*part == 0) out += " (plus the implicit ALL=limited, SELF=full)";
  out += "\n  Members:\n";
  for (const MemberRule& rule : r.rules) {
    if (rule.partition != *part) continue;
    Member m{rule.kind, rule.guid, rule.membership, {}};
    out += "    " + member_text(m) + (rule.indx0 ? " (index 0)" : "") +
           (rule.implicit ? " (implicit)" : "") + "\n";
  }
  out += "  Multicast groups:\n";
  for (const GroupSpec& g : r.groups) {
    if (g.partition != *part) continue;
    char q[16];
    std::snprintf(q, sizeof q, "0x%08x", g.qkey);
    out += "    " + format_gid(g.mgid) + (g.broadcast ? " (IPoIB broadcast)" : "") +
           "\n      mtu " + std::to_string(mtu_bytes(g.mtu)) + ", rate " + rate_text(g.rate) +
           ", sl " + std::to_string(g.sl) + ", scope " + std::to_string(g.scope) + ", Q_Key " + q +
           ", TClass " + std::to_string(g.tclass) + ", FlowLabel " + std::to_string(g.flow_label) +
           "\n";
  }
  return out;
}

}  // namespace ibsm::partitions
