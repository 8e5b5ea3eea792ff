#include "metrics/fabric_health_html.hpp"

#include <spdlog/fmt/fmt.h>

#include "cabling/deviation.hpp"
#include "metrics/markup.hpp"
#include "ops/event.hpp"

namespace ibsm::metrics {

namespace {

using markup::escaped;
using markup::number;

// <td>GUID[PORT] name</td>, or an empty cell for no end (GUID 0).
void end_cell(std::string& out, std::uint64_t guid, unsigned port, std::string_view name) {
  out += "<td>";
  if (guid != 0) {
    escaped(out, name);
    out += " <span class=\"guid\">";
    markup::guid(out, guid);
    out += '[';
    number(out, port);
    out += "]</span>";
  } else {
    out += "(no link)";
  }
  out += "</td>";
}

void text_cell(std::string& out, std::string_view text) {
  out += "<td>";
  escaped(out, text);
  out += "</td>";
}

// <tr class="CLASS WORD" data-node="GUID" data-port="N">: WORD escaped (it comes from
// the snapshot, not from a closed list here).
void row_start(std::string& out, std::string_view cls, std::string_view word, std::uint64_t guid,
               unsigned port) {
  out += "<tr class=\"";
  out += cls;
  out += ' ';
  escaped(out, word);
  out += "\" data-node=\"";
  markup::guid(out, guid);
  out += "\" data-port=\"";
  number(out, port);
  out += "\">";
}

void left_out(std::string& out, std::size_t total, std::string_view what) {
  if (total > kMaxHealthRows)
    out += fmt::format("<p>{} more {} not shown.</p>\n", total - kMaxHealthRows, what);
}

// "report (asked isolate: host_only_link)" when milder than the key asks.
std::string action_shown(const ops::UnhealthyPort& p) {
  if (p.asked.empty() || p.asked == p.action) return p.action;
  return p.action + " (asked " + p.asked + (p.downgrade.empty() ? "" : ": ") + p.downgrade + ")";
}

void deviation_table(std::string& out, const std::vector<cabling::Deviation>& list,
                     std::string_view what) {
  out +=
      "<table class=\"errors\"><tr><th>Kind</th><th>Port</th><th>Peer</th><th>Expected</th>"
      "<th>Found</th></tr>\n";
  std::size_t shown = 0;
  for (const auto& d : list) {
    if (shown++ == kMaxHealthRows) break;
    const std::string_view kind = cabling::deviation_kind_name(d.kind);
    row_start(out, "deviation", kind, d.local.guid, d.local.port);
    text_cell(out, kind);
    end_cell(out, d.local.guid, d.local.port, d.local.name);
    end_cell(out, d.remote.guid, d.remote.port, d.remote.name);
    text_cell(out, d.expected);
    text_cell(out, d.found);
    out += "</tr>\n";
  }
  out += "</table>\n";
  left_out(out, list.size(), what);
}

}  // namespace

std::string health_section(const ops::OpsSnapshot& s) {
  const ops::HealthStatus none;  // no status published (tests, older snapshots)
  const ops::HealthStatus& h = s.health ? *s.health : none;
  std::string out = "<section id=\"health\"><h2>Unhealthy ports</h2>\n<p id=\"health-summary\">";
  if (!h.enabled) out += "Health checks are off (hm_unhealthy_ports_checks). ";
  out += fmt::format("{} unhealthy, {} isolated (at most {}).", h.ports.size(), h.isolated,
                     h.max_isolated);
  if (!h.policy_file.empty()) {
    out += " Policy file ";
    escaped(out, h.policy_file);
    if (h.policy_ok) {
      out += " read.";
    } else {
      out += " <strong id=\"health-policy-error\">in error, the last good policy stays: ";
      escaped(out, h.policy_error);
      out += "</strong>";
    }
  }
  out += "</p>\n";
  if (h.ports.empty()) {
    out += "</section>\n";
    return out;
  }
  out +=
      "<table class=\"errors\"><tr><th>Condition</th><th>Action</th><th>Port</th><th>Peer</th>"
      "<th>Since</th><th>Detail</th></tr>\n";
  std::size_t shown = 0;
  for (const auto& p : h.ports) {
    if (shown++ == kMaxHealthRows) break;
    row_start(out, "unhealthy", p.action, p.node_guid, p.port);
    text_cell(out, p.condition);
    text_cell(out, action_shown(p));
    end_cell(out, p.node_guid, p.port, p.node_name);
    end_cell(out, p.remote_guid, p.remote_port, p.remote_name);
    text_cell(out, ops::format_utc(p.since));
    text_cell(out, p.detail);
    out += "</tr>\n";
  }
  out += "</table>\n";
  left_out(out, h.ports.size(), "unhealthy ports");
  out += "</section>\n";
  return out;
}

std::string cabling_sections(const ops::OpsSnapshot& s) {
  const ops::CablingStatus none;  // before the SM's first publish only
  const ops::CablingStatus& c = s.cabling ? *s.cabling : none;
  std::string out = "<section id=\"cabling\"><h2>Cabling</h2>\n<p id=\"cabling-summary\">";
  if (c.file.empty()) {
    out += "No topo_config_file: the cabling is not compared.</p>\n";
  } else {
    out += "topo_config_file ";
    escaped(out, c.file);
    if (!c.file_ok) {
      out += c.file_loaded ? " <strong>in error, the last good one is in force: "
                           : " <strong>in error, none in force: ";
      escaped(out, c.error);
      out += "</strong>";
    }
    if (!c.file_loaded) {
      out += "</p>\n";
    } else if (!c.checked) {
      out += ": no heavy sweep has compared the cabling yet.</p>\n";
    } else {
      out += fmt::format(": {} deviations at the heavy sweep of {}.</p>\n", c.deviations.size(),
                         ops::format_utc(c.when));
      if (!c.deviations.empty()) deviation_table(out, c.deviations, "deviations");
    }
  }
  out += "</section>\n";
  out += "<section id=\"degraded\"><h2>Degraded links</h2>\n<p id=\"degraded-summary\">";
  if (!c.checked) {
    out += "No heavy sweep has checked the links yet.</p>\n</section>\n";
    return out;
  }
  out += fmt::format(
      "{} links below the best width or speed both ends support (heavy sweep of {}).</p>\n",
      c.degraded.size(), ops::format_utc(c.when));
  if (!c.degraded.empty()) deviation_table(out, c.degraded, "degraded links");
  out += "</section>\n";
  return out;
}

}  // namespace ibsm::metrics
