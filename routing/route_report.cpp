#include "routing/route_report.hpp"

#include <cstdio>

#include "routing/analysis.hpp"

namespace ibsm::routing {
namespace {

std::string vl_list(const std::vector<std::uint8_t>& vls) {
  std::string out;
  for (std::size_t i = 0; i < vls.size(); ++i)
    out += (i ? "," : "") + std::to_string(vls[i]);
  return out.empty() ? "none" : out;
}

std::string fixed1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

RouteReport make_route_report(const Topology& topo, const Routes& routes,
                              const CdgOptions& cdg_options) {
  RouteReport r;
  const PairCheck pc = check_all_pairs(topo, routes);
  r.pairs = pc.pairs;
  r.unreachable = pc.pairs - pc.delivered;
  r.loops = pc.loops;
  r.ca_pairs = pc.end_port_pairs();
  r.ca_unreachable = pc.end_port_unreachable();
  r.switch_pairs = pc.switch_pairs;
  r.switch_unreachable = pc.switch_unreachable();
  r.unreachable_examples = pc.examples;
  // Engines with per-path SLs (dfsssp) are graded per VL: SL i on VL i, the SL2VL
  // identity the SM programs for them. The checker sees only this map, not the engine.
  CdgOptions options = cdg_options;
  if (!options.vl_of && !routes.path_sl.empty())
    options.vl_of = [&](std::uint32_t src, Lid dlid) -> std::uint8_t {
      return routes.path_sl.sl(topo.end_ports[src].sw, dlid);
    };
  r.cdg = check_channel_dependencies(topo, routes, options);
  const ChannelLoads loads = channel_loads(topo, routes);
  r.max_efi = loads.max;
  r.mean_efi = loads.mean;
  r.channels = loads.channels.size();
  r.unused_channels = loads.unused;
  for (const CdgVl& v : r.cdg.vls)
    r.vls_used.push_back(v.vl);
  return r;
}

std::string format_route_report_line(const RouteReport& r) {
  std::string acyclic = r.acyclic() ? "acyclic" : "CYCLIC";
  if (!r.acyclic()) {
    acyclic += " on VL";
    for (const CdgVl& v : r.cdg.vls)
      if (!v.acyclic) acyclic += " " + std::to_string(v.vl);
  }
  return "pairs " + std::to_string(r.pairs) + " unreachable " + std::to_string(r.unreachable) +
         " (CA " + std::to_string(r.ca_unreachable) + " of " + std::to_string(r.ca_pairs) +
         ", switch " + std::to_string(r.switch_unreachable) + " of " +
         std::to_string(r.switch_pairs) + "; loops " + std::to_string(r.loops) + "), CDG " +
         acyclic + ", EFI max " + std::to_string(r.max_efi) + " mean " + fixed1(r.mean_efi) +
         " over " + std::to_string(r.channels) + " channels (" + std::to_string(r.unused_channels) +
         " unused), VLs " + vl_list(r.vls_used);
}

std::string format_route_report_text(const Topology& topo, const RouteReport& r,
                                     std::string_view engine, double routing_ms) {
  std::string out = "# ibsm route report: computed from the forwarding tables alone\n";
  out += "engine: " + std::string(engine) + "\n";
  out += "routing_ms: " + fixed1(routing_ms) + "\n";
  out += "switches: " + std::to_string(topo.switches.size()) + "\n";
  out += "end_ports: " + std::to_string(topo.end_ports.size()) + "\n";
  out += "pairs: " + std::to_string(r.pairs) + "\n";
  out += "unreachable_pairs: " + std::to_string(r.unreachable) + "\n";
  out += "ca_pairs: " + std::to_string(r.ca_pairs) + "\n";
  out += "unreachable_ca_pairs: " + std::to_string(r.ca_unreachable) + "\n";
  out += "switch_pairs: " + std::to_string(r.switch_pairs) + "\n";
  out += "unreachable_switch_pairs: " + std::to_string(r.switch_unreachable) + "\n";
  out += "forwarding_loops: " + std::to_string(r.loops) + "\n";
  out += "channels: " + std::to_string(r.channels) + "\n";
  out += "unused_channels: " + std::to_string(r.unused_channels) + "\n";
  out += "efi_max: " + std::to_string(r.max_efi) + "\n";
  out += "efi_mean: " + fixed1(r.mean_efi) + "\n";
  out += "vls_used: " + vl_list(r.vls_used) + "\n";
  out += std::string("cdg_acyclic: ") + (r.acyclic() ? "yes" : "no") + "\n";
  for (const CdgVl& v : r.cdg.vls) {
    out += "vl " + std::to_string(v.vl) + ": " + std::to_string(v.dependencies) +
           " channel dependencies, " + (v.acyclic ? "acyclic" : "cycle") + "\n";
    if (!v.acyclic) out += "  cycle: " + describe_cycle(topo, v.cycle) + "\n";
  }
  for (const std::string& e : r.unreachable_examples)
    out += "unreachable: " + e + "\n";
  return out;
}

}  // namespace ibsm::routing
