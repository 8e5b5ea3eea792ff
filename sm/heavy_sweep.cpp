// The heavy sweep: discover, assign LIDs, route, program, activate.
// Each phase is a barrier (all its SMPs answered) like OpenSM's, but inside a
// phase every request is queued at once so the SMP window never runs dry.
#include <sys/stat.h>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <utility>

#include "common/atomic_file.hpp"
#include "mad/attr/forwarding_table.hpp"
#include "mad/attr/port_info.hpp"
#include "mad/attr/switch_info.hpp"
#include "routing/errors.hpp"
#include "routing/file/lid_matrix_dump.hpp"
#include "routing/lft_dump.hpp"
#include "routing/route_report.hpp"
#include "sm/discovery.hpp"
#include "sm/fdr10.hpp"
#include "sm/perfmgr_link.hpp"
#include "sm/qos/link_vls.hpp"
#include "sm/qos/vlarb_programmer.hpp"
#include "sm/routing_config.hpp"
#include "sm/routing_input.hpp"
#include "sm/sl2vl_plan.hpp"
#include "sm/subnet_dump.hpp"
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

namespace {

// The route report decides nothing for an engine that claims no deadlock freedom and
// puts every path on SL 0 (minhop, dor, sssp, file; ftree with io_guids and reverse
// hops; updn with connect_roots): it is only told. Graded after SUBNET UP, it is not
// in the way of bring-up (kary-18-3-5832: 260 ms of CPU, competing with the P_Key
// reads for the SM's two cores).
bool grade_after_up(const routing::Engine& engine, const routing::Routes& routes) {
  return !engine.deadlock_free() && routes.path_sl.empty() && routes.sl2vl.empty();
}

}  // namespace

