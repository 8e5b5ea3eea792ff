// The SM's side of the operator seam (ops/): the SM's thin calls into its publishing
// components (sm/publish/: the OpsSnapshot, events, sweep records, the PerfMgr's
// counters), and the dispatch of the changing requests it carries out between MAD polls
// (what a request does to a subsystem rather than the SM is in sm/control/). Everything
// here runs on the SM's thread.
#include <spdlog/fmt/fmt.h>

#include "common/log.hpp"
#include "common/log_modules.hpp"
#include "common/text.hpp"
#include "conf/log_settings.hpp"
#include "ops/errors.hpp"
#include "sm/control/subsystem_requests.hpp"
#include "sm/health/errors.hpp"
#include "sm/subnet_manager.hpp"

namespace ibsm::sm {

void SubnetManager::emit(ops::EventType type, std::vector<ops::EventField> fields) {
  publish_.ops.emit(type, std::move(fields));
}

void SubnetManager::publish_ops() {
  ops::OpsSnapshot s;
  s.state = state();
  s.priority = options_.sm_priority;
  s.master_priority = options_.master_sm_priority;
  s.port_guid = transport_.local_port().port_guid;
  s.sm_lid = sm_lid_;
  s.master_guid = election_.polled();
  for (const auto& [guid, r] : election_.remotes())
    s.other_sms.push_back({guid, r.lid, r.priority, r.state, r.answered});
  s.status_line = status_line();
  s.sweeping_enabled = loop_.sweeping_enabled;
  s.sweep_interval_s = options_.sweep_interval;
  s.phase = std::string(phase_name(loop_.phase));
  s.smp = client_.counters();
  s.sa = sa_.counters();
  s.sa_refused = sa_.state().refused;
  s.perf_answers_refused = perfmgr_.stats().refused;
  s.perfmgr_enabled = perfmgr_.enabled();
  s.perf_counters = publish_.perf.counters();
  s.fabric = sa_.snapshot();
  s.node_names = node_names_.snapshot();
  publish_.ops.publish(std::move(s), options_);
}

void SubnetManager::publish_perf_counters() {
  if (!publish_.perf.refresh(perfmgr_.stats().sweeps,
                             [this] { return perfmgr_.counter_snapshot(); }))
    return;
  // Fabric health's error-rate condition: the increase since the last PerfMgr sweep.
  if (const auto& c = publish_.perf.counters(); c && state() == mad::SmState::kMaster) {
    publish_.health.on_counters(fabric_, *c);
    act_on_health(fabric_, false);
  }
  publish_ops();
}

void SubnetManager::release_big_fabric() {
  publish_.ops.release_big_fabric();
}

void SubnetManager::record_sweep(ops::SweepKind kind, std::string reason, const SweepResult& r,
                                 std::chrono::system_clock::time_point started) {
  publish::SweepOutcome o;
  o.subnet_up = r.subnet_up;
  o.standby = r.standby;
  o.seconds = r.seconds;
  o.mads = r.mads;
  o.problems = r.report.problems.size();
  o.nodes = r.nodes;
  o.switches = r.switches;
  o.end_ports = r.end_ports;
  publish_.ops.record_sweep(kind, std::move(reason), o, started);
  publish_ops();
}

void SubnetManager::note_routing(const std::string& engine, double ms,
                                 const routing::RouteReport* grade) {
  publish_.ops.note_routing(engine, router_.engine_chain(), ms, grade);
}

void SubnetManager::take_control_requests() {
  for (ops::ControlRequest& req : publish_.ops.ops().control.take())
    carry_out(req);
  // Multicast groups created and deleted since the last look.
  if (publish_.ops.observe_groups(sa_.state().mcast)) publish_ops();
}

void SubnetManager::carry_out(ops::ControlRequest& req) {
  if (req.changes) {  // read-only requests (perfmgr print_counters...) are not logged
    log_->info("control: uid {} asked '{}'", req.uid, req.command);
    emit(ops::EventType::kControl,
         {{"uid", static_cast<std::uint64_t>(req.uid)}, {"command", req.command}});
  }
  const bool may_sweep = state() == mad::SmState::kMaster || state() == mad::SmState::kDiscovering;
  auto answer = [&](bool ok, std::string text, std::uint16_t id = 0) {
    req.reply(ops::ControlReply{ok, id, std::move(text)});
  };
  auto not_sweeping = [&] {
    answer(false,
           fmt::format("this SM is {}: only a MASTER or DISCOVERING SM sweeps (IBA 14.4.1)",
                       mad::sm_state_name(state())),
           ops::kErrNotSweeping.code);
  };
  switch (req.action) {
    case ops::ControlAction::kResweepHeavy:
    case ops::ControlAction::kUpdateDesc:
      if (!may_sweep) return not_sweeping();
      loop_.heavy_reason = HeavyReason::kForced;
      publish_.ops.wait_for_sweep(true, std::move(req.reply));
      return;
    case ops::ControlAction::kResweepLight:
      if (!may_sweep) return not_sweeping();
      loop_.next_sweep = clock_.now();  // a light sweep unless a heavy one is due anyway
      publish_.ops.wait_for_sweep(false, std::move(req.reply));
      return;
    case ops::ControlAction::kReroute:
      if (!may_sweep || !first_master_sweep_done_ || fabric_.size() == 0) {
        if (!may_sweep) return not_sweeping();
        return answer(false, "no fabric model yet: the first heavy sweep has not finished",
                      ops::kErrNoModel.code);
      }
      loop_.reroute_requested = true;
      publish_.ops.wait_for_sweep(true, std::move(req.reply));
      return;
    case ops::ControlAction::kSweepOn:
    case ops::ControlAction::kSweepOff:
      loop_.sweeping_enabled = req.action == ops::ControlAction::kSweepOn;
      log_->info("sweeping {}", loop_.sweeping_enabled ? "enabled" : "disabled (sweep off)");
      publish_ops();
      return answer(true, loop_.sweeping_enabled ? "sweeping enabled" : "sweeping disabled");
    case ops::ControlAction::kPriority: {
      const int p = std::stoi(req.arg);  // the parser checked 0-15
      options_.sm_priority = static_cast<std::uint8_t>(p);
      apply_options(options_);
      election_.tick();
      take_election_requests();
      publish_ops();
      return answer(true, fmt::format("Setting sm-priority to {}", p));
    }
    case ops::ControlAction::kHandover: {
      if (state() != mad::SmState::kMaster)
        return answer(
            false,
            fmt::format("this SM is {}: only a MASTER hands over", mad::sm_state_name(state())),
            ops::kErrNotMaster.code);
      if (!election_.hand_over_manually())
        return answer(false, "no other SM answering that could take over; staying MASTER",
                      ops::kErrNoStandby.code);
      emit(ops::EventType::kElection,
           {{"action", std::string("handover")}, {"uid", static_cast<std::uint64_t>(req.uid)}});
      publish_ops();
      return answer(
          true, fmt::format("handover started; this SM is now {}", mad::sm_state_name(state())));
    }
    case ops::ControlAction::kLogLevel: {
      const unsigned level = static_cast<unsigned>(std::stoul(req.arg, nullptr, 0));
      options_.log_flags = static_cast<std::uint8_t>(level);
      update_log_settings(log_, conf::log_settings(options_));
      publish_ops();
      return answer(true, fmt::format("Setting log level to 0x{:x}", level));
    }
    case ops::ControlAction::kLogFlush: {
      const bool on = req.arg == "on";
      options_.force_log_flush = on;
      update_log_settings(log_, conf::log_settings(options_));
      log_->flush();
      publish_ops();
      return answer(true,
                    on ? "log flushed; every line is now flushed" : "log lines are now buffered");
    }
    case ops::ControlAction::kPerfmgr:
      return control::carry_out_perfmgr(perfmgr_, options_.dump_files_dir, req,
                                        [this] { publish_ops(); });
    case ops::ControlAction::kPermodlog:
      return control::carry_out_permodlog(log_, options_.per_module_logging_file,
                                          options_.log_flags, req);
    case ops::ControlAction::kReloadNodeNames: {
      const Status st = reload_node_names();
      if (!st.ok())  // the last good map stays in force
        return answer(false, st.error().message + "; the map in force is kept", st.error().id.code);
      publish_ops();
      const auto map = node_names_.snapshot();
      return answer(true,
                    map->source().empty()
                        ? std::string("no node name map (node_name_map_name unset and "
                                      "/etc/opensm/ib-node-name-map absent)")
                        : fmt::format("node name map {}: {} names", map->source(), map->size()));
    }
    case ops::ControlAction::kReloadConfig:
      if (hooks_.hangup) hooks_.hangup();
      partitions_.reload();
      static_cast<void>(reload_topology());
      reload_health_policy();
      act_on_health(fabric_, false);
      loop_.heavy_reason = HeavyReason::kForced;
      publish_ops();
      return answer(true, "configuration re-read; heavy sweep requested");
    case ops::ControlAction::kHealthClear:
      return clear_unhealthy_port(req);
  }
}

// ibsm-ctl health clear GUID PORT: words {"0x<node guid>", "<port>"}.
void SubnetManager::clear_unhealthy_port(ops::ControlRequest& req) {
  auto answer = [&](bool ok, std::string text, std::uint16_t id = 0) {
    req.reply(ops::ControlReply{ok, id, std::move(text)});
  };
  if (req.words.size() != 2)
    return answer(false, "health clear: GUID PORT expected", health::kErrHealthClearUnknown.code);
  char* end = nullptr;
  const std::string& g = req.words[0];
  const std::uint64_t guid = std::strtoull(g.c_str(), &end, 16);
  const bool guid_ok = !g.empty() && end && *end == '\0';
  const unsigned long port = std::strtoul(req.words[1].c_str(), &end, 10);
  if (!guid_ok || !end || *end != '\0' || req.words[1].empty() || port > 254)
    return answer(false, fmt::format("health clear: '{} {}' is not GUID PORT", g, req.words[1]),
                  health::kErrHealthClearUnknown.code);
  const health::PortKey key{guid, static_cast<PortNum>(port)};
  if (!publish_.health.clear(key))
    return answer(
        false,
        fmt::format("{}: port {} {} is not unhealthy",
                    format_error_id(health::kErrHealthClearUnknown), hex_guid(guid), port),
        health::kErrHealthClearUnknown.code);
  act_on_health(fabric_, false);
  return answer(true, fmt::format("port {} {} cleared: healthy again", hex_guid(guid), port));
}

SweepResult SubnetManager::reroute_sweep(const std::atomic<bool>& stop) {
  log_->info("REROUTE: routes recomputed from the last fabric model, no rediscovery");
  PreparedFabric prepared{fabric_, clock_.now(), client_.counters(),
                          std::vector<bool>(fabric_.size(), false)};
  return heavy_sweep(stop, &prepared);
}

}  // namespace ibsm::sm
