// The SM's side of the operator seam (sm/ops/): what it publishes for ibsm-ctl and the
// metrics, the events it emits, and the changing requests it carries out between MAD
// polls. Everything here runs on the SM's thread.
#include <spdlog/fmt/fmt.h>

#include "common/log.hpp"
#include "common/log_modules.hpp"
#include "conf/log_settings.hpp"
#include "conf/per_module_logging.hpp"
#include "perfmgr/console.hpp"
#include "sm/subnet_manager.hpp"

namespace ibsm::sm {

namespace {

std::string gid_text(const sa::Gid& g) {
  std::string out;
  for (std::size_t i = 0; i < g.size(); i += 2) {
    if (i) out += ':';
    out += fmt::format("{:04x}", (g[i] << 8) | g[i + 1]);
  }
  return out;
}

std::vector<ops::EventField> mad_fields(const mad::SmpCounters& m) {
  return {{"mads_sent", m.sent},
          {"mads_received", m.received},
          {"mads_timeouts", m.timeouts},
          {"mads_retries", m.retries}};
}

}  // namespace

void SubnetManager::emit(ops::EventType type, std::vector<ops::EventField> fields) {
  ops_.events.emit(type, std::move(fields));
}

void SubnetManager::publish_ops() {
  auto s = std::make_shared<ops::OpsSnapshot>();
  s->generation = ++ops_generation_;
  s->published = std::chrono::system_clock::now();
  s->started = started_;
  s->version = version_;
  s->state = state();
  s->priority = options_.sm_priority;
  s->master_priority = options_.master_sm_priority;
  s->port_guid = transport_.local_port().port_guid;
  s->sm_lid = sm_lid_;
  s->master_guid = election_.polled();
  for (const auto& [guid, r] : election_.remotes())
    s->other_sms.push_back({guid, r.lid, r.priority, r.state, r.answered});
  s->status_line = status_line();
  s->sweeping_enabled = sweeping_enabled_;
  s->sweep_interval_s = options_.sweep_interval;
  s->sweeps = sweeps_;
  s->heavy_sweeps = heavy_sweeps_;
  s->phase = std::string(phase_name(phase_));
  s->recent_sweeps.assign(recent_sweeps_.begin(), recent_sweeps_.end());
  s->last_subnet_up = last_subnet_up_;
  s->sweep_durations = sweep_durations_;
  s->smp = client_.counters();
  s->sa = sa_.counters();
  s->sa_refused = sa_.state().refused;
  s->perf_answers_refused = perfmgr_.stats().refused;
  s->routing = routing_outcome_;
  for (const auto& [mlid, g] : mcast_known_)
    s->mcast_groups.push_back(g);
  s->partitions = partitions_status_;
  s->perfmgr_enabled = perfmgr_.enabled();
  s->perf_counters = perf_counters_;
  if (!options_shared_ || !(*options_shared_ == options_))
    options_shared_ = std::make_shared<const conf::Options>(options_);
  s->options = options_shared_;
  s->fabric = sa_.snapshot();
  s->node_names = node_names_.snapshot();
  ops_.snapshot.publish(std::move(s));
}

void SubnetManager::publish_perf_counters() {
  if (perfmgr_.stats().sweeps == perf_published_sweeps_) return;
  perf_published_sweeps_ = perfmgr_.stats().sweeps;
  perf_counters_ = perfmgr_.counter_snapshot();
  publish_ops();
}

void SubnetManager::release_big_fabric() {
  auto cur = ops_.snapshot.current();
  if (!cur || !cur->fabric || cur->fabric->nodes.size() <= ops::OpsSnapshot::kBigFabricNodes)
    return;
  auto copy = std::make_shared<ops::OpsSnapshot>(*cur);
  copy->fabric.reset();
  ops_.snapshot.publish(std::move(copy));
}

void SubnetManager::record_sweep(ops::SweepKind kind, std::string reason, const SweepResult& r,
                                 std::chrono::system_clock::time_point started) {
  ops::SweepRecord rec;
  rec.number = ++sweeps_;
  if (kind != ops::SweepKind::kLight) ++heavy_sweeps_;
  rec.kind = kind;
  rec.reason = std::move(reason);
  rec.started = started;
  rec.seconds = r.seconds;
  rec.mads = r.mads;
  rec.subnet_up = r.subnet_up;
  rec.standby = r.standby;
  rec.problems = r.report.problems.size();
  rec.nodes = r.nodes;
  rec.switches = r.switches;
  rec.end_ports = r.end_ports;
  sweep_durations_[static_cast<std::size_t>(kind)].observe(r.seconds);
  if (r.subnet_up && kind != ops::SweepKind::kLight)
    last_subnet_up_ = std::chrono::system_clock::now();
  std::vector<ops::EventField> f = {{"sweep", rec.number},
                                    {"kind", std::string(ops::sweep_kind_name(kind))},
                                    {"reason", rec.reason},
                                    {"seconds", rec.seconds},
                                    {"subnet_up", rec.subnet_up},
                                    {"standby", rec.standby},
                                    {"problems", static_cast<std::uint64_t>(rec.problems)}};
  for (auto& m : mad_fields(rec.mads))
    f.push_back(std::move(m));
  if (kind != ops::SweepKind::kLight) {
    f.push_back({"nodes", static_cast<std::uint64_t>(rec.nodes)});
    f.push_back({"switches", static_cast<std::uint64_t>(rec.switches)});
    f.push_back({"end_ports", static_cast<std::uint64_t>(rec.end_ports)});
  }
  emit(ops::EventType::kSweepFinished, std::move(f));
  recent_sweeps_.push_back(std::move(rec));
  while (recent_sweeps_.size() > ops::OpsSnapshot::kRecentSweeps)
    recent_sweeps_.pop_front();
  answer_sweep_waiters(r, kind);
  publish_ops();
}

void SubnetManager::answer_sweep_waiters(const SweepResult& r, ops::SweepKind kind) {
  if (sweep_waiters_.empty()) return;
  std::vector<SweepWaiter> keep;
  for (SweepWaiter& w : sweep_waiters_) {
    // A heavy request is answered by a heavy (or targeted/reroute) sweep; a light one by any.
    if (w.heavy && kind == ops::SweepKind::kLight) {
      keep.push_back(std::move(w));
      continue;
    }
    ops::ControlReply reply;
    reply.ok = r.subnet_up || r.standby;
    reply.text = fmt::format("{} sweep {} done in {:.3f} s: {}; MADs sent {}, received {}",
                             ops::sweep_kind_name(kind), sweeps_, r.seconds,
                             r.standby     ? "stopped by the election (another SM is master)"
                             : r.subnet_up ? "subnet up"
                                           : fmt::format("{} problems", r.report.problems.size()),
                             r.mads.sent, r.mads.received);
    if (!reply.ok) reply.error_id = 8040;  // ctl::kErrSweepFailed (ctl/errors.hpp)
    w.reply(std::move(reply));
  }
  sweep_waiters_ = std::move(keep);
}

void SubnetManager::note_routing(const std::string& engine, double ms,
                                 const routing::RouteReport* grade) {
  if (grade == nullptr) {
    routing_outcome_ = {};
    routing_outcome_.engine = engine;
    routing_outcome_.chain = router_.engine_chain();
    routing_outcome_.fallback =
        !router_.engine_chain().empty() && engine != router_.engine_chain().front();
    routing_outcome_.ms = ms;
    routing_outcome_.when = std::chrono::system_clock::now();
    return;
  }
  ops::RoutingOutcome& o = routing_outcome_;
  o.graded = true;
  o.pairs = grade->pairs;
  o.unreachable = grade->unreachable;
  o.loops = grade->loops;
  o.acyclic = grade->acyclic();
  o.max_efi = grade->max_efi;
  o.mean_efi = grade->mean_efi;
  emit(ops::EventType::kRouting, {{"engine", o.engine},
                                  {"fallback", o.fallback},
                                  {"ms", o.ms},
                                  {"pairs", o.pairs},
                                  {"unreachable", o.unreachable},
                                  {"loops", o.loops},
                                  {"acyclic", o.acyclic},
                                  {"max_efi", o.max_efi},
                                  {"mean_efi", o.mean_efi}});
}

void SubnetManager::report_fabric_changes() {
  auto snap = sa_.snapshot();
  if (!snap) return;
  ops::PortIndex now = ops::index_ports(*snap);
  for (ops::FabricChange& c : ops::diff_fabric(port_index_, now))
    emit(c.type, std::move(c.fields));
  port_index_ = std::move(now);
}

void SubnetManager::take_control_requests() {
  for (ops::ControlRequest& req : ops_.control.take())
    carry_out(req);
  // Multicast groups created and deleted since the last look (joins and leaves are
  // handled by the SA between polls; the store counts every change).
  const sa::McGroupStore& groups = sa_.state().mcast;
  if (groups.changes_seen() != mcast_changes_seen_ ||
      groups.groups().size() != mcast_known_.size()) {
    mcast_changes_seen_ = groups.changes_seen();
    std::map<Lid, ops::McastGroupInfo> now;
    for (const auto& [mgid, g] : groups.groups()) {
      ops::McastGroupInfo& i = now[g.mlid];
      if (i.mlid == 0) i = {g.mlid, gid_text(mgid), g.pkey, 0};
      i.members += g.members.size();
    }
    for (const auto& [mlid, g] : now)
      if (!mcast_known_.contains(mlid))
        emit(ops::EventType::kMcastGroupCreated, {{"mlid", static_cast<std::uint64_t>(mlid)},
                                                  {"mgid", g.mgid},
                                                  {"pkey", fmt::format("0x{:04x}", g.pkey)}});
    for (const auto& [mlid, g] : mcast_known_)
      if (!now.contains(mlid))
        emit(ops::EventType::kMcastGroupDeleted,
             {{"mlid", static_cast<std::uint64_t>(mlid)}, {"mgid", g.mgid}});
    mcast_known_ = std::move(now);
    publish_ops();
  }
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
           8041);  // ctl::kErrNotSweeping
  };
  switch (req.action) {
    case ops::ControlAction::kResweepHeavy:
    case ops::ControlAction::kUpdateDesc:
      if (!may_sweep) return not_sweeping();
      heavy_reason_ = HeavyReason::kForced;
      sweep_waiters_.push_back({true, std::move(req.reply)});
      return;
    case ops::ControlAction::kResweepLight:
      if (!may_sweep) return not_sweeping();
      next_sweep_ = clock_.now();  // a light sweep unless a heavy one is due anyway
      sweep_waiters_.push_back({false, std::move(req.reply)});
      return;
    case ops::ControlAction::kReroute:
      if (!may_sweep || !first_master_sweep_done_ || fabric_.size() == 0) {
        if (!may_sweep) return not_sweeping();
        return answer(false, "no fabric model yet: the first heavy sweep has not finished", 8042);
      }
      reroute_requested_ = true;
      sweep_waiters_.push_back({true, std::move(req.reply)});
      return;
    case ops::ControlAction::kSweepOn:
    case ops::ControlAction::kSweepOff:
      sweeping_enabled_ = req.action == ops::ControlAction::kSweepOn;
      log_->info("sweeping {}", sweeping_enabled_ ? "enabled" : "disabled (sweep off)");
      publish_ops();
      return answer(true, sweeping_enabled_ ? "sweeping enabled" : "sweeping disabled");
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
            8043);
      if (!election_.hand_over_manually())
        return answer(false, "no other SM answering that could take over; staying MASTER", 8044);
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
      return carry_out_perfmgr(req);
    case ops::ControlAction::kPermodlog:
      return carry_out_permodlog(req);
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
      if (on_hangup_) on_hangup_();
      partitions_.reload();
      heavy_reason_ = HeavyReason::kForced;
      publish_ops();
      return answer(true, "configuration re-read; heavy sweep requested");
  }
}