bool SubnetManager::compute_routes(const Fabric& f, SweepReport& report) {
  RoutingInput in = make_routing_input(f);
  routed_switches_ = in.switch_nodes;
  ungraded_.reset();  // routed_topology_ changes below
  // use_ucast_cache merges the new routes with these (the last sweep's).
  const routing::Topology previous_topology = std::exchange(routed_topology_, in.topology);
  // dfsssp spreads paths over as many layers as every link has VLs for: the VLs the
  // links run after this sweep's PortInfo programming (OpenSM: get_avail_vl_in_subn).
  // With QoS, qos_*max_vls may leave links fewer VLs (sm/qos/link_vls.hpp).
  EngineSettings settings = make_engine_settings(
      options_, engine_chain_,
      usable_vls(f, std::min(options_.max_op_vls, qos::max_op_vls_of_fabric(&qos_.config()))));
  for (const Error& w : settings.warnings)
    routing_log_->warn("{}: {}", format_error_id(w.id), w.message);
  const routing::EngineConfig& config = settings.config;
  std::vector<std::string> chain = engine_chain_;
  if (fallback_to_minhop_ && std::find(chain.begin(), chain.end(), "minhop") == chain.end())
    chain.push_back("minhop");
  for (const auto& name : chain) {
    auto engine =
        engine_factory_ ? engine_factory_(name, config) : routing::make_engine(name, config);
    if (!engine) continue;
    // The engine and the route report are pure (topology in, tables and grades out):
    // they run on a worker thread while this thread keeps answering SA requests and
    // SMInfo/traps, so a long routing step on a big fabric does not stall the SA.
    struct Outcome {
      Result<routing::Routes> routes = routing::Routes{};
      routing::RouteReport grade;
      double ms = 0;
      double report_ms = 0;
      bool graded_later = false;  // grade_after_up: no report yet
      std::string cache_note;     // use_ucast_cache: what the merge did
    };
    Outcome out = compute_while_serving([&] {
      using Clock = std::chrono::steady_clock;
      Outcome o;
      const auto t0 = Clock::now();
      o.routes = engine->route(in.topology);
      if (o.routes.ok() && options_.use_ucast_cache)
        o.routes = cached_routes(previous_topology, in.topology, std::move(*o.routes),
                                 engine->deadlock_free(), o.cache_note);
      const auto t1 = Clock::now();
      o.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
      o.graded_later = o.routes.ok() && grade_after_up(*engine, *o.routes);
      if (o.routes.ok() && !o.graded_later) {
        o.grade = routing::make_route_report(in.topology, *o.routes);
        o.report_ms = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
      }
      return o;
    });
    if (!out.routes.ok()) {
      routing_log_->warn("{}: routing engine {}: {}", format_error_id(out.routes.error().id), name,
                         out.routes.error().message);
      continue;
    }
    for (const Error& w : out.routes->warnings)
      routing_log_->warn("{}: routing engine {}: {}", format_error_id(w.id), name, w.message);
    if (!out.cache_note.empty()) routing_log_->info("ucast cache: {}", out.cache_note);
    note_routing(name, out.ms, nullptr);
    if (!out.graded_later) note_routing(name, out.ms, &out.grade);
    if (out.graded_later) {
      routing_log_->info(
          "routing engine {} computed {} LFTs in {:.1f} ms; route report once the subnet is up",
          name, out.routes->lfts.size(), out.ms);
      ungraded_ = UngradedRoutes{name, out.ms};
    } else {
      routing_log_->info(
          "routing engine {} computed {} LFTs in {:.1f} ms; route report ({:.1f} ms): {}", name,
          out.routes->lfts.size(), out.ms, out.report_ms,
          routing::format_route_report_line(out.grade));
      write_route_report(in.topology, out.grade, name, out.ms);
    }
    if (engine->deadlock_free() && !out.grade.acyclic()) {
      // The engine's guarantee failed: its tables could deadlock the fabric. Never program
      // them; the next engine of the chain gets its turn.
      std::string cycle;
      for (const routing::CdgVl& v : out.grade.cdg.vls)
        if (!v.acyclic)
          cycle =
              "VL " + std::to_string(v.vl) + ": " + routing::describe_cycle(in.topology, v.cycle);
      routing_log_->error(
          "{}: routing engine {} claims deadlock freedom but its routes have a credit "
          "loop, discarded; {}",
          format_error_id(routing::kErrCreditLoop), name, cycle);
      continue;
    }
    if (engine->complete() && !out.graded_later && !out.grade.complete()) {
      // The engine claims every LID reachable and its tables miss some: switches nobody
      // can manage in-band, or CAs cut off. Discarded like a credit loop.
      log_->error(
          "{}: routing engine {} claims to reach every LID but {} (source, LID) pairs are "
          "unreachable ({} to CAs, {} to switches), discarded; e.g. {}",
          format_error_id(routing::kErrRoutesIncomplete), name, out.grade.unreachable,
          out.grade.ca_unreachable, out.grade.switch_unreachable,
          out.grade.unreachable_examples.empty() ? "?" : out.grade.unreachable_examples.front());
      continue;
    }
    if (name != engine_chain_.front()) {
      routing_log_->warn("{}: routing engine '{}' failed; fell back to '{}'",
                         format_error_id(kErrRoutingFailed), engine_chain_.front(), name);
    }
    routes_ = std::move(*out.routes);
    path_sls_.reset();
    if (!routes_.path_sl.empty()) {
      routing_log_->info("routing engine {}: {} virtual layers, {} SLs over {} usable VLs", name,
                         routes_.path_sl.layers, routes_.path_sl.sls, config.max_vls);
      path_sls_ = std::make_shared<const routing::PathSls>(std::move(routes_.path_sl));
      routes_.path_sl = routing::PathSls{};
    }
    if (!routes_.sl2vl.empty())  // kept in routes_ for program_sl2vl
      routing_log_->info(
          "routing engine {}: per-port SL2VL tables for {} switches and {} end ports", name,
          routes_.sl2vl.switches.size(), routes_.sl2vl.end_ports.size());
    return true;
  }
  report.add(kErrRoutingFailed, "no routing engine could route the fabric");
  routing_log_->error("{}: no routing engine could route the fabric",
                      format_error_id(kErrRoutingFailed));
  return false;
}

void SubnetManager::write_route_report(const routing::Topology& topo,
                                       const routing::RouteReport& grade, const std::string& name,
                                       double ms) {
  ::mkdir(options_.cache_dir.c_str(), 0755);
  const std::string path = options_.cache_dir + "/ibsm-route-report.txt";
  if (auto st = write_file_atomically(
          path, routing::format_route_report_text(topo, grade, name, ms), false);
      !st.ok()) {
    routing_log_->warn("{}: {}", format_error_id(st.error().id), st.error().message);
  }
}

