#include "metrics/status_page.hpp"

#include <spdlog/fmt/fmt.h>

#include <ctime>
#include <map>

#include "metrics/fabric_health_html.hpp"
#include "metrics/markup.hpp"
#include "metrics/topology_layout.hpp"
#include "metrics/topology_svg.hpp"

namespace ibsm::metrics {

namespace {

using markup::escaped;
using markup::number;
using ops::OpsSnapshot;

std::string utc(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

// One row of a two-column table; `value` is escaped.
void row(std::string& out, std::string_view key, std::string_view value, std::string_view id = {}) {
  out += "<tr><th>";
  out += key;
  out += "</th><td";
  if (!id.empty()) {
    out += " id=\"";
    out += id;
    out += '"';
  }
  out += '>';
  escaped(out, value);
  out += "</td></tr>\n";
}

std::string role_of(const OpsSnapshot& s) {
  switch (s.state) {
    case mad::SmState::kMaster:
      return "master";
    case mad::SmState::kStandby:
      return s.master_guid ? fmt::format("standby (master 0x{:016x})", *s.master_guid)
                           : std::string("standby");
    case mad::SmState::kDiscovering:
      return "discovering";
    default:
      return "not active";
  }
}

std::string sm_section(const OpsSnapshot& s) {
  std::string out = "<section id=\"sm\"><h2>Subnet manager</h2><table>\n";
  row(out, "State", std::string(mad::sm_state_name(s.state)), "sm-state");
  row(out, "Role", role_of(s), "sm-role");
  row(out, "Priority", std::to_string(s.priority));
  row(out, "SM LID", std::to_string(s.sm_lid));
  row(out, "Port GUID", fmt::format("0x{:016x}", s.port_guid));
  row(out, "Version", s.version);
  row(out, "Started", utc(s.started));
  row(out, "Last SUBNET UP", s.last_subnet_up ? utc(*s.last_subnet_up) : "never");
  row(out, "Sweeps",
      fmt::format("{} ({} heavy), every {} s{}", s.sweeps, s.heavy_sweeps, s.sweep_interval_s,
                  s.sweeping_enabled ? "" : ", periodic sweeps off"));
  if (!s.recent_sweeps.empty()) {
    const auto& last = s.recent_sweeps.back();
    row(out, "Last sweep",
        fmt::format("#{} {} ({}), {:.3f} s, {}", last.number, ops::sweep_kind_name(last.kind),
                    last.reason, last.seconds, last.subnet_up ? "subnet up" : "not up"));
  }
  row(out, "Phase", s.phase.empty() ? "IDLE" : s.phase);
  if (!s.status_line.empty()) row(out, "Status", s.status_line);
  for (const auto& o : s.other_sms)
    row(out, "Other SM",
        fmt::format("0x{:016x} LID {} priority {} {}{}", o.guid, o.lid, o.priority,
                    mad::sm_state_name(o.state), o.answered ? "" : " (not answering)"));
  out += "</table></section>\n";
  return out;
}

std::string fabric_section(const OpsSnapshot& s, const sa::Snapshot* fabric) {
  std::string out = "<section id=\"fabric\"><h2>Fabric</h2><table>\n";
  if (!fabric) {
    out += "</table><p>No fabric yet: the first heavy sweep has not finished.</p></section>\n";
    return out;
  }
  std::size_t switches = 0, cas = 0, routers = 0;
  std::uint64_t lids = 0;
  std::map<std::string, std::uint64_t> by_state;
  for (const auto& n : fabric->nodes) {
    if (n.is_switch())
      ++switches;
    else if (n.info.node_type == mad::NodeType::kRouter)
      ++routers;
    else
      ++cas;
    for (const auto& p : n.ports) {
      if (!p.present) continue;
      if (n.is_switch() ? p.num == 0 : p.num != 0) lids += p.lid ? (1ull << p.lmc) : 0;
      if (n.is_switch() && p.num == 0) continue;
      ++by_state[std::string(mad::port_state_name(p.info.port_state))];
    }
  }
  row(out, "Nodes", std::to_string(fabric->nodes.size()), "nodes");
  row(out, "Switches", std::to_string(switches), "switches");
  row(out, "Channel adapters", std::to_string(cas), "cas");
  if (routers) row(out, "Routers", std::to_string(routers));
  std::string ports;
  for (const auto& [st, n] : by_state)
    ports += fmt::format("{}{} {}", ports.empty() ? "" : ", ", n, st);
  row(out, "Ports", ports, "ports");
  row(out, "LIDs in use", std::to_string(lids), "lids");
  const auto& r = s.routing;
  std::string engine = r.engine.empty() ? "none yet" : r.engine;
  if (r.fallback) engine += " (fallback)";
  row(out, "Routing engine", engine, "routing-engine");
  if (r.graded) {
    row(out, "Unreachable pairs", fmt::format("{} of {}", r.unreachable, r.pairs), "unreachable");
    row(out, "Forwarding index", fmt::format("max {}, mean {:.2f}", r.max_efi, r.mean_efi));
    row(out, "Credit loops", r.acyclic ? "none" : fmt::format("{} loops", r.loops));
  }
  std::size_t members = 0;
  for (const auto& g : s.mcast_groups)
    members += g.members;
  row(out, "Multicast", fmt::format("{} groups, {} members", s.mcast_groups.size(), members));
  row(out, "Partitions",
      fmt::format("{}{}", s.partitions.partitions, s.partitions.ok ? "" : " (last read failed)"));
  out += "</table></section>\n";
  return out;
}

std::string errors_section(const OpsSnapshot& s, const PortErrors& e) {
  std::string out = "<section id=\"errors\"><h2>Ports with errors</h2>\n";
  if (!s.perf_counters) {
    out +=
        s.perfmgr_enabled
            ? "<p>The PerfMgr has not finished its first sweep yet.</p></section>\n"
            : "<p>The PerfMgr is off (<code>--perfmgr</code>): no port counters.</p></section>\n";
    return out;
  }
  const auto& c = *s.perf_counters;
  out += fmt::format(
      "<p>PerfMgr: {} sweeps, the last took {:.2f} s; {} ports read. Error counters summed, "
      "XmitWait left out; the rate is over the last PerfMgr interval.</p>\n",
      c.sweeps, c.last_sweep_seconds, c.ports.size());
  if (e.rows.empty()) {
    out += "<p id=\"no-errors\">No port has counted an error.</p></section>\n";
    return out;
  }
  out +=
      "<table class=\"errors\"><tr><th>Level</th><th>Node</th><th>GUID</th><th>Port</th>"
      "<th>Peer</th><th>Errors</th><th>New</th><th>Per second</th><th>Counters</th></tr>\n";
  std::size_t shown = 0;
  for (const PortErrorRow& r : e.rows) {
    if (shown++ == kMaxErrorRows) break;
    const perfmgr::PortCounterRow& p = *r.port;
    out += "<tr class=\"err ";
    out += error_level_class(r.level);
    out += "\" data-node=\"";
    markup::guid(out, p.guid);
    out += "\" data-port=\"";
    number(out, p.port);
    out += "\"><td>";
    out += error_level_class(r.level);
    out += "</td><td>";
    escaped(out, p.name);
    out += "</td><td>";
    markup::guid(out, p.guid);
    out += "</td><td>";
    number(out, p.port);
    out += "</td><td>";
    if (p.remote_valid) {
      escaped(out, p.remote_name);
      out += " port ";
      number(out, p.remote_port);
    }
    out += "</td><td>";
    number(out, r.total);
    out += "</td><td>";
    number(out, r.increase);
    out += "</td><td>";
    out += r.per_second < 0 ? std::string("?") : fmt::format("{:.3g}", r.per_second);
    out += "</td><td>";
    bool first = true;
    for (std::size_t i = 0; i < perfmgr::kErrCount; ++i) {
      if (p.err.v[i] == 0 || i == static_cast<std::size_t>(perfmgr::Err::kXmitWait)) continue;
      out += first ? "" : ", ";
      first = false;
      out += perfmgr::kErrNames[i].iba;
      out += ' ';
      number(out, p.err.v[i]);
    }
    out += "</td></tr>\n";
  }
  out += "</table>\n";
  if (e.rows.size() > kMaxErrorRows)
    out += fmt::format("<p>{} more ports with errors not shown (worst first above).</p>\n",
                       e.rows.size() - kMaxErrorRows);
  out += "</section>\n";
  return out;
}

constexpr std::string_view kPageStyle = R"(<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fafafa}
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.1em;margin:1em 0 .3em}
table{border-collapse:collapse}th,td{padding:2px 10px 2px 0;text-align:left;vertical-align:top}
table.errors th{border-bottom:1px solid #999}table.errors td{border-bottom:1px solid #ddd}
.cols{display:flex;flex-wrap:wrap;gap:3em}
tr.err.high td:first-child{color:#c00;font-weight:bold}tr.err.rising td:first-child{color:#c60}
tr.err.past td:first-child{color:#888}
tr.unhealthy.isolate td:nth-child(2),tr.unhealthy.disable td:nth-child(2){color:#c00;font-weight:bold}
.guid{color:#666;font-size:.9em}
.topo{overflow:auto;max-height:80vh;border:1px solid #ccc;background:#fff}
.legend span{display:inline-block;width:1em;height:.6em;margin:0 .3em 0 1em}
</style>
)";

// Swaps in the page's <main> every kRefreshSeconds; nothing else.
constexpr std::string_view kRefreshScript = R"(<script>
(function(){var ms=%MS%;function tick(){fetch(location.pathname,{cache:'no-store'})
.then(function(r){return r.ok?r.text():null}).then(function(t){if(!t)return;
var m=new DOMParser().parseFromString(t,'text/html').getElementById('status');
if(m)document.getElementById('status').replaceWith(m)}).catch(function(){})
.then(function(){setTimeout(tick,ms)})}setTimeout(tick,ms)})();
</script>
)";

}  // namespace

bool parts_match(const StatusParts& parts, const OpsSnapshot& s) {
  return parts.fabric == s.fabric.get() &&
         parts.fabric_generation == (s.fabric ? s.fabric->generation : 0) &&
         parts.counters == s.perf_counters;
}

std::shared_ptr<const StatusParts> status_parts(const OpsSnapshot& s, const ErrorTotals* before) {
  auto parts = std::make_shared<StatusParts>();
  parts->fabric = s.fabric.get();
  parts->fabric_generation = s.fabric ? s.fabric->generation : 0;
  parts->counters = s.perf_counters;
  parts->fabric_html = fabric_section(s, s.fabric.get());
  const PortErrors errors = port_errors(s.perf_counters, before);
  parts->errors_html = errors_section(s, errors);
  if (s.fabric)
    parts->svg = topology_svg(lay_out(*s.fabric), *s.fabric, errors, s.node_names.get());
  return parts;
}

std::string status_page(const OpsSnapshot& s, const StatusParts* parts) {
  std::string out;
  out.reserve(8192 + (parts ? parts->svg.size() + parts->errors_html.size() : 0));
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>ibsm ";
  out += mad::sm_state_name(s.state);
  out += "</title>\n";
  out += kPageStyle;
  out += "</head><body>\n<main id=\"status\" data-generation=\"";
  number(out, s.generation);
  out += "\">\n<h1>ibsm status</h1>\n<p>As of ";
  out += utc(s.published);
  out += fmt::format(" (refreshed every {} s). <a href=\"/metrics\">/metrics</a></p>\n",
                     kRefreshSeconds);
  out += "<div class=\"cols\">\n";
  out += sm_section(s);
  // On big fabrics the SM drops its fabric snapshot while it builds the next: the
  // summary made with the parts stands in.
  out += s.fabric || !parts ? fabric_section(s, s.fabric.get()) : parts->fabric_html;
  out += "</div>\n";
  out += "<section id=\"topology-section\"><h2>Topology</h2>\n";
  if (parts && !parts->svg.empty()) {
    out +=
        "<p class=\"legend\">Switches by tier (leaves at the bottom, green boxes: their hosts) "
        "or as a graph. Links and ports:<span style=\"background:#9ab\"></span>no errors"
        "<span style=\"background:#db8\"></span>errors before<span style=\"background:#e80\">"
        "</span>rising<span style=\"background:#d00\"></span>rising fast (&ge; 1/s). Hover for "
        "names. <a href=\"/topology.svg\">Full size</a></p>\n<div class=\"topo\">\n";
    out += parts->svg;
    out += "</div>\n";
  } else {
    out += "<p>No fabric yet.</p>\n";
  }
  out += "</section>\n";
  out += parts ? parts->errors_html : errors_section(s, port_errors(s.perf_counters, nullptr));
  out += health_section(s);
  out += cabling_sections(s);
  out += "</main>\n";
  std::string script(kRefreshScript);
  script.replace(script.find("%MS%"), 4, std::to_string(kRefreshSeconds * 1000));
  out += script;
  out += "</body></html>\n";
  return out;
}

}  // namespace ibsm::metrics