void SubnetManager::carry_out_perfmgr(ops::ControlRequest& req) {
  const std::string sub = req.words.empty() ? std::string() : req.words.front();
  // What reads the counters needs a running PerfMgr; the status, enable and the
  // settings work either way (OpenSM's console lets `perfmgr enable` start it).
  const bool needs_counters = sub == "print_counters" || sub == "print_errors" ||
                              sub == "dump_counters" || sub == "dump_redir";
  if (needs_counters && !perfmgr_.settings().enabled)
    return req.reply(
        {false, 8011,  // ctl::kErrNotAvailable
         "PerfMgr is off (perfmgr FALSE, or 'perfmgr disable'): no counters are collected; "
         "'perfmgr enable' starts it"});
  perfmgr::ConsoleReply r = perfmgr_command(perfmgr_, req.words, options_.dump_files_dir);
  auto to_control = [words = req.words](perfmgr::ConsoleReply c) {
    std::string text = std::move(c.text);
    while (!text.empty() && text.back() == '\n')
      text.pop_back();
    if (!c.ok) return ops::ControlReply{false, 8050, std::move(text)};  // ctl::kErrPerfmgr
    if (text.empty()) {
      text = "perfmgr";
      for (const std::string& w : words)
        text += " " + w;
      text += ": done";
    }
    return ops::ControlReply{true, 0, std::move(text)};
  };
  if (req.changes) publish_ops();
  if (r.format) {  // counters: this thread only copied them; the control thread formats
    ops::ControlReply later;
    later.finish = [format = std::move(r.format), to_control] { return to_control(format()); };
    return req.reply(std::move(later));
  }
  req.reply(to_control(std::move(r)));
}