void SubnetManager::grade_routes_after_up() {
  if (!ungraded_) return;
  const UngradedRoutes u = *std::exchange(ungraded_, std::nullopt);
  // routes_ and routed_topology_ change only in compute_routes, never while serving.
  double ms = 0;
  const routing::RouteReport grade = compute_while_serving([&] {
    const auto t0 = std::chrono::steady_clock::now();
    routing::RouteReport g = routing::make_route_report(routed_topology_, routes_);
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return g;
  });
  routing_log_->info("route report of routing engine {} ({:.1f} ms): {}", u.engine, ms,
                     routing::format_route_report_line(grade));
  write_route_report(routed_topology_, grade, u.engine, u.ms);
  note_routing(u.engine, u.ms, &grade);
}

// A takeover: the LFTs a standby read count as programmed when the fabric is the one
// they were read in (same links, same LIDs), so only blocks that differ are sent.
void SubnetManager::adopt_mirrored_tables(const Fabric& f) {
  if (!takeover_tables_) return;
  election::MirroredTables t = std::move(*takeover_tables_);
  takeover_tables_.reset();
  if (t.empty()) {
    log_->info("takeover: no switch tables read while standby; every LFT block is sent");
    return;
  }
  if (election::topology_signature(f) != t.signature) {
    log_->info(
        "takeover: the fabric changed since the standby read its tables; every LFT block is "
        "sent");
    return;
  }
  log_->info("takeover: LFTs of {} switches read while standby; only blocks that differ are sent",
             t.lft.size());
  programmed_lft_ = std::move(t.lft);
  programmed_top_ = std::move(t.top);
}

// A switch that lost its tables (power cycle) must be programmed in full again.
void SubnetManager::forget_reset_switches(const Fabric& f) {
  std::unordered_map<Guid, std::vector<PortNum>> kept;
  std::unordered_map<Guid, Lid> kept_top;
  for (const Node& n : f.nodes()) {
    if (!n.is_switch() || !n.switch_info) continue;
    auto it = programmed_lft_.find(n.guid());
    auto top = programmed_top_.find(n.guid());
    if (it == programmed_lft_.end() || top == programmed_top_.end()) continue;
    if (n.switch_info->linear_fdb_top != top->second || n.ports[0].info.lid == 0) continue;
    kept.emplace(n.guid(), std::move(it->second));
    kept_top.emplace(n.guid(), top->second);
  }
  programmed_lft_ = std::move(kept);
  programmed_top_ = std::move(kept_top);
}

void SubnetManager::program_switches(Fabric& f, SweepReport& report) {
  // A feed, switch by switch as the window takes them, as program() does: the wire
  // works while the next switches' blocks are compared (kary-18-3-5832: 73 ms of CPU
  // in which the wire stood idle when they were all queued first), and while the
  // P_Key planner runs on its worker (PartitionManager::program).
  client_.submit_feed([this, &f, &report, s = std::size_t{0}](mad::SmpClient& client) mutable {
    const std::size_t before = client.queued();
    const std::size_t n = std::min(routes_.lfts.size(), routed_switches_.size());
    while (s < n && client.queued() == before)
      program_switch(f, report, s++);
    return s < n;
  });
}

