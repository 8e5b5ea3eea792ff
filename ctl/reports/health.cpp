// health: the ports the health policy judges unhealthy (ops::HealthStatus, issue 35),
// one a line with both ends of the link named; --json is an array of one object a port.
#include <string>

#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "ctl/reports/families.hpp"
#include "ops/event.hpp"

namespace ibsm::ctl::reports {

namespace {

// "isolate", or "report (asked isolate: host_only_link)" when the action is milder
// than the hm_*_action key asks.
std::string health_action_text(const ops::UnhealthyPort& p) {
  if (p.asked.empty() || p.asked == p.action) return p.action;
  return fmt::format("{} (asked {}{}{})", p.action, p.asked, p.downgrade.empty() ? "" : ": ",
                     p.downgrade);
}

// flapping     0x0000000000200002[3] "leaf1" - 0x0000000000200000[1] "spine1": isolate,
//              since 2026-12-08T00:20:00.000Z, flapped in 5 of the last 30 sweeps
std::string health_line(const ops::UnhealthyPort& p) {
  const std::string remote = p.remote_guid == 0 ? std::string("(no link)")
                                                : fmt::format("{}[{}] \"{}\"", hex16(p.remote_guid),
                                                              p.remote_port, p.remote_name);
  return fmt::format("{:<12} {}[{}] \"{}\" - {}: {}, since {}{}{}\n", p.condition,
                     hex16(p.node_guid), p.port, p.node_name, remote, health_action_text(p),
                     ops::format_utc(p.since), p.detail.empty() ? "" : ", ", p.detail);
}

std::string health_json(const std::vector<ops::UnhealthyPort>& ports) {
  JsonWriter w;
  w.reserve(ports.size() * 384 + 2);
  w.begin_array();
  for (const auto& p : ports) {
    w.begin_object()
        .field("node_guid", hex16(p.node_guid))
        .field("port", static_cast<unsigned>(p.port))
        .field("port_guid", hex16(p.port_guid))
        .field("node_name", p.node_name)
        .field("is_switch", p.is_switch)
        .field("condition", p.condition)
        .field("action", p.action)
        .field("asked", p.asked)
        .field("downgrade", p.downgrade)
        .field("detail", p.detail)
        .field("since", ops::format_utc(p.since))
        .field("remote_guid", hex16(p.remote_guid))
        .field("remote_port", static_cast<unsigned>(p.remote_port))
        .field("remote_name", p.remote_name)
        .end_object();
  }
  w.end_array();
  return std::move(w).take();
}

}  // namespace

Answer health(const OpsSnapshot& s) {
  const ops::HealthStatus none;  // before the SM's first publish, or an older snapshot
  const ops::HealthStatus& h = s.health ? *s.health : none;
  Answer a;
  a.json = health_json(h.ports);
  if (!h.enabled) a.text = "health checks off (hm_unhealthy_ports_checks FALSE)\n";
  a.text += fmt::format("{} unhealthy ports, {} isolated (at most {})\n", h.ports.size(),
                        h.isolated, h.max_isolated);
  if (h.policy_file.empty())
    a.text += "no hm_ports_health_policy_file\n";
  else if (h.policy_ok)
    a.text += fmt::format("policy file {}: read\n", h.policy_file);
  else
    a.text += fmt::format("policy file {} IN ERROR, the last good policy stays: {}\n",
                          h.policy_file, h.policy_error);
  if (!h.dump_file.empty()) a.text += fmt::format("dump file {}\n", h.dump_file);
  for (const auto& p : h.ports)
    a.text += health_line(p);
  return a;
}

}  // namespace ibsm::ctl::reports
