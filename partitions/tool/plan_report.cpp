#include "partitions/tool/plan_report.hpp"

#include <cstdio>
#include <map>

#include "partitions/formatter.hpp"

namespace ibsm::partitions {
namespace {

std::map<std::uint16_t, std::uint16_t> valid_entries(const std::vector<std::uint16_t>& t) {
  std::map<std::uint16_t, std::uint16_t> m;  // base -> entry (full wins)
  for (std::uint16_t p : t) {
    if (!(p & 0x7fff)) continue;
    auto [it, inserted] = m.emplace(p & 0x7fff, p);
    if (!inserted && (p & 0x8000)) it->second = p;
  }
  return m;
}

std::string membership(std::uint16_t p) {
  return (p & 0x8000) ? "full" : "limited";
}

std::string bits(const Enforcement& e) {
  if (!e.inbound && !e.outbound) return "off";
  return std::string(e.inbound ? "in" : "") + (e.inbound && e.outbound ? "," : "") +
         (e.outbound ? "out" : "");
}

}  // namespace

PlanSummary plan_report(const ResolvedConfig& config, const FabricSnapshot& snapshot,
                        const PlannerOptions& options) {
  const FabricPlan plan = plan_pkeys(config, snapshot.fabric, options);
  PlanSummary out;
  int blocks = 0, portinfos = 0;
  auto name_of = [&](std::uint16_t base) {
    const ResolvedPartition* p = config.find(base);
    return p ? " (" + p->name + ")" : std::string();
  };
  for (std::size_t i = 0; i < snapshot.fabric.ports.size(); ++i) {
    const FabricPort& fp = snapshot.fabric.ports[i];
    const PortPlan* pp = plan.find(fp.node_guid, fp.port_num);
    if (!pp) continue;
    std::string lines;
    const auto before = valid_entries(fp.pkeys), after = valid_entries(pp->table);
    if (!pp->switch_external || options.part_enforce != PartEnforce::kOff) {
      for (const auto& [base, entry] : after) {
        auto b = before.find(base);
        if (b == before.end())
          lines += "  + " + hex_pkey(entry) + " " + membership(entry) + name_of(base) + "\n";
        else if (b->second != entry)
          lines += "  ~ " + hex_pkey(base) + name_of(base) + " " + membership(b->second) + " -> " +
                   membership(entry) + "\n";
      }
      for (const auto& [base, entry] : before)
        if (!after.count(base))
          lines += "  - " + hex_pkey(entry) + " " + membership(entry) + name_of(base) + "\n";
    }
    if (!pp->blocks_to_send.empty()) {
      lines += "  P_Key blocks to send:";
      for (std::uint16_t b : pp->blocks_to_send)
        lines += " " + std::to_string(b);
      lines += "\n";
      blocks += static_cast<int>(pp->blocks_to_send.size());
    }
    if (pp->set_enforcement) {
      lines +=
          "  enforcement: " + bits(fp.enforcement) + " -> " + bits(*pp->set_enforcement) + "\n";
      ++portinfos;
    }
    for (std::uint16_t d : pp->dropped)
      lines += "  ! " + hex_pkey(d) + " does not fit\n";
    if (lines.empty()) continue;
    ++out.ports_changed;
    const std::string desc = i < snapshot.descriptions.size() ? snapshot.descriptions[i] : "";
    out.text += (desc.empty() ? "" : desc + " ") + "node " + hex_guid(fp.node_guid) + " port " +
                std::to_string(fp.port_num) +
                (pp->switch_external ? " (enforces for " + hex_guid(fp.peer_port_guid) + ")"
                                     : " guid " + hex_guid(fp.port_guid)) +
                "\n" + lines;
  }
  out.text += std::to_string(out.ports_changed) + " port(s) change, " + std::to_string(blocks) +
              " P_Key block(s) and " + std::to_string(portinfos) + " PortInfo update(s) to send\n";
  return out;
}

}  // namespace ibsm::partitions