void SubnetManager::program_switch(Fabric& f, SweepReport& report, std::size_t s) {
  const NodeIndex idx = routed_switches_[s];
  Node& node = f.node(idx);
  if (!node.switch_info) return;
  const routing::Lft& lft = routes_.lfts[s];
  const Guid guid = node.guid();
  const mad::DrPath path = node.path;
  Lid top = 0;
  for (std::size_t l = lft.size(); l-- > 1;) {
    if (lft[l] != routing::kNoPath) {
      top = static_cast<Lid>(l);
      break;
    }
  }
  // LifeTimeValue: how long a packet may wait in the switch (opensm.conf
  // packet_life_time, IBA 14.2.5.4; OpenSM sets it with LinearFDBTop).
  const std::uint8_t life = options_.packet_life_time;
  if (node.switch_info->linear_fdb_top != top || node.switch_info->port_state_change ||
      node.switch_info->life_time_value != life) {
    mad::SwitchInfo si = *node.switch_info;
    si.linear_fdb_top = top;
    si.life_time_value = life;
    si.port_state_change = true;  // write 1 to clear (IBA 14.2.5.4)
    client_.submit(SmpRequest::set(path, si), [this, &f, &report, idx, guid,
                                               top](const SmpOutcome& o) {
      if (!o.ok()) {
        report_failure(routing_log_, &report, kErrProgrammingFailed, o, "SwitchInfo LinearFDBTop");
        mkey_hint(o);
        return;
      }
      programmed_top_[guid] = top;
      // The GetResp of a Set carries what the switch now holds (SA SwitchInfoRecord).
      Node* n = f.node_if(idx, guid);
      if (auto held = mad::decode<mad::SwitchInfo>(o.response->data()); held.ok() && n)
        n->switch_info = *held;
    });
  } else {
    programmed_top_[guid] = top;
  }
  auto& held = programmed_lft_[guid];
  const std::size_t blocks =
      (static_cast<std::size_t>(top) + mad::LftBlock::kEntries) / mad::LftBlock::kEntries;
  if (held.size() < blocks * mad::LftBlock::kEntries) {
    // Unknown contents: assume nothing useful and send every block.
    held.resize(blocks * mad::LftBlock::kEntries, 0);
    std::fill(held.begin(), held.end(), std::uint8_t{0xFE});  // never equals a real entry
  }
  for (std::size_t b = 0; b < blocks; ++b) {
    mad::LftBlock block;
    for (std::size_t e = 0; e < mad::LftBlock::kEntries; ++e) {
      const std::size_t lid = b * mad::LftBlock::kEntries + e;
      block.ports[e] = lid < lft.size() ? lft[lid] : routing::kNoPath;
    }
    if (std::equal(block.ports.begin(), block.ports.end(),
                   held.begin() + static_cast<std::ptrdiff_t>(b * mad::LftBlock::kEntries)))
      continue;
    ++lft_blocks_sent_;
    client_.submit(
        SmpRequest::set(path, block, static_cast<std::uint32_t>(b)),
        [this, &report, guid, b, block](const SmpOutcome& o) {
          if (!o.ok()) {
            report_failure(routing_log_, &report, kErrProgrammingFailed, o, "LFT block");
            mkey_hint(o);
            return;
          }
          // Forgotten meanwhile (the switch left or was reset): its
          // table is unknown again and is sent whole next time.
          auto h = programmed_lft_.find(guid);
          if (h == programmed_lft_.end() || h->second.size() < (b + 1) * mad::LftBlock::kEntries)
            return;
          std::copy(block.ports.begin(), block.ports.end(),
                    h->second.begin() + static_cast<std::ptrdiff_t>(b * mad::LftBlock::kEntries));
        });
  }
}

