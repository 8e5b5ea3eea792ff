// The heavy sweep: discover, assign LIDs, route, program, activate.
// Each phase is a barrier (all its SMPs answered) like OpenSM's, but inside a
// phase every request is queued at once so the SMP window never runs dry.
#include <sys/stat.h>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <utility>

#include "common/atomic_file.hpp"
#include "mad/attr/port_info.hpp"
#include "mad/attr/switch_info.hpp"
#include "sm/discovery.hpp"
#include "sm/fdr10.hpp"
#include "sm/lid_manager.hpp"
#include "sm/perfmgr_link.hpp"
#include "sm/port_config.hpp"
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
  const routes::RouteOutcome out = router_.compute(ctx, &qos_);
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

bool SubnetManager::assign_lids(Fabric& f, SweepReport& report) {
  std::vector<LidRequest> requests;
  const auto holders = f.lid_holders();
  Lid max_lid = mad::kMaxUnicastLid;
  for (const Node& n : f.nodes()) {
    if (n.switch_info && n.switch_info->linear_fdb_cap > 0)
      max_lid = std::min<Lid>(max_lid, static_cast<Lid>(n.switch_info->linear_fdb_cap - 1));
  }
  for (const auto& h : holders) {
    const Node& n = f.node(h.node);
    const Port& p = n.ports[h.port];
    LidRequest r;
    r.guid = p.guid;
    r.current = p.info.lid;
    r.lmc = port_lmc(n.is_switch(), n.switch_info && n.switch_info->enhanced_port0, options_.lmc,
                     options_.lmc_esp0);
    r.is_sm_port = h.node == f.sm_node && h.port == f.sm_port;
    requests.push_back(r);
  }
  LidPolicy policy;
  policy.reassign = options_.reassign_lids && !first_master_sweep_done_;
  policy.guid2lid_first = options_.honor_guid2lid_file && election_.coming_out_of_standby();
  policy.max_lid = max_lid;
  auto lids = sm::assign_lids(requests, guid2lid_, policy);
  if (!lids.ok()) {
    lid_log_->error("{}: {}", format_error_id(lids.error().id), lids.error().message);
    report.add(lids.error().id, lids.error().message);
    return false;
  }
  for (std::size_t i = 0; i < holders.size(); ++i) {
    Port& p = f.node(holders[i].node).ports[holders[i].port];
    p.lid = (*lids)[i];
    p.lmc = requests[i].lmc;
    const LidRange range{p.lid, static_cast<Lid>(p.lid + (1u << p.lmc) - 1)};
    auto it = guid2lid_.find(p.guid);
    if (it == guid2lid_.end() || !(it->second == range)) {
      guid2lid_[p.guid] = range;
      guid2lid_dirty_ = true;
    }
    if (requests[i].is_sm_port) sm_lid_ = p.lid;
  }
  return true;
}

void SubnetManager::program(Fabric& f, SweepReport& report, mad::PortState target,
                            bool key_holders_only) {
  PortPolicy policy;
  policy.sm_lid = sm_lid_;
  policy.subnet_prefix = options_.subnet_prefix;
  policy.max_op_vls = options_.max_op_vls;
  policy.subnet_timeout = options_.subnet_timeout;
  policy.master_sm_sl = options_.sm_sl;
  policy.no_clients_rereg = options_.no_clients_rereg;
  policy.head_of_queue_lifetime = options_.head_of_queue_lifetime;
  policy.leaf_head_of_queue_lifetime = options_.leaf_head_of_queue_lifetime;
  policy.vl_stall_count = options_.vl_stall_count;
  policy.leaf_vl_stall_count = options_.leaf_vl_stall_count;
  policy.link = link_settings(options_);
  policy.untaken = &untaken_ports_;
  policy.client_reregister =
      !first_master_sweep_done_ && !options_.no_clients_rereg && target == mad::PortState::kArmed;
  policy.qos = &qos_;
  if (const mkey::MkeySettings& mk = mkeys_.settings(); mk.managed())
    policy.mkey = PortMkey{mk.m_key, mk.protect_bits, mk.lease_period};
  // A feed, node by node as the window takes them: the wire works while the Sets of
  // the next nodes are worked out (on fattree-2048, 7-13 ms of CPU for 8 000 Sets, in
  // which the wire stood idle when they were all queued first). The Sets of a node go
  // out in the order they are made, after whatever was queued before this call.
  client_.submit_feed([this, &f, &report, target, key_holders_only, policy, only = program_only_,
                       i = NodeIndex{0}](mad::SmpClient& client) mutable {
    const std::size_t before = client.queued();
    // A node that needs no Set is passed over in the same call: a feed that adds
    // nothing and says it has more is dropped.
    while (i < f.size() && client.queued() == before) {
      const NodeIndex n = i++;
      if (only && !(*only)[n]) continue;  // a targeted sweep: unchanged node
      program_node(f, report, n, policy, target, key_holders_only);
    }
    return i < f.size();
  });
}