void SubnetManager::carry_out_permodlog(ops::ControlRequest& req) {
  const std::string& file = options_.per_module_logging_file;
  if (req.words.empty()) {
    std::string text =
        fmt::format("Per module logging file: {}\n", file.empty() ? std::string("(none)") : file);
    text += "module      flags  (a module logs at log_flags 0x";
    text += fmt::format("{:02x} OR its flags)\n", options_.log_flags);
    text += conf::format_per_module_logging(log_);
    text.pop_back();
    return req.reply({true, 0, std::move(text)});
  }
  if (req.words.size() == 1) {  // reload: the file replaces every runtime change
    auto levels = conf::reload_per_module_logging(log_, file);
    if (!levels) return req.reply({false, levels.error().id.code, to_string(levels.error())});
    std::string text =
        fmt::format("per-module log flags re-read from {}", file.empty() ? "(none)" : file);
    for (const auto& w : levels->warnings) {
      log_->warn("{}: {}", format_error_id(w.id), w.message);
      text += fmt::format("\n{}: {}", format_error_id(w.id), w.message);
    }
    return req.reply({true, 0, std::move(text)});
  }
  const auto module = find_log_module(req.words[0]);  // the parser checked both words
  const unsigned flags = static_cast<unsigned>(std::stoul(req.arg));  // decimal, 0-0xFF
  if (!module || !set_module_log_flags(log_, *module, flags))
    return req.reply({false, 8011,  // ctl::kErrNotAvailable
                      "per-module logging is not available: this ibsm logs through one logger"});
  const std::string_view name = log_module_info(*module).name;
  log_->info("permodlog: module {} log flags set to 0x{:02x}", name, flags);
  req.reply({true, 0, fmt::format("Setting {} log flags to 0x{:02x}", name, flags)});
}

SweepResult SubnetManager::reroute_sweep(const std::atomic<bool>& stop) {
  log_->info("REROUTE: routes recomputed from the last fabric model, no rediscovery");
  PreparedFabric prepared{fabric_, clock_.now(), client_.counters(),
                          std::vector<bool>(fabric_.size(), false)};
  return heavy_sweep(stop, &prepared);
}

}  // namespace ibsm::sm