void SubnetManager::program_sl2vl(Fabric& f, SweepReport& report) {
  sl2vl_counts_.reset();
  // Every path on SL 0 and no QoS: whatever the ports map SL 0 to will do.
  if (!path_sls_ && !qos_.config().enabled) return;
  auto counts = std::make_shared<Sl2VlCounts>();
  sl2vl_counts_ = counts;
  // Engines with per-hop VLs (torus-2QoS) hand their own tables; the rest get identity, or
  // with QoS their port class's qos_*sl2vl (sm/sl2vl_plan.hpp says how they combine).
  const EngineSl2Vl engine_tables = engine_sl2vl(routed_topology_, routes_.sl2vl);
  const char* what = qos_.config().enabled ? "SL2VL for QoS" : "SL2VL for per-path SLs";
  for (const Sl2VlWant& w : sl2vl_wants(f, options_.max_op_vls, engine_tables, &qos_.config())) {
    const Node& n = f.node(w.node);
    port_tables_.ensure(n);
    const Guid guid = n.guid();
    // A CA answers for the port the SMP enters by: address it through its peer.
    mad::DrPath path = n.path;
    if (const Port& p = n.ports[w.out]; !n.is_switch() && p.peer != kNoNode) {
      if (auto ext = f.node(p.peer).path.extended(p.peer_port)) path = *ext;
    }
    const std::uint32_t mod = !n.is_switch() ? 0
                              : w.all_inputs ? mad::sl2vl_all_inputs_attr_mod(w.out)
                                             : mad::sl2vl_attr_mod(w.in, w.out);
    // The tables one Set writes: (in, out), or with all_inputs every input of the switch.
    std::vector<PortNum> inputs{w.in};
    if (w.all_inputs) {
      inputs.clear();
      for (PortNum in = 0; in <= n.num_ports(); ++in)
        inputs.push_back(in);
    }
    const mad::SlToVlTable table = w.table;
    ++counts->wanted;
    const auto set = [this, &report, guid, path, mod, table, w, inputs, counts] {
      ++counts->sets;
      SmpRequest req = SmpRequest::set(path, table, mod);
      // OpenSM (osm_qos.c): an optimized Set may take the switch long to carry out.
      if (w.all_inputs) req.timeout = qos_.long_timeout();
      client_.submit(req, [this, &report, guid, w, table, inputs](const SmpOutcome& o) {
        if (o.ok()) {
          for (PortNum in : inputs)
            port_tables_.record_sl2vl(guid, w.out, in, table);
          return;
        }
        // A port that refuses the table cannot be helped by retrying (OpenSM logs it and
        // goes on); a lost answer is a failure the next heavy sweep retries.
        if (o.failure != nullptr && o.failure->kind == mad::SmpFailure::Kind::kStatus) {
          // suppress_sl2vl_mad_status_errors: devices known to refuse (no SL2VL support
          // although they advertise it) need not fill the log every sweep.
          log_->log(options_.suppress_sl2vl_mad_status_errors ? spdlog::level::debug
                                                              : spdlog::level::warn,
                    "{}: SLtoVLMappingTable Set refused: {}: status 0x{:04x}",
                    format_error_id(kErrProgrammingFailed), o.request.describe(),
                    o.failure->status);
          return;
        }
        report_failure(log_, &report, kErrProgrammingFailed, o, "SLtoVLMappingTable");
        mkey_hint(o);
      });
    };
    if (w.all_inputs) {
      // Known only when every table the Set stands for is; Gets of each input would cost
      // what the optimized form saves, so an unknown port gets the Set.
      bool same = true;
      for (PortNum in : sl2vl_inputs(f, w.node, w.out)) {
        const auto held = port_tables_.sl2vl(guid, w.out, in);
        same = same && held && *held == table.packed();
      }
      if (same) {
        ++counts->known;
        continue;
      }
      set();
      continue;
    }
    if (auto held = port_tables_.sl2vl(guid, w.out, w.in)) {
      ++counts->known;
      if (*held != table.packed()) set();
      continue;
    }
    // Unknown: a Get costs what a Set does, and spares the Set where the port already
    // maps as wanted (ports often reset to SL i -> VL i mod VLs). Either way the table
    // is then known, and later sweeps send nothing for it.
    ++counts->gets;
    client_.submit(SmpRequest::get<mad::SlToVlTable>(path, mod),
                   [this, guid, w, table, set](const SmpOutcome& o) {
                     if (o.ok()) {
                       const auto held = mad::SlToVlTable::decode_payload(o.response->data());
                       port_tables_.record_sl2vl(guid, w.out, w.in, held);
                       if (held.packed() == table.packed()) return;
                     }
                     set();
                   });
  }
  log_->info("{}: {} tables wanted, {} known, {} to read", what, counts->wanted, counts->known,
             counts->gets);
}