void SubnetManager::program_node(Fabric& f, SweepReport& report, NodeIndex i,
                                 const PortPolicy& policy, mad::PortState target,
                                 bool key_holders_only) {
  Node& node = f.node(i);
  for (Port& port : node.ports) {
    if (port.num != 0 && port.peer == kNoNode) continue;  // link up, nobody known behind it
    if (key_holders_only && (node.is_switch() ? port.num != 0 : port.num == 0)) continue;
    auto want = desired_port_info(f, i, port.num, policy, target);
    if (!want) continue;
    // A CA answers for the port the SMP enters on: address it through its peer.
    mad::DrPath path = node.path;
    if (!node.is_switch() && port.peer != kNoNode) {
      if (auto ext = f.node(port.peer).path.extended(port.peer_port)) path = *ext;
    }
    const PortNum num = port.num;
    const mad::PortInfo wanted = *want;
    // The key this Set writes, where the port holds one (CA/router port, switch port 0).
    const bool holds_key = node.is_switch() ? num == 0 : num != 0;
    const std::optional<std::uint64_t> new_key =
        policy.mkey && holds_key ? std::optional(wanted.m_key) : std::nullopt;
    const Guid port_guid = port.guid;
    const std::uint32_t mod = port_info_set_modifier(f, i, num);
    const auto send = [this, &f, &report, i, num, path, wanted, new_key, port_guid, mod] {
      client_.submit(SmpRequest::set(path, wanted, mod), [this, &f, &report, i, num, path, wanted,
                                                          new_key, port_guid,
                                                          mod](const SmpOutcome& o) {
        if (o.ok()) {
          if (new_key) mkeys_.set_accepted(port_guid, *new_key);  // requests now carry it
          // The GetResp of a Set carries the port's new PortInfo.
          if (auto pi = mad::decode<mad::PortInfo>(o.response->data()); pi.ok()) {
            f.node(i).ports[num].info = speeds_checked(f.node(i), num, *pi);
            if (untaken_ports_.note(f.node(i).guid(), num, untaken_port_fields(wanted, *pi)))
              link_log_->debug(
                  "{} port {} ignored fields of its PortInfo Set; not sent again for them",
                  f.node(i).display_name(), num);
          }
          return;
        }
        if (o.failure->kind != mad::SmpFailure::Kind::kStatus) {
          report_failure(link_log_, &report, kErrProgrammingFailed, o, "PortInfo");
          mkey_hint(o);
          return;
        }
        // A rejected Set may be the retry of one that took effect but whose
        // answer was lost: asking for the state the port is already in is an
        // error (IBA 14.2.5.6). Read the port back before calling it a failure.
        client_.submit(SmpRequest::get<mad::PortInfo>(path, mod), [this, &f, &report, i, num,
                                                                   wanted](const SmpOutcome& g) {
          auto pi = g.ok() ? mad::decode<mad::PortInfo>(g.response->data())
                           : Result<mad::PortInfo>(fail(kErrProgrammingFailed, "no answer"));
          if (pi.ok() && port_set_took_effect(wanted, *pi)) {
            f.node(i).ports[num].info = speeds_checked(f.node(i), num, *pi);
            return;
          }
          report_failure(link_log_, &report, kErrProgrammingFailed, g, "PortInfo Set rejected");
        });
      });
    };
    if (!changes_link_and_state(wanted)) {
      send();
      continue;
    }
    // New speeds or widths go first in a Set that leaves the state alone, as OpenSM's
    // NO_CHANGE round does: a port may take them only then (ibsim applies them only
    // in such a Set), and a link that retrains must not lose the state change.
    mad::PortInfo link_first = wanted;
    link_first.port_state = mad::PortState::kNoChange;
    link_first.phys_state = mad::PhysState::kNoChange;
    link_first.client_reregister = false;
    client_.submit(SmpRequest::set(path, link_first, mod),
                   [this, &report, send](const SmpOutcome& o) {
                     if (!o.ok())
                       report_failure(link_log_, &report, kErrProgrammingFailed, o,
                                      "PortInfo Set (link speed/width)");
                     send();  // the LID and state go out whatever became of the speeds
                   });
  }
}

