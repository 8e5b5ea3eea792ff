// status and events: the SM's state, priority, routing, MAD counters and last sweeps
// (OpenSM's status, with ibsm's additions), and the history of the events stream.
#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "ctl/reports/families.hpp"

namespace ibsm::ctl::reports {

Answer status(const OpsSnapshot& s, const ops::EventBus& events) {
  Answer a;
  std::string& t = a.text;
  const auto ev = events.stats();
  t += fmt::format("   ibsm version         : {}\n", s.version);
  t += fmt::format("   SM State             : {}\n", mad::sm_state_name(s.state));
  t += fmt::format("   SM Priority          : {}\n", s.priority);
  t += fmt::format("   SM Port GUID         : {}\n", hex16(s.port_guid));
  t += fmt::format("   SA State             : {}\n",
                   s.state == mad::SmState::kMaster ? "Ready" : "Not Ready");
  t += fmt::format("   Routing Engine       : {}{}\n",
                   s.routing.engine.empty() ? "(none yet)" : s.routing.engine,
                   s.routing.fallback ? " (fallback)" : "");
  t += fmt::format("   Sweeping             : {} (interval {} s), phase {}\n",
                   s.sweeping_enabled ? "enabled" : "DISABLED", s.sweep_interval_s, s.phase);
  t += fmt::format("   Sweeps               : {} ({} heavy)\n", s.sweeps, s.heavy_sweeps);
  t += fmt::format("   Status               : {}\n", s.status_line);
  t += "\n   Known SMs\n   Port GUID          SM State     Priority\n";
  t += fmt::format("   {} {:<12} {:<8} SELF\n", hex16(s.port_guid), mad::sm_state_name(s.state),
                   s.priority);
  for (const auto& o : s.other_sms)
    t += fmt::format("   {} {:<12} {:<8} LID {}{}\n", hex16(o.guid), mad::sm_state_name(o.state),
                     o.priority, o.lid, o.answered ? "" : " (not answering)");
  t += "\n   MAD stats\n";
  t += fmt::format(
      "   SMPs sent            : {}\n   SMPs received        : {}\n"
      "   SMP timeouts         : {}\n   SMP retries          : {}\n"
      "   SA MADs received     : {}\n   SA MADs answered     : {}\n",
      s.smp.sent, s.smp.received, s.smp.timeouts, s.smp.retries, s.sa.received, s.sa.answered);
  if (!s.recent_sweeps.empty()) {
    t += "\n   Last sweeps\n";
    const std::size_t from = s.recent_sweeps.size() > 5 ? s.recent_sweeps.size() - 5 : 0;
    for (std::size_t i = from; i < s.recent_sweeps.size(); ++i) {
      const auto& r = s.recent_sweeps[i];
      t += fmt::format("   #{} {} ({}) {:.3f} s, MADs {}, {}\n", r.number,
                       ops::sweep_kind_name(r.kind), r.reason, r.seconds, r.mads.sent,
                       r.standby     ? "standby"
                       : r.subnet_up ? "up"
                                     : "problems");
    }
  }
  t += fmt::format(
      "\n   Events               : {} emitted, {} dropped by slow readers, {} readers\n",
      ev.emitted, ev.dropped, ev.subscribers);
  t += "\n";
  JsonWriter j;
  j.begin_object()
      .field("version", s.version)
      .field("sm_state", mad::sm_state_name(s.state))
      .field("priority", s.priority)
      .field("port_guid", hex16(s.port_guid))
      .field("sm_lid", s.sm_lid)
      .field("sa_ready", s.state == mad::SmState::kMaster)
      .field("sweeping", s.sweeping_enabled)
      .field("sweep_interval_s", s.sweep_interval_s)
      .field("phase", s.phase)
      .field("sweeps", s.sweeps)
      .field("heavy_sweeps", s.heavy_sweeps)
      .field("status_line", s.status_line);
  j.key("routing")
      .begin_object()
      .field("engine", s.routing.engine)
      .field("fallback", s.routing.fallback)
      .field("ms", s.routing.ms)
      .field("graded", s.routing.graded)
      .field("pairs", s.routing.pairs)
      .field("unreachable", s.routing.unreachable)
      .field("loops", s.routing.loops)
      .field("acyclic", s.routing.acyclic)
      .field("max_efi", s.routing.max_efi)
      .field("mean_efi", s.routing.mean_efi)
      .end_object();
  j.key("sms").begin_array();
  for (const auto& o : s.other_sms)
    j.begin_object()
        .field("guid", hex16(o.guid))
        .field("lid", o.lid)
        .field("priority", o.priority)
        .field("state", mad::sm_state_name(o.state))
        .field("answered", o.answered)
        .end_object();
  j.end_array();
  j.key("mads")
      .begin_object()
      .field("smp_sent", s.smp.sent)
      .field("smp_received", s.smp.received)
      .field("smp_timeouts", s.smp.timeouts)
      .field("smp_retries", s.smp.retries)
      .field("sa_received", s.sa.received)
      .field("sa_answered", s.sa.answered)
      .field("sa_errors", s.sa.errors)
      .end_object();
  j.key("recent_sweeps").begin_array();
  for (const auto& r : s.recent_sweeps)
    j.begin_object()
        .field("sweep", r.number)
        .field("kind", ops::sweep_kind_name(r.kind))
        .field("reason", r.reason)
        .field("seconds", r.seconds)
        .field("mads_sent", r.mads.sent)
        .field("subnet_up", r.subnet_up)
        .field("standby", r.standby)
        .field("problems", r.problems)
        .end_object();
  j.end_array();
  j.key("events")
      .begin_object()
      .field("emitted", ev.emitted)
      .field("dropped", ev.dropped)
      .field("readers", ev.subscribers)
      .end_object();
  j.end_object();
  a.json = j.text();
  return a;
}

Answer events_history(const ops::EventBus& bus, std::size_t n) {
  Answer a;
  JsonWriter j;
  j.begin_object().key("events").begin_array();
  for (const auto& e : bus.history(n)) {
    a.text += ops::encode_text(*e) + "\n";
    j.raw(ops::encode_json(*e));
  }
  j.end_array().end_object();
  a.json = j.text();
  return a;
}

}  // namespace ibsm::ctl::reports