SweepResult SubnetManager::heavy_sweep(const std::atomic<bool>& stop, PreparedFabric* prepared) {
  SweepResult result;
  result.heavy = true;
  const auto t0 = prepared ? prepared->t0 : clock_.now();
  const auto before = prepared ? prepared->before : client_.counters();
  lft_blocks_sent_ = 0;
  if (!prepared) {
    log_->info("INITIATING HEAVY SWEEP ({})", heavy_reason_name(heavy_reason_));
    heavy_reason_ = HeavyReason::kNone;
    full_sweep_trap_ = false;
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
    mkeys_.index_lids(fabric_);
    if (!lft_mirror_.running()) lft_mirror_.start(fabric_);
    return finish(false);
  }
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
  adopt_mirrored_tables(f);
  forget_reset_switches(f);
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
  const bool routed = compute_routes(f, result.report);
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
  program_switches(f, result.report);
  partitions_.program(f, client_, result.report, pure_runner());
  // The policy file's qos-setup, for the three below.
  qos_.update_setup(f, options_, {partitions_.resolved(), partitions_.last_plan().membership});
  program_sl2vl(f, result.report);
  const qos::VlArbCounts vlarb = qos::program_vlarb(ctx, qos_.config(), port_tables_, log_);
  program_fdr10(f, fabric_, static_cast<Fdr10Mode>(options_.fdr10), client_, log_);
  program_ports(mad::PortState::kArmed, false);
  // Alias GUIDs the SA assigned, only blocks the ports lack; a new master rewrites all.
  alias_guids_.program_all(f, sa_.state().aliases, client_, !first_master_sweep_done_);
  drain(stop);
  if (stop.load()) return finish(false);

  if (sl2vl_counts_ && sl2vl_counts_->sets > 0)
    log_->info("SL2VL: {} tables Set", sl2vl_counts_->sets);
  if (vlarb.sets > 0) log_->info("QoS: {} VLArbitrationTable blocks Set", vlarb.sets);
  set_phase(SweepPhase::kActivation);
  program_ports(mad::PortState::kActive, false);
  // MFTs ride with the activation: the SwitchInfo a MulticastFDBTop Set carries must
  // hold the LinearFDBTop the programming phase's answers confirmed.
  mcast_.program_all(f, routed_topology_, routed_switches_, sa_.state().mcast, options_, client_,
                     result.report, pure_runner());
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
  mkeys_.index_lids(fabric_);
  if (up) {
    Lid max_lid = 0;
    for (const auto& h : fabric_.lid_holders()) {
      const Port& p = fabric_.node(h.node).ports[h.port];
      max_lid = std::max<Lid>(max_lid, static_cast<Lid>(p.lid + (1u << p.lmc) - 1));
    }
    log_sys_event(
        log_, fmt::format("SUBNET UP: {} sweep {:.3f} s, {} nodes ({} switches, {} end "
                          "ports), LIDs 1-{}, MADs sent {}, received {}, retries {}, "
                          "timeouts {}, LFT blocks {}{}",
                          prepared ? "targeted" : "heavy", r.seconds, r.nodes, r.switches,
                          r.end_ports, max_lid, r.mads.sent, r.mads.received, r.mads.retries,
                          r.mads.timeouts, lft_blocks_sent_, loss_note(r.mads, client_.loss())));
    ops_seam_.set_last_up(
        fmt::format("SUBNET UP: {} nodes ({} switches, {} end ports), heavy sweep {:.3f} s",
                    r.nodes, r.switches, r.end_ports, r.seconds));
    report_status();
    partitions_.log_groups();
    partitions_.save(fabric_);
    publish_sa_snapshot();
    perfmgr_.set_fabric(perfmgr_view(fabric_));
    write_dumps();
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

// OpenSM writes opensm-lfts.dump (ibroute's format) when routing logging (0x40)
// is on; so does ibsm, so both SMs' tables can be diffed.
void SubnetManager::write_dumps() {
  if (options_.dump_files_dir.empty()) return;
  ::mkdir(options_.dump_files_dir.c_str(), 0755);
  std::string dir = options_.dump_files_dir;
  if (dir.back() != '/') dir += '/';
  // opensm-subnet.lst is written after every heavy sweep, as OpenSM does.
  if (auto st = write_file_atomically(
          dir + "opensm-subnet.lst", [this](std::ostream& out) { write_subnet_lst(out, fabric_); },
          false);
      !st.ok()) {
    log_->warn("{}", to_string(st.error()));
  }
  if ((options_.log_flags & 0x40) == 0) return;
  const std::string path = dir + "opensm-lfts.dump";
  std::ofstream out(path, std::ios::trunc);
  routing::dump_lfts(out, routed_topology_, routes_);
  if (!out) log_->warn("cannot write {}", path);
  // opensm-lid-matrix.dump too, as OpenSM's osm_dump_all: the input of `-R file -M`.
  const std::string matrix_path = dir + "opensm-lid-matrix.dump";
  std::ofstream matrix(matrix_path, std::ios::trunc);
  if (!routing::dump_lid_matrix(matrix, routed_topology_).ok() || !matrix)
    log_->warn("cannot write {}", matrix_path);
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
