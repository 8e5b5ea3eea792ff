#include "sm/subnet_manager.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/log_modules.hpp"
#include "mad/attr/notice.hpp"
#include "mad/attr/sm_info.hpp"
#include "sm/links/link_settings.hpp"
#include "sm/mkey/errors.hpp"
#include "sm/publish/perfmgr_link.hpp"
#include "sm/publish/sa_snapshot.hpp"
#include "sm/traps/security_trap.hpp"

namespace ibsm::sm {

namespace {

mad::SmpClientSettings client_settings(const conf::Options& o) {
  mad::SmpClientSettings s;
  s.window = o.max_wire_smps;
  s.timeout = std::chrono::milliseconds(o.transaction_timeout);
  s.retries = o.transaction_retries;
  s.window_given = o.given.contains("max_wire_smps");
  s.window2 = o.max_wire_smps2;
  s.window2_after = std::chrono::microseconds(o.max_smps_timeout);
  return s;
}

// The election's timers. IBA leaves them to the SM; ibsm's defaults fail over in
// about a second (docs/configuration.md), and a configuration that sets OpenSM's
// keys gets OpenSM's timing.
election::Settings election_settings(const conf::Options& o) {
  election::Settings s;
  s.priority = o.sm_priority;
  s.master_priority = o.master_sm_priority;
  s.sm_key = o.sm_key;
  // Not given: poll every 200 ms, gone after 2 missed polls (0.6-0.8 s); OpenSM's
  // 10 s x 4 takes 50-60 s. Given (an opensm.conf written by OpenSM has them): as set.
  s.poll_interval = std::chrono::milliseconds(
      o.given.contains("sminfo_polling_timeout") ? o.sminfo_polling_timeout : 200);
  s.poll_retries = o.given.contains("polling_retry_number") ? o.polling_retry_number : 2;
  s.ignore_other_sm = o.ignore_other_sm;
  return s;
}

}  // namespace

SubnetManager::SubnetManager(mad::MadTransport& transport, const Clock& clock, Logger log,
                             const conf::Options& options)
    : transport_(transport),
      clock_(clock),
      log_(std::move(log)),
      options_(options),
      client_(transport, clock, module_logger(log_, LogModule::kMad), client_settings(options)),
      election_(client_, clock, module_logger(log_, LogModule::kElection),
                election_settings(options), transport.local_port().port_guid,
                options.sm_inactive ? mad::SmState::kNotActive : mad::SmState::kDiscovering),
      partitions_(module_logger(log_, LogModule::kPartitions), options_),
      sa_(transport, clock, module_logger(log_, LogModule::kSa), sa_settings(options)),
      perfmgr_(transport, clock, module_logger(log_, LogModule::kPerfmgr), perf_settings(options),
               [] { return std::time(nullptr); }) {
  client_.dispatcher().set_handler(sa::kClassSubnAdm,
                                   [this](const mad::IncomingMad& in) { sa_.handle(in); });
  client_.dispatcher().set_handler(mad::kClassPerfMgt,
                                   [this](const mad::IncomingMad& in) { perfmgr_.handle(in); });
  client_.set_request_handler(
      [this](const mad::Smp& req, const mad::IncomingMad& raw) { on_request(req, raw); });
  election_.set_state_listener(
      [this](mad::SmState from, mad::SmState to) { on_state_change(from, to); });
  if (options_.sm_inactive) log_sys_event(log_, "SM state NOT-ACTIVE (sm_inactive): no sweeps");
  if (options_.force_heavy_sweep) loop_.heavy_reason = HeavyReason::kFirstSweep;
  lids_.load(options_.cache_dir);
  mkeys_.apply_options(options_);
  static_cast<void>(link_settings(options_, &log_));  // warns of reserved force_link_* codes
  qos_.apply_options(options_);
  reload_qos_policy();
  apply_cc_options();
  publish_.sa.load_prefix_routes(options_.prefix_routes_file);
  mkeys_.load(options_.cache_dir);
  client_.set_mkey_resolver([this](const mad::SmpTarget& t) { return mkeys_.resolve(t, fabric_); });
  // sa_db_file: service records and subscriptions of the last run. A bad file is
  // logged by the SA with its line; the SM runs without what it could not read.
  static_cast<void>(sa_.load_db());
  publish_.ops.partitions_file(options_.partition_config_file);
  static_cast<void>(reload_topology());
  publish_.health.configure(options_);
  publish_.ops.health_status(publish_.health.status(fabric_));
  publish_ops();
}

// The policy file is checked against a fabric: read after the first SUBNET UP, then on
// SIGHUP and ibsm-ctl's reload.
void SubnetManager::reload_health_policy() {
  if (fabric_.size() == 0 || !first_master_sweep_done_) return;
  publish_.health.reload_policy(fabric_);
  act_on_health(fabric_, false);
}

void SubnetManager::act_on_health(const Fabric& f, bool in_sweep) {
  health::Applied a = publish_.health.apply(f, client_, sm_lid_);
  for (auto& [type, fields] : a.events)
    emit(type, std::move(fields));
  if (a.reroute) {
    router_.set_excluded_links(publish_.health.exclusions());
    if (!in_sweep && first_master_sweep_done_) loop_.reroute_requested = true;
  }
  if (a.rediscover && loop_.heavy_reason == HeavyReason::kNone)
    loop_.heavy_reason = HeavyReason::kForced;
  if (a.changed) {
    publish_.ops.health_status(publish_.health.status(f));
    if (!in_sweep) publish_ops();
  }
}

Status SubnetManager::reload_topology() {
  Status st = publish_.cabling.load(options_.topo_config_file);
  publish_.ops.cabling_status(publish_.cabling.status(), false, "");
  return st;
}

void SubnetManager::check_cabling() {
  auto s = publish_.cabling.check(fabric_, std::chrono::system_clock::now());
  publish_.ops.cabling_status(s, true, cabling_check::kinds_summary(s->deviations));
  // topo_config_enabled: the miswired links carry no route (a reroute, not a sweep).
  if (publish_.health.enforce_cabling(fabric_, s->deviations, options_.topo_config_enabled)) {
    router_.set_excluded_links(publish_.health.exclusions());
    loop_.reroute_requested = true;
  }
}

bool SubnetManager::reload_partitions() {
  const bool ok = partitions_.reload();
  publish_.ops.partitions_reloaded(options_.partition_config_file, ok, partitions_.last_errors(),
                                   partitions_.resolved().partitions.size());
  return ok;
}

Status SubnetManager::validate_start() const {
  const auto known = routing::engine_names();
  for (const auto& name : router_.engine_chain()) {
    bool ok = false;
    for (auto k : known)
      ok = ok || name == k;
    if (!ok) {
      std::string list;
      for (auto k : known)
        list += std::string(list.empty() ? "" : ", ") + std::string(k);
      return fail(
          kErrRoutingEngineUnknown,
          "routing engine '" + name + "' is not available in ibsm (available: " + list + ")");
    }
  }
  return {};
}

Status SubnetManager::reload_node_names() {
  auto loaded = node_names_.reload(options_.node_name_map_name);
  if (!loaded) {
    log_->error("{}", to_string(loaded.error()));
    return fail(loaded.error());
  }
  const names::NodeNameMap& map = **loaded;
  for (const auto& w : map.warnings())
    log_->warn("{}", w);
  if (!map.source().empty())
    log_->info("node name map {}: {} node names", map.source(), map.size());
  for (NodeIndex i = 0; i < fabric_.size(); ++i) {
    Node& n = fabric_.node(i);
    n.name = map.name_of(n.guid(), n.description);
  }
  return {};
}

void SubnetManager::apply_options(const conf::Options& options) {
  options_ = options;
  mkeys_.apply_options(options_);
  static_cast<void>(link_settings(options_, &log_));  // warns of reserved force_link_* codes
  qos_.apply_options(options_);
  apply_cc_options();
  client_.set_settings(client_settings(options_));
  partitions_.apply_options(options_);
  sa_.set_settings(sa_settings(options_));
  election_.set_settings(election_settings(options_));
  publish_.health.configure(options_);
}

// The SA answers from what this sweep left, as one immutable snapshot, and only
// as master after the first sweep (IBA 15.4.1; OpenSM's osm_sa_mad_ctrl.c).
void SubnetManager::publish_sa_snapshot() {
  SaSnapshotInput in{fabric_, router_.routes(), router_.switches(), partitions_.groups(), options_};
  in.sm_lid = sm_lid_;
  in.sm_state = state();
  in.act_count = static_cast<std::uint32_t>(client_.counters().sent);
  in.partitions = &partitions_.resolved();
  in.tables = &port_tables_;
  in.mcast = &mcast_;
  in.path_sls = router_.path_sls();
  mcast_updates_.snapshot_published(mcast_);  // it carries every MFT confirmed so far
  release_big_fabric();
  publish_.sa.publish(sa_, in, [this](sa::Snapshot& snap) {
    qos_.attach_policy(snap, options_,
                       {partitions_.resolved(), partitions_.last_plan().membership});
  });
  sa_.set_serving(state() == mad::SmState::kMaster && first_master_sweep_done_);
  sa_.dump_db();  // sa_db_dump: after each sweep that brought the subnet up, as OpenSM
  if (auto snap = sa_.snapshot()) publish_.ops.report_fabric_changes(*snap);
  publish_ops();
}

void SubnetManager::set_phase(SweepPhase p) {
  if (p == loop_.phase) return;
  // With the SMPs sent so far: where a sweep's time and SMPs go, phase by phase.
  log_->debug("sweep phase {} -> {} (SMPs sent {})", phase_name(loop_.phase), phase_name(p),
              client_.counters().sent);
  loop_.phase = p;
}

// The election changed the SM state (it logged the transition).
void SubnetManager::on_state_change(mad::SmState from, mad::SmState to) {
  if (to != mad::SmState::kMaster) publish_.ops.set_last_up({});
  report_status();
  {
    std::vector<ops::EventField> f = {{"from", std::string(mad::sm_state_name(from))},
                                      {"to", std::string(mad::sm_state_name(to))}};
    if (auto m = election_.polled()) f.push_back({"master_guid", mad::format_guid(*m)});
    emit(ops::EventType::kSmState, std::move(f));
    publish_ops();
  }
  // A standby's copy of the switch tables serves the takeover (STANDBY -> DISCOVERING
  // -> MASTER); back to STANDBY, a new copy is read.
  if (from == mad::SmState::kStandby && to != mad::SmState::kStandby)
    tables_.set_takeover(lft_mirror_.take());
  if (to == mad::SmState::kStandby) tables_.set_takeover(std::nullopt);
  if (to == mad::SmState::kMaster) {
    // A new master trusts nothing another SM may have programmed since: every MFT and
    // alias GUID block is re-sent and clients are told to re-register (IBA 14.4.11).
    // LFT blocks are compared with what a standby read from the switches, if the fabric
    // did not change since (adopt_mirrored_tables), else re-sent too.
    first_master_sweep_done_ = false;
    forget_programmed_state();
    if (from != mad::SmState::kDiscovering) loop_.heavy_reason = HeavyReason::kNewMaster;
    return;
  }
  // No longer master: the SA goes silent (C15-0.1.3) and nothing is programmed.
  sa_.set_serving(false);
  cc_.stop();
  first_master_sweep_done_ = false;
  if (to == mad::SmState::kStandby || to == mad::SmState::kNotActive)
    loop_.heavy_reason = HeavyReason::kNone;
  if (to == mad::SmState::kDiscovering && !options_.honor_guid2lid_file) {
    // OpenSM's rule leaving STANDBY: ports keep the LIDs they report; the local
    // guid2lid (possibly stale: the master may have moved ports) only fills gaps.
    // With honor_guid2lid_file the file wins instead (assign_lids).
    lids_.forget();
  }
}

std::string SubnetManager::status_line() const {
  const mad::SmState st = state();
  std::string line(mad::sm_state_name(st));
  if (st == mad::SmState::kMaster) {
    if (!publish_.ops.last_up().empty()) line += ", " + publish_.ops.last_up();
  } else if (st == mad::SmState::kStandby) {
    if (auto polled = election_.polled()) {
      auto it = election_.remotes().find(*polled);
      line += ", master " + mad::format_guid(*polled);
      if (it != election_.remotes().end()) line += " (LID " + std::to_string(it->second.lid) + ")";
    }
  }
  return line;
}

void SubnetManager::forget_programmed_state() {
  tables_.forget_all();
  mcast_.forget_all();
  cc_.forget_held();
}

void SubnetManager::take_election_requests() {
  switch (election_.take_sweep_request()) {
    case election::SweepRequest::kNone:
      break;
    case election::SweepRequest::kSweep:
      if (loop_.heavy_reason == HeavyReason::kNone ||
          loop_.heavy_reason == HeavyReason::kErrorsLastSweep)
        loop_.heavy_reason = HeavyReason::kElection;
      break;
    case election::SweepRequest::kFirstMasterSweep:
      // HANDOVER while MASTER (a healed split) or a standby's takeover: re-program all.
      first_master_sweep_done_ = false;
      forget_programmed_state();
      loop_.heavy_reason = HeavyReason::kNewMaster;
      break;
  }
}

void SubnetManager::drain(const std::atomic<bool>& stop) {
  // SA requests are answered in here too (from the last published snapshot).
  while (!client_.idle() && !stop.load()) {
    client_.poll(std::chrono::milliseconds(100));
    sa_.tick();
  }
}

void SubnetManager::on_request(const mad::Smp& req, const mad::IncomingMad& raw) {
  switch (req.attr_id()) {
    case mad::AttrId::kSmInfo: {
      // Our own port's M_Key guards SMInfo too (IBA C14-67), as OpenSM applies it.
      const mkey::SmInfoAccess access = mkeys_.own_sminfo_access(req, fabric_);
      if (access == mkey::SmInfoAccess::kDrop) {
        log_->error("{}: SMInfo {} from LID {} carries a wrong M_Key; ignored",
                    format_error_id(mkey::kErrSmInfoMkeyMismatch),
                    req.method() == mad::Method::kGet ? "Get" : "Set", raw.slid);
        return;
      }
      election_.on_sminfo(req, raw, access == mkey::SmInfoAccess::kAnswerNoSmKey);
      take_election_requests();
      return;
    }
    case mad::AttrId::kNotice:
      if (req.method() == mad::Method::kTrap) on_trap(req, raw);
      return;
    default:
      log_->debug("unsolicited {} {} from LID {} ignored", static_cast<unsigned>(req.method()),
                  mad::attr_name(req.attr_id()), raw.slid);
  }
}

// The master's handling of Traps is sm/traps/'s; the SM carries out its decision: the
// sweep it asks for, the event, and the forwarding to InformInfo subscribers.
void SubnetManager::on_trap(const mad::Smp& req, const mad::IncomingMad& raw) {
  const traps::TrapDecision d = traps_.on_trap(
      req, raw.slid,
      {fabric_, client_, options_, clock_.now(), state() == mad::SmState::kMaster, sm_lid_});
  if (d.port_error) {  // every port-error trap counts, repeats the filter drops included
    publish_.health.on_trap(fabric_, d.port_error->lid, d.port_error->port, raw.slid);
    act_on_health(fabric_, loop_.phase != SweepPhase::kIdle);
  }
  if (!d.admitted) return;
  const mad::Notice& notice = *d.admitted;
  emit(d.security ? ops::EventType::kSecurityTrap : ops::EventType::kTrap,
       {{"trap", static_cast<std::uint64_t>(notice.trap_number)},
        {"issuer_lid", static_cast<std::uint64_t>(notice.issuer_lid)},
        {"source_lid", static_cast<std::uint64_t>(raw.slid)},
        {"details_lid", static_cast<std::uint64_t>(notice.details_lid())}});
  if (d.sweep == traps::TrapSweep::kSmTrap) {
    if (loop_.heavy_reason == HeavyReason::kNone) loop_.heavy_reason = HeavyReason::kSmTrap;
  } else if (d.sweep == traps::TrapSweep::kTrap) {
    loop_.heavy_reason = HeavyReason::kTrap;
    if (d.full_sweep) loop_.full_sweep_trap = true;  // not a link change
    // Both ends of a link send Trap 128: one arriving mid-sweep may be news the
    // sweep already handled (the targeted sweep then needs no full sweep for it).
    loop_.trap_while_sweeping =
        loop_.phase != SweepPhase::kIdle && loop_.phase != SweepPhase::kLightSweep;
  }
  if (d.forward) sa_.forward_trap(notice, raw.slid);
}

SweepResult SubnetManager::sweep(const std::atomic<bool>& stop) {
  // No PerfMgt query leaves while the SM sweeps (answers to those out are taken).
  perfmgr_.set_paused(true);
  SweepResult r = sweep_unpaused(stop);
  perfmgr_.set_paused(false);
  return r;
}

SweepResult SubnetManager::sweep_unpaused(const std::atomic<bool>& stop) {
  auto started = [&](ops::SweepKind kind, std::string_view reason) {
    return publish_.ops.sweep_started(kind, reason);
  };
  if (options_.force_heavy_sweep && loop_.heavy_reason == HeavyReason::kNone)
    loop_.heavy_reason = HeavyReason::kForced;
  if (std::exchange(loop_.reroute_requested, false) && fabric_.size() > 0) {
    const auto t = started(ops::SweepKind::kTargeted, "reroute");
    SweepResult r = reroute_sweep(stop);
    record_sweep(ops::SweepKind::kTargeted, "reroute", r, t);
    return r;
  }
  if (loop_.heavy_reason == HeavyReason::kNone) {
    const auto t = started(ops::SweepKind::kLight, "interval");
    SweepResult light = light_sweep(stop);
    record_sweep(ops::SweepKind::kLight, "interval", light, t);
    if (light.subnet_up) sa_.dump_db();  // sa_db_dump: OpenSM writes after every light sweep
    if (loop_.heavy_reason == HeavyReason::kNone || stop.load()) return light;
  }
  const std::string reason(heavy_reason_name(loop_.heavy_reason));
  if (may_target()) {
    const auto t = started(ops::SweepKind::kTargeted, reason);
    if (auto targeted = targeted_sweep(stop)) {
      record_sweep(ops::SweepKind::kTargeted, reason, *targeted, t);
      return *targeted;
    }
  }
  const auto t = started(ops::SweepKind::kHeavy, reason);
  SweepResult r = heavy_sweep(stop);
  record_sweep(ops::SweepKind::kHeavy, reason, r, t);
  return r;
}

std::size_t SubnetManager::program_alias_changes() {
  if (state() != mad::SmState::kMaster || !first_master_sweep_done_) return 0;
  return alias_guids_.program_changes(fabric_, sa_.state().aliases, client_);
}

bool SubnetManager::multicast_programmable() const {
  return state() == mad::SmState::kMaster && first_master_sweep_done_;
}

std::size_t SubnetManager::program_multicast_changes() {
  if (!multicast_programmable()) return 0;
  return mcast_.program_dirty(fabric_, sa_.state().mcast, options_, client_);
}

void SubnetManager::publish_multicast_tables() {
  // When is sm/mcast/'s; the amendment is the SA snapshot's.
  const bool amended = mcast_updates_.publish(mcast_, [this](const MulticastManager& mcast) {
    if (!sa_.snapshot()) return false;
    // New MFTs only: nodes, ports and the path tables they index stay the same, so this
    // is far cheaper than a full rebuild (and done in place when nothing holds the old).
    release_big_fabric();
    sa_.amend([this, &mcast](sa::Snapshot& snap) {
      snap.generation = publish_.sa.next_generation();
      for (sa::SnapNode& n : snap.nodes)
        if (n.is_switch()) n.mft = mcast.held_table(n.guid());
    });
    return true;
  });
  if (amended) publish_ops();
}

int SubnetManager::run(ControlFlags& control) {
  while (!control.stop.load()) {
    if (auto exit_code = step(control)) return *exit_code;
  }
  if (state() == mad::SmState::kMaster) sa_.dump_db();  // what changed since the last sweep
  return 0;
}

std::optional<int> SubnetManager::step(ControlFlags& control) {
  const std::atomic<bool>& stop = control.stop;
  auto& next_sweep = loop_.next_sweep;
  {
    if (control.reopen_log.exchange(false) && !reopen_log(log_))
      log_->error("cannot reopen the log file; still writing to the old one");
    if (control.heavy_sweep.exchange(false)) {
      if (hooks_.hangup) hooks_.hangup();
      reload_partitions();
      reload_qos_policy();
      static_cast<void>(reload_topology());
      reload_health_policy();
      act_on_health(fabric_, false);  // hm_unhealthy_ports_checks turned off: undone
      publish_.sa.load_prefix_routes(options_.prefix_routes_file);
      loop_.heavy_reason = HeavyReason::kForced;
      publish_ops();
    }
    take_control_requests();
    if (control.handover.exchange(false)) election_.hand_over_manually();
    // The election's polls and timeouts; a standby whose master is gone asks for a sweep.
    election_.tick();
    take_election_requests();
    // Gets only (IBA 14.4.1 forbids a standby to change the subnet, not to read it).
    if (state() == mad::SmState::kStandby) {
      lft_mirror_.tick(client_, clock_.now());
      if (lft_mirror_.take_first_pass_news())
        log_->info("standby: read the LFTs of {} switches ({} blocks)",
                   lft_mirror_.complete_switches(), lft_mirror_.blocks_read());
    }
    if (traps_.take_deferred_sm_trap(clock_.now()) && loop_.heavy_reason == HeavyReason::kNone)
      loop_.heavy_reason = HeavyReason::kSmTrap;
    // Only a MASTER or DISCOVERING SM sweeps; STANDBY and NOT-ACTIVE send nothing but
    // their SMInfo polls (IBA 14.4.1).
    const bool may_sweep =
        state() == mad::SmState::kMaster || state() == mad::SmState::kDiscovering;
    // Traps, SIGHUP and the first sweep do not wait for the interval; a retry
    // after a failed sweep does (at most one second), so a dead fabric never spins.
    const bool urgent = loop_.heavy_reason != HeavyReason::kNone &&
                        loop_.heavy_reason != HeavyReason::kErrorsLastSweep;
    // `sweep off` inhibits every sweep but those an operator asks for (resweep, reroute).
    const bool allowed =
        loop_.sweeping_enabled || publish_.ops.has_sweep_waiters() || loop_.reroute_requested;
    if (may_sweep && allowed && (urgent || loop_.reroute_requested || clock_.now() >= next_sweep)) {
      SweepResult r = sweep(stop);
      if (stop.load()) return std::nullopt;
      if (auto fatal = fatal_problem(r.report)) {
        // exit_on_fatal (OpenSM's default; -y/--stay_on_fatal turns it off): two devices
        // with one GUID make LIDs and routes ambiguous, and OpenSM stops rather than
        // run such a fabric. Without it the duplicate stays out of the fabric.
        log_sys_event(log_, fmt::format("{}: {}; exiting (exit_on_fatal TRUE; -y keeps ibsm "
                                        "running without the duplicate)",
                                        format_error_id(fatal->id), fatal->message));
        log_->flush();
        return 1;
      }
      if (options_.once && r.heavy) {
        if (r.standby) {
          log_->info("once mode: another SM is master; exiting");
          return 0;
        }
        if (!r.subnet_up) {
          log_->error("{}: subnet not up after one sweep ({} problems)",
                      format_error_id(kErrSubnetNotUp), r.report.problems.size());
        }
        return r.subnet_up ? 0 : 1;
      }
      const Clock::Duration interval = std::chrono::seconds(options_.sweep_interval);
      next_sweep = options_.sweep_interval == 0 ? Clock::TimePoint::max() : clock_.now() + interval;
      if (!r.subnet_up && r.heavy && !r.standby) {
        loop_.heavy_reason = HeavyReason::kErrorsLastSweep;
        const Clock::Duration retry =
            options_.sweep_interval == 0
                ? std::chrono::seconds(1)
                : std::min<Clock::Duration>(interval, std::chrono::seconds(1));
        next_sweep = clock_.now() + retry;
      }
      return std::nullopt;
    }
    // Between sweeps: answer SMInfo queries, traps and SA requests. Changed groups
    // wait at most until their pass is due (sm/mcast/mcast_pacing.hpp): the last joins of a
    // storm arrive after the last pass, and nothing else may come to end the wait.
    sa::McGroupStore& groups = sa_.state().mcast;
    std::chrono::milliseconds wait = mcast_updates_.poll_wait(
        multicast_programmable() && groups.has_dirty(), groups.changes_seen(),
        std::chrono::milliseconds(may_sweep ? 100 : 20));
    // The PerfMgr sweeps only as master, on the fabric of its last heavy sweep.
    if (state() == mad::SmState::kMaster)
      if (const auto due = perfmgr_.next_due())
        wait = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(*due - clock_.now()),
                          std::chrono::milliseconds(0), wait);
    client_.poll(wait);
    sa_.tick();
    if (state() == mad::SmState::kMaster) {
      perfmgr_.tick();
      publish_perf_counters();  // after each PerfMgr sweep, for /metrics
    }
    program_alias_changes();  // the next poll puts them on the wire
    cc_.tick();               // congestion control Sets, within cc_max_outstanding_mads
    if (mcast_updates_.pass_due(multicast_programmable() && groups.has_dirty(),
                                groups.changes_seen()))
      program_multicast_changes();
    publish_multicast_tables();
  }
  return std::nullopt;
}

}  // namespace ibsm::sm

namespace ibsm::sm {

std::optional<Error> SubnetManager::fatal_problem(const SweepReport& report) const {
  if (!options_.exit_on_fatal) return std::nullopt;
  for (const Error& e : report.problems)
    if (e.id == kErrDuplicateGuid) return e;
  return std::nullopt;
}

}  // namespace ibsm::sm
