// The heavy sweep: discover, assign LIDs, route, program, activate.
// Each phase is a barrier (all its SMPs answered) like OpenSM's, but inside a
// phase every request is queued at once so the SMP window never runs dry. The targeted
// sweep (sm/reroute/targeted_sweep.hpp) hands it an updated model instead of discovery;
// the light sweep reads SwitchInfo only.
#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <variant>

#include "mad/attr/port_info.hpp"
#include "mad/attr/switch_info.hpp"
#include "sm/discovery/discovery.hpp"
#include "sm/links/fdr10.hpp"
#include "sm/publish/perfmgr_link.hpp"
#include "sm/qos/vlarb_programmer.hpp"
#include "sm/reroute/targeted_sweep.hpp"
#include "sm/routes/route_dumps.hpp"
#include "sm/subnet_manager.hpp"

namespace ibsm::sm {

using mad::SmpOutcome;
using mad::SmpRequest;

namespace {

mad::SmpCounters minus(const mad::SmpCounters& a, const mad::SmpCounters& b) {
  mad::SmpCounters d;
  d.sent = a.sent - b.sent;
  d.received = a.received - b.received;
  d.timeouts = a.timeouts - b.timeouts;
  d.retries = a.retries - b.retries;
  d.errors = a.errors - b.errors;
  d.unexpected = a.unexpected - b.unexpected;
  d.unsolicited = a.unsolicited - b.unsolicited;
  d.loss_retries = a.loss_retries - b.loss_retries;
  return d;
}

// For the SUBNET UP line: how lossy the fabric looked and what that cost, when it did.
std::string loss_note(const mad::SmpCounters& sweep, double loss) {
  // Below a thousandth the rate is a rounding of a few late answers: not news.
  if (sweep.loss_retries == 0 && loss < 0.001) return {};
  return fmt::format(", SMP loss {:.1f} % ({} retries beyond transaction_retries)", loss * 100,
                     sweep.loss_retries);
}

}  // namespace

// Routing (sm/routes/): the Router routes; the ops snapshot hears of every engine that ran.
bool SubnetManager::compute_routes(const SweepContext& ctx) {
  const routes::RouteOutcome out = router_.compute(ctx, &qos_.config());
  for (const routes::EngineRun& run : out.runs) {
    note_routing(run.engine, run.ms, nullptr);
    if (run.grade) note_routing(run.engine, run.ms, &*run.grade);
  }
  return out.routed;
}

void SubnetManager::grade_routes_after_up() {
  if (auto late = router_.grade_pending(options_, pure_runner()))
    note_routing(late->engine, late->ms, &late->grade);
}

SweepResult SubnetManager::heavy_sweep(const std::atomic<bool>& stop, PreparedFabric* prepared) {
  SweepResult result;
  result.heavy = true;
  const auto t0 = prepared ? prepared->t0 : clock_.now();
  const auto before = prepared ? prepared->before : client_.counters();
  if (!prepared) {
    log_->info("INITIATING HEAVY SWEEP ({})", heavy_reason_name(loop_.heavy_reason));
    loop_.heavy_reason = HeavyReason::kNone;
    loop_.full_sweep_trap = false;
  }

  Fabric f;
  if (prepared) {
    f = std::move(prepared->fabric);  // the targeted sweep's update of the last model
    mkeys_.set_building(&f);
  } else {
    set_phase(SweepPhase::kDiscovery);
    Discovery discovery(f, client_, result.report, module_logger(log_, LogModule::kDiscovery));
    // Requests carry the keys of the ports they reach, found in this fabric as it grows.
    mkeys_.set_building(&f);
    discovery.set_port_listener([this](const Node& n, PortNum p) { mkeys_.learn(n, p); });
    discovery.set_failure_listener([this](const SmpOutcome& o) { mkey_hint(o); });
    discovery.set_names(node_names_.snapshot());
    discovery.set_previous(&fabric_);  // ports known to have extended speeds: one Get
    // Fabric health's no_discover ports: nothing behind them is probed.
    discovery.set_stop_at(
        [this](Guid g, PortNum p) { return publish_.health.stops_discovery(g, p); });
    discovery.start();
    drain(stop);
    discovery.finish();
  }
  auto finish = [&](bool up) {
    mkeys_.set_building(nullptr);
    set_phase(SweepPhase::kIdle);
    result.subnet_up = up;
    // OpenSM's subnet_initialization_error: whoever sweeps next (run() or a test calling
    // sweep()) must sweep heavy, or a node that failed this time is never retried.
    // A sweep the election stopped (another SM is master) is no error.
    if (!up && !result.standby && loop_.heavy_reason == HeavyReason::kNone)
      loop_.heavy_reason = HeavyReason::kErrorsLastSweep;
    result.nodes = f.size();
    result.switches = f.switch_count();
    result.end_ports = f.end_port_count();
    result.seconds = std::chrono::duration<double>(clock_.now() - t0).count();
    result.mads = minus(client_.counters(), before);
    return result;
  };
  if (stop.load()) return finish(false);
  if (f.sm_node == kNoNode || !f.node(f.sm_node).ports[f.sm_port].present) {
    result.report.add(kErrSmPortDown, "cannot read the SM's own port");
    log_->error("{}: cannot read the SM's own port; staying {}", format_error_id(kErrSmPortDown),
                mad::sm_state_name(state()));
    return finish(false);
  }
  // The SM's own link is down: what discovery found is the SM's node alone, not the
  // fabric. As OpenSM (state_mgr_is_sm_port_down), nothing is assigned or programmed and
  // the last good model stays; the sweep is retried (every second) until the link is
  // back, and that retry rediscovers the fabric behind it.
  if (f.node(f.sm_node).ports[f.sm_port].info.port_state == mad::PortState::kDown) {
    result.report.add(kErrSmPortDown, "the SM's own port is down");
    if (!sm_port_down_reported_)
      log_->error(
          "{}: the SM's own port {} is down; keeping the last fabric model and staying "
          "{} until it comes back",
          format_error_id(kErrSmPortDown), f.sm_port, mad::sm_state_name(state()));
    sm_port_down_reported_ = true;
    return finish(false);
  }
  if (sm_port_down_reported_) log_->info("the SM's own port {} is up again", f.sm_port);
  sm_port_down_reported_ = false;
  // The SA's other port tables (sm/tables/port_tables.hpp) are read after SUBNET UP; what
  // a reset or a departure makes stale is decided on what discovery found.
  port_tables_.forget_changed(f);
  // SMInfo of every other SM (ports advertising IsSM), in the same round trip.
  election_.query_sms(f);
  drain(stop);
  if (stop.load()) return finish(false);
  log_->info("HEAVY SWEEP COMPLETE: {} nodes ({} switches, {} end ports)", f.size(),
             f.switch_count(), f.end_port_count());
  // IBA 14.4.1: DISCOVERING becomes MASTER or STANDBY here; a MASTER that found a
  // higher SM hands over. Either way a subnet that is not ours is left untouched.
  election_.set_own_lid(f.node(f.sm_node).ports[f.sm_port].info.lid);
  if (!election_.after_discovery()) {
    drain(stop);  // a HANDOVER's answer
    result.standby = true;
    fabric_ = f;  // what standing by found (status output, the next takeover's hints)
    mkeys_.index_lids(fabric_);
    if (!lft_mirror_.running()) lft_mirror_.start(fabric_);
    return finish(false);
  }
  // Fabric health: what this sweep saw against the last model (flaps, silent peers,
  // reboots) and discovery's impossible answers; a decision to isolate takes effect in
  // this sweep's routing.
  publish_.health.observe_sweep(fabric_, f, result.report.illegal_answers);
  act_on_health(f, true);
  if (election_.coming_out_of_standby()) {
    log_->info("leaving STANDBY: ports keep the LIDs they report{}",
               options_.honor_guid2lid_file
                   ? " unless guid2lid (honor_guid2lid_file) says otherwise"
                   : "");
  }

  // One sweep's scratch state for the sweep components (sm/sweep/sweep_context.hpp).
  SweepContext ctx{f, result.report, client_, options_};
  ctx.run_pure = pure_runner();
  ctx.only_nodes = prepared ? &prepared->touched : nullptr;  // PortInfo only where touched
  ctx.on_failure = [this](const SmpOutcome& o) { mkey_hint(o); };
  ctx.first_master_sweep = !first_master_sweep_done_;
  ctx.sm_lid = sm_lid_;
  // The PortInfo passes (sm/links/) with the QoS and M_Key settings in force; an
  // election change while draining may have reset first_master_sweep_done_ meanwhile.
  const auto program_ports = [&](mad::PortState target, bool key_holders_only) {
    ctx.first_master_sweep = !first_master_sweep_done_;
    links_.program(ctx, {target, key_holders_only, &qos_.config(), mkeys_.settings(),
                         [this](Guid g, std::uint64_t key) { mkeys_.set_accepted(g, key); }});
  };

  set_phase(SweepPhase::kLidAssignment);
  tables_.adopt_mirrored_tables(f);
  tables_.forget_reset_switches(f);
  mcast_.forget_reset_switches(f);
  const lids::LidResult lids = lids_.assign(ctx, {election_.coming_out_of_standby()});
  if (!lids.ok) return finish(false);
  if (lids.sm_lid) sm_lid_ = *lids.sm_lid;
  ctx.sm_lid = sm_lid_;

  // P_Key tables of end ports and of switch ports facing them (the planner's input; a
  // targeted sweep's model still holds them), read while guid2lid is written and the
  // routes are computed: only programming needs them (kary-18-3-5832: 24 300 Gets, about
  // as long as minhop takes).
  if (!prepared) partitions_.read_tables(f, client_, result.report);
  lids_.save(ctx);
  set_phase(SweepPhase::kRouting);
  router_.set_excluded_links(publish_.health.exclusions());  // isolated links carry no route
  const bool routed = compute_routes(ctx);
  drain(stop);  // the reads: programming plans with them, and their answers fill f
  if (!routed || stop.load()) return finish(false);

  set_phase(SweepPhase::kProgramming);
  if (mkeys_.settings().managed()) {
    // New M_Keys first, alone: every later request to a switch or CA port is resolved
    // with the key the port holds by then, never with the one a Set still in flight
    // is replacing (OpenSM's LID manager likewise programs these ports before the rest).
    program_ports(mad::PortState::kArmed, true);
    drain(stop);
    if (stop.load()) return finish(false);
  }
  // The LFT blocks first: they flow while the P_Key planner runs on its worker.
  tables_.program_switches(ctx, router_.routes_ptr(), router_.switches());
  partitions_.program(f, client_, result.report, pure_runner());
  // The policy file's qos-setup, for the three below.
  qos_.update_setup(f, options_, {partitions_.resolved(), partitions_.last_plan().membership});
  tables_.program_sl2vl(ctx, {router_.topology(), router_.routes(), router_.path_sls() != nullptr,
                              &qos_.config(), qos_.long_timeout(), port_tables_});
  const qos::VlArbCounts vlarb = qos::program_vlarb(ctx, qos_.config(), port_tables_, log_);
  program_fdr10(f, fabric_, static_cast<Fdr10Mode>(options_.fdr10), client_, log_);
  program_ports(mad::PortState::kArmed, false);
  // Alias GUIDs the SA assigned, only blocks the ports lack; a new master rewrites all.
  alias_guids_.program_all(f, sa_.state().aliases, client_, !first_master_sweep_done_);
  drain(stop);
  if (stop.load()) return finish(false);

  if (const auto* c = tables_.sl2vl_counts(); c && c->sets > 0)
    log_->info("SL2VL: {} tables Set", c->sets);
  if (vlarb.sets > 0) log_->info("QoS: {} VLArbitrationTable blocks Set", vlarb.sets);
  set_phase(SweepPhase::kActivation);
  program_ports(mad::PortState::kActive, false);
  // MFTs ride with the activation: the SwitchInfo a MulticastFDBTop Set carries must
  // hold the LinearFDBTop the programming phase's answers confirmed.
  mcast_.program_all(f, router_.topology_ptr(), router_.switches(), sa_.state().mcast, options_,
                     client_, result.report, pure_runner());
  drain(stop);
  if (stop.load()) return finish(false);
  // Fabric health: the ports whose Sets failed, in the sweep observe_sweep counted; an
  // isolation decided here is routed around by the next sweep or reroute.
  publish_.health.observe_sets(f, result.report.failed_sets);
  act_on_health(f, true);

  const bool up = result.report.clean();
  if (up) {
    first_master_sweep_done_ = true;
    election_.clear_coming_out_of_standby();
  }
  set_phase(SweepPhase::kDone);
  auto r = finish(up);
  fabric_ = std::move(f);
  mkeys_.index_lids(fabric_);
  if (up) {
    Lid max_lid = 0;
    for (const auto& h : fabric_.lid_holders()) {
      const Port& p = fabric_.node(h.node).ports[h.port];
      max_lid = std::max<Lid>(max_lid, static_cast<Lid>(p.lid + (1u << p.lmc) - 1));
    }
    log_sys_event(log_, fmt::format("SUBNET UP: {} sweep {:.3f} s, {} nodes ({} switches, {} end "
                                    "ports), LIDs 1-{}, MADs sent {}, received {}, retries {}, "
                                    "timeouts {}, LFT blocks {}{}",
                                    prepared ? "targeted" : "heavy", r.seconds, r.nodes, r.switches,
                                    r.end_ports, max_lid, r.mads.sent, r.mads.received,
                                    r.mads.retries, r.mads.timeouts, tables_.lft_blocks_sent(),
                                    loss_note(r.mads, client_.loss())));
    publish_.ops.set_last_up(
        fmt::format("SUBNET UP: {} nodes ({} switches, {} end ports), heavy sweep {:.3f} s",
                    r.nodes, r.switches, r.end_ports, r.seconds));
    report_status();
    partitions_.log_groups();
    partitions_.save(fabric_);
    publish_.health.after_subnet_up(fabric_);  // the SM's own link is never acted on
    if (!publish_.health.policy_loaded()) reload_health_policy();
    act_on_health(fabric_, true);  // the HealthStatus names both ends from this model
    // Its status rides with the snapshot published next; topo_config_enabled may ask for
    // a reroute leaving the miswired links out.
    check_cabling();
    publish_sa_snapshot();
    publish_.slurm.update(options_.slurm_topology_file, sa_.snapshot(),
                          node_names_.snapshot().get());
    perfmgr_.set_fabric(perfmgr_view(fabric_));
    routes::write_dumps(fabric_, router_.topology(), router_.routes(), options_, log_);
    start_cc_round();  // sent between sweeps (step), never in the way of one
    // The tables no port needs to come up, read once per device: never in the way of
    // SUBNET UP; the SA gets them with a second snapshot (zeros until then, as OpenSM).
    const bool reading = port_tables_.read(fabric_, client_).total() > 0;
    grade_routes_after_up();  // while those reads flow
    if (reading) {
      drain(stop);
      publish_sa_snapshot();
    }
    log_->flush();
  } else {
    log_->error("ERRORS DURING INITIALIZATION: {} problems in {:.3f} s; next sweep is heavy",
                r.report.problems.size(), r.seconds);
    grade_routes_after_up();  // the routes programmed, graded all the same
  }
  // OpenSM: guid2mkey at the end of every completed heavy sweep.
  mkeys_.save(fabric_, options_.cache_dir, options_.fsync_high_avail_files);
  return r;
}

bool SubnetManager::may_target() const {
  return reroute::may_target(
      {loop_.heavy_reason, loop_.full_sweep_trap, state(), first_master_sweep_done_,
       options_.force_heavy_sweep, tables_.takeover_pending()},
      fabric_);
}

// The targeted sweep is sm/reroute/'s; the loop's bookkeeping and the log stay here.
std::optional<SweepResult> SubnetManager::targeted_sweep(const std::atomic<bool>& stop) {
  const auto t0 = clock_.now();
  const auto before = client_.counters();
  const HeavyReason why = loop_.heavy_reason;
  const bool late_trap = std::exchange(loop_.trap_while_sweeping, false);
  // Traps arriving from here on ask for another sweep.
  loop_.heavy_reason = HeavyReason::kNone;
  set_phase(SweepPhase::kTargetedSweep);
  log_->info("INITIATING TARGETED SWEEP ({})", heavy_reason_name(why));
  const std::function<bool()> drained = [&] {
    drain(stop);
    return !stop.load();
  };
  reroute::TargetedOutcome out =
      reroute::targeted_sweep({fabric_, client_, drained, why, late_trap});
  if (std::holds_alternative<reroute::targeted::Stopped>(out)) return SweepResult{};
  if (const auto* fb = std::get_if<reroute::targeted::FallBack>(&out)) {
    log_->info("targeted sweep: {}; full heavy sweep", fb->reason);
    if (loop_.heavy_reason == HeavyReason::kNone) loop_.heavy_reason = why;
    set_phase(SweepPhase::kIdle);
    return std::nullopt;
  }
  if (const auto* quiet = std::get_if<reroute::targeted::NoLinkChange>(&out)) {
    // Nothing the routes depend on: clear the flags (write 1, IBA 14.2.5.4) and go on.
    reroute::clear_port_state_change(fabric_, client_, quiet->flagged);
    drain(stop);
    set_phase(SweepPhase::kIdle);
    log_->info("targeted sweep: no link change ({} switches flagged a port change)",
               quiet->flagged.size());
    SweepResult r;
    r.subnet_up = true;
    r.seconds = std::chrono::duration<double>(clock_.now() - t0).count();
    return r;
  }
  auto& changed = std::get<reroute::targeted::LinkChanges>(out);
  log_->info("targeted sweep: {}", changed.description);
  PreparedFabric prepared{std::move(changed.fabric), t0, before, std::move(changed.touched)};
  return heavy_sweep(stop, &prepared);
}

SweepResult SubnetManager::light_sweep(const std::atomic<bool>& stop) {
  SweepResult result;
  const auto t0 = clock_.now();
  const auto before = client_.counters();
  set_phase(SweepPhase::kLightSweep);
  // Fabric health's unresponsive condition (shared: an answer may come after a stop).
  auto no_answer = std::make_shared<std::vector<NodeIndex>>();
  for (NodeIndex i = 0; i < fabric_.size(); ++i) {
    const Node& n = fabric_.node(i);
    if (!n.is_switch()) continue;
    client_.submit(SmpRequest::get<mad::SwitchInfo>(n.path),
                   [this, i, no_answer](const SmpOutcome& o) {
                     if (!o.ok()) {
                       loop_.heavy_reason = HeavyReason::kLightSweepFailed;
                       no_answer->push_back(i);
                       return;
                     }
                     auto si = mad::decode<mad::SwitchInfo>(o.response->data());
                     if (!si.ok() || si->port_state_change)
                       loop_.heavy_reason = HeavyReason::kPortStateChange;
                   });
  }
  // A master polls the SMs it knows (OpenSM's light sweep): another MASTER, or a
  // higher SM, needs a heavy sweep that ends in a handover one way or the other.
  election_.poll_known_sms();
  drain(stop);
  take_election_requests();
  if (state() == mad::SmState::kMaster) {
    publish_.health.observe_light_sweep(fabric_, *no_answer);
    act_on_health(fabric_, false);
  }
  set_phase(SweepPhase::kIdle);
  result.subnet_up = loop_.heavy_reason == HeavyReason::kNone;
  result.seconds = std::chrono::duration<double>(clock_.now() - t0).count();
  result.mads = minus(client_.counters(), before);
  if (result.subnet_up) log_->debug("LIGHT SWEEP COMPLETE: no change");
  return result;
}

}  // namespace ibsm::sm