SweepResult SubnetManager::heavy_sweep(const std::atomic<bool>& stop, PreparedFabric* prepared) {
  SweepResult result;
  result.heavy = true;
  const auto t0 = prepared ? prepared->t0 : clock_.now();
  const auto before = prepared ? prepared->before : client_.counters();
  if (!prepared) {
    log_->info("INITIATING HEAVY SWEEP ({})", heavy_reason_name(heavy_reason_));
    heavy_reason_ = HeavyReason::kNone;
    full_sweep_trap_ = false;
  }

  Fabric f;
  if (prepared) {
    f = std::move(prepared->fabric);  // the targeted sweep's update of the last model
    building_ = &f;
    program_only_ = &prepared->touched;
  } else {
    set_phase(SweepPhase::kDiscovery);
    Discovery discovery(f, client_, result.report, module_logger(log_, LogModule::kDiscovery));
    // Requests carry the keys of the ports they reach, found in this fabric as it grows.
    building_ = &f;
    discovery.set_port_listener([this](const Node& n, PortNum p) { learn_mkey(n, p); });
    discovery.set_failure_listener([this](const SmpOutcome& o) { mkey_hint(o); });
    discovery.set_names(node_names_.snapshot());
    discovery.set_previous(&fabric_);  // ports known to have extended speeds: one Get
    discovery.start();
    drain(stop);
    discovery.finish();
  }
  auto finish = [&](bool up) {
    building_ = nullptr;
    program_only_ = nullptr;
    set_phase(SweepPhase::kIdle);
    result.subnet_up = up;
    // OpenSM's subnet_initialization_error: whoever sweeps next (run() or a test calling
    // sweep()) must sweep heavy, or a node that failed this time is never retried.
    // A sweep the election stopped (another SM is master) is no error.
    if (!up && !result.standby && heavy_reason_ == HeavyReason::kNone)
      heavy_reason_ = HeavyReason::kErrorsLastSweep;
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
  // The SA's other port tables (sm/port_tables.hpp) are read after SUBNET UP; what
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
    lid_index_ = mkey::index_lids(fabric_);
    if (!lft_mirror_.running()) lft_mirror_.start(fabric_);
    return finish(false);
  }
  if (election_.coming_out_of_standby()) {
    log_->info("leaving STANDBY: ports keep the LIDs they report{}",
               options_.honor_guid2lid_file
                   ? " unless guid2lid (honor_guid2lid_file) says otherwise"
                   : "");
  }

  set_phase(SweepPhase::kLidAssignment);
  tables_.adopt_mirrored_tables(f);
  tables_.forget_reset_switches(f);
  mcast_.forget_reset_switches(f);
  if (!assign_lids(f, result.report)) return finish(false);

  // P_Key tables of end ports and of switch ports facing them (the planner's input; a
  // targeted sweep's model still holds them), read while guid2lid is written and the
  // routes are computed: only programming needs them (kary-18-3-5832: 24 300 Gets, about
  // as long as minhop takes).
  if (!prepared) partitions_.read_tables(f, client_, result.report);
  save_guid2lid();
  set_phase(SweepPhase::kRouting);
  // What the sweep components (sm/routes, sm/tables) take besides their own inputs.
  const SweepContext ctx{f,
                         result.report,
                         client_,
                         options_,
                         pure_runner(),
                         program_only_,
                         [this](const SmpOutcome& o) { mkey_hint(o); },
                         !first_master_sweep_done_,
                         sm_lid_};
  const bool routed = compute_routes(ctx);
  drain(stop);  // the reads: programming plans with them, and their answers fill f
  if (!routed || stop.load()) return finish(false);

  set_phase(SweepPhase::kProgramming);
  if (mkeys_.settings().managed()) {
    // New M_Keys first, alone: every later request to a switch or CA port is resolved
    // with the key the port holds by then, never with the one a Set still in flight
    // is replacing (OpenSM's LID manager likewise programs these ports before the rest).
    program(f, result.report, mad::PortState::kArmed, true);
    drain(stop);
    if (stop.load()) return finish(false);
  }
  // The LFT blocks first: they flow while the P_Key planner runs on its worker.
  tables_.program_switches(ctx, router_.routes_ptr(), router_.switches());
  partitions_.program(f, client_, result.report, pure_runner());
  update_qos_setup(f);  // the policy file's qos-setup, for the three below
  tables_.program_sl2vl(ctx, {router_.topology(), router_.routes(), router_.path_sls() != nullptr,
                              &qos_, long_timeout_, port_tables_});
  program_vlarb(f, result.report);
  program_fdr10(f, fabric_, static_cast<Fdr10Mode>(options_.fdr10), client_, log_);
  program(f, result.report, mad::PortState::kArmed);
  // Alias GUIDs the SA assigned, only blocks the ports lack; a new master rewrites all.
  alias_guids_.program_all(f, sa_.state().aliases, client_, !first_master_sweep_done_);
  drain(stop);
  if (stop.load()) return finish(false);

  if (const auto* c = tables_.sl2vl_counts(); c && c->sets > 0)
    log_->info("SL2VL: {} tables Set", c->sets);
  if (vlarb_sets_ > 0) log_->info("QoS: {} VLArbitrationTable blocks Set", vlarb_sets_);
  set_phase(SweepPhase::kActivation);
  program(f, result.report, mad::PortState::kActive);
  // MFTs ride with the activation: the SwitchInfo a MulticastFDBTop Set carries must
  // hold the LinearFDBTop the programming phase's answers confirmed.
  mcast_.program_all(f, router_.topology(), router_.switches(), sa_.state().mcast, options_,
                     client_, result.report, pure_runner());
  drain(stop);
  if (stop.load()) return finish(false);

  const bool up = result.report.clean();
  if (up) {
    first_master_sweep_done_ = true;
    election_.clear_coming_out_of_standby();
  }
  set_phase(SweepPhase::kDone);
  auto r = finish(up);
  fabric_ = std::move(f);
  lid_index_ = mkey::index_lids(fabric_);
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
    last_up_ = fmt::format("SUBNET UP: {} nodes ({} switches, {} end ports), heavy sweep {:.3f} s",
                           r.nodes, r.switches, r.end_ports, r.seconds);
    report_status();
    partitions_.log_groups();
    partitions_.save(fabric_);
    publish_sa_snapshot();
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
  save_guid2mkey();  // OpenSM: at the end of every completed heavy sweep
  return r;
}

SweepResult SubnetManager::light_sweep(const std::atomic<bool>& stop) {
  SweepResult result;
  const auto t0 = clock_.now();
  const auto before = client_.counters();
  set_phase(SweepPhase::kLightSweep);
  for (const Node& n : fabric_.nodes()) {
    if (!n.is_switch()) continue;
    client_.submit(SmpRequest::get<mad::SwitchInfo>(n.path), [this](const SmpOutcome& o) {
      if (!o.ok()) {
        heavy_reason_ = HeavyReason::kLightSweepFailed;
        return;
      }
      auto si = mad::decode<mad::SwitchInfo>(o.response->data());
      if (!si.ok() || si->port_state_change) heavy_reason_ = HeavyReason::kPortStateChange;
    });
  }
  // A master polls the SMs it knows (OpenSM's light sweep): another MASTER, or a
  // higher SM, needs a heavy sweep that ends in a handover one way or the other.
  election_.poll_known_sms();
  drain(stop);
  take_election_requests();
  set_phase(SweepPhase::kIdle);
  result.subnet_up = heavy_reason_ == HeavyReason::kNone;
  result.seconds = std::chrono::duration<double>(clock_.now() - t0).count();
  result.mads = minus(client_.counters(), before);
  if (result.subnet_up) log_->debug("LIGHT SWEEP COMPLETE: no change");
  return result;
}

}  // namespace ibsm::sm
