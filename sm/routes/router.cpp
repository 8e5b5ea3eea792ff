// Router: the engine chain, grading and the routes in force (sm/routes/router.hpp).
#include "sm/routes/router.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <utility>

#include "common/atomic_file.hpp"
#include "routing/errors.hpp"
#include "sm/errors.hpp"
#include "sm/qos/link_vls.hpp"
#include "sm/reroute/ucast_cache.hpp"
#include "sm/routes/routing_config.hpp"
#include "sm/routes/routing_input.hpp"
#include "sm/tables/sl2vl_plan.hpp"

namespace ibsm::sm::routes {

namespace {

// The route report decides nothing for an engine that claims no deadlock freedom and
// puts every path on SL 0 (minhop, dor, sssp, file; ftree with io_guids and reverse
// hops; updn with connect_roots): it is only told. Graded after SUBNET UP, it is not
// in the way of bring-up (kary-18-3-5832: 260 ms of CPU, competing with the P_Key
// reads for the SM's two cores).
bool grade_after_up(const routing::Engine& engine, const routing::Routes& routes) {
  return !engine.deadlock_free() && routes.path_sl.empty() && routes.sl2vl.empty();
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::vector<std::string> split_engines(const std::string& list, bool& fallback) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  std::string item;
  fallback = true;
  while (std::getline(ss, item, ',')) {
    while (!item.empty() && item.front() == ' ')
      item.erase(item.begin());
    while (!item.empty() && item.back() == ' ')
      item.pop_back();
    if (item.empty()) continue;
    if (item == "no_fallback") {
      fallback = false;
      continue;
    }
    out.push_back(item);
  }
  if (out.empty()) out.push_back("minhop");
  return out;
}

Router::Router(Logger log, Logger routing_log, const std::string& engines)
    : log_(std::move(log)), routing_log_(std::move(routing_log)) {
  chain_ = split_engines(engines, fallback_to_minhop_);
}

RouteOutcome Router::compute(const SweepContext& ctx, const qos::QosConfig* qos) {
  const Fabric& f = ctx.fabric;
  const conf::Options& options = ctx.options;
  RouteOutcome result;
  RoutingInput in = make_routing_input(f, &excluded_);
  switches_ = in.switch_nodes;
  ungraded_.reset();  // topology_ changes below
  // What the engines' worker reads, immutable: this sweep's topology, and for
  // use_ucast_cache the last sweep's topology and routes.
  const auto topo = std::make_shared<const routing::Topology>(std::move(in.topology));
  const std::shared_ptr<const routing::Topology> previous_topology = std::exchange(topology_, topo);
  const std::shared_ptr<const routing::Routes> previous_routes = routes_;
  const bool use_cache = options.use_ucast_cache || std::exchange(exclusions_changed_, false);
  // dfsssp spreads paths over as many layers as every link has VLs for: the VLs the
  // links run after this sweep's PortInfo programming (OpenSM: get_avail_vl_in_subn).
  // With QoS, qos_*max_vls may leave links fewer VLs (sm/qos/link_vls.hpp).
  EngineSettings settings = make_engine_settings(
      options, chain_, usable_vls(f, std::min(options.max_op_vls, qos::max_op_vls_of_fabric(qos))));
  for (const Error& w : settings.warnings)
    routing_log_->warn("{}: {}", format_error_id(w.id), w.message);
  const routing::EngineConfig& config = settings.config;
  std::vector<std::string> chain = chain_;
  if (fallback_to_minhop_ && std::find(chain.begin(), chain.end(), "minhop") == chain.end())
    chain.push_back("minhop");
  for (const auto& name : chain) {
    auto engine = factory_ ? factory_(name, config) : routing::make_engine(name, config);
    if (!engine) continue;
    // The engine and the route report are pure (topology in, tables and grades out):
    // they run on a worker thread while the SM keeps answering SA requests and
    // SMInfo/traps, so a long routing step on a big fabric does not stall the SA.
    struct Outcome {
      Result<routing::Routes> routes = routing::Routes{};
      routing::RouteReport grade;
      double ms = 0;
      double report_ms = 0;
      bool graded_later = false;  // grade_after_up: no report yet
      std::string cache_note;     // use_ucast_cache: what the merge did
    };
    Outcome out;
    routing::Engine* eng = engine.get();
    ctx.run_pure([&out, eng, topo, previous_topology, previous_routes, use_cache] {
      using Clock = std::chrono::steady_clock;
      const auto t0 = Clock::now();
      out.routes = eng->route(*topo);
      if (out.routes.ok() && use_cache)
        out.routes = cached_routes(*previous_topology, *previous_routes, *topo,
                                   std::move(*out.routes), eng->deadlock_free(), out.cache_note);
      const auto t1 = Clock::now();
      out.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
      out.graded_later = out.routes.ok() && grade_after_up(*eng, *out.routes);
      if (out.routes.ok() && !out.graded_later) {
        out.grade = routing::make_route_report(*topo, *out.routes);
        out.report_ms = ms_since(t1);
      }
    });
    if (!out.routes.ok()) {
      routing_log_->warn("{}: routing engine {}: {}", format_error_id(out.routes.error().id), name,
                         out.routes.error().message);
      continue;
    }
    for (const Error& w : out.routes->warnings)
      routing_log_->warn("{}: routing engine {}: {}", format_error_id(w.id), name, w.message);
    if (!out.cache_note.empty()) routing_log_->info("ucast cache: {}", out.cache_note);
    EngineRun& run = result.runs.emplace_back(EngineRun{name, out.ms, std::nullopt});
    if (!out.graded_later) run.grade = out.grade;
    if (out.graded_later) {
      routing_log_->info(
          "routing engine {} computed {} LFTs in {:.1f} ms; route report once the subnet is up",
          name, out.routes->lfts.size(), out.ms);
      ungraded_ = Ungraded{name, out.ms};
    } else {
      routing_log_->info(
          "routing engine {} computed {} LFTs in {:.1f} ms; route report ({:.1f} ms): {}", name,
          out.routes->lfts.size(), out.ms, out.report_ms,
          routing::format_route_report_line(out.grade));
      write_report(options.cache_dir, *topo, out.grade, name, out.ms);
    }
    if (engine->deadlock_free() && !out.grade.acyclic()) {
      // The engine's guarantee failed: its tables could deadlock the fabric. Never program
      // them; the next engine of the chain gets its turn.
      std::string cycle;
      for (const routing::CdgVl& v : out.grade.cdg.vls)
        if (!v.acyclic)
          cycle = "VL " + std::to_string(v.vl) + ": " + routing::describe_cycle(*topo, v.cycle);
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
    if (name != chain_.front()) {
      routing_log_->warn("{}: routing engine '{}' failed; fell back to '{}'",
                         format_error_id(kErrRoutingFailed), chain_.front(), name);
    }
    routing::Routes routes = std::move(*out.routes);
    path_sls_.reset();
    if (!routes.path_sl.empty()) {
      routing_log_->info("routing engine {}: {} virtual layers, {} SLs over {} usable VLs", name,
                         routes.path_sl.layers, routes.path_sl.sls, config.max_vls);
      path_sls_ = std::make_shared<const routing::PathSls>(std::move(routes.path_sl));
      routes.path_sl = routing::PathSls{};
    }
    if (!routes.sl2vl.empty())  // kept in the routes for the SL2VL programming
      routing_log_->info(
          "routing engine {}: per-port SL2VL tables for {} switches and {} end ports", name,
          routes.sl2vl.switches.size(), routes.sl2vl.end_ports.size());
    routes_ = std::make_shared<const routing::Routes>(std::move(routes));
    result.routed = true;
    return result;
  }
  ctx.report.add(kErrRoutingFailed, "no routing engine could route the fabric");
  routing_log_->error("{}: no routing engine could route the fabric",
                      format_error_id(kErrRoutingFailed));
  return result;
}

std::optional<LateGrade> Router::grade_pending(const conf::Options& options,
                                               const PureRunner& run_pure) {
  if (!ungraded_) return std::nullopt;
  const Ungraded u = *std::exchange(ungraded_, std::nullopt);
  LateGrade late{u.engine, u.ms, {}};
  // The worker grades snapshots of its own; compute() replaces, never changes, them.
  const std::shared_ptr<const routing::Topology> topo = topology_;
  const std::shared_ptr<const routing::Routes> routes = routes_;
  double ms = 0;
  routing::RouteReport& grade = late.grade;
  run_pure([&grade, &ms, topo, routes] {
    const auto t0 = std::chrono::steady_clock::now();
    grade = routing::make_route_report(*topo, *routes);
    ms = ms_since(t0);
  });
  routing_log_->info("route report of routing engine {} ({:.1f} ms): {}", u.engine, ms,
                     routing::format_route_report_line(grade));
  write_report(options.cache_dir, *topo, grade, u.engine, u.ms);
  return late;
}

void Router::write_report(const std::string& cache_dir, const routing::Topology& topo,
                          const routing::RouteReport& grade, const std::string& name,
                          double ms) const {
  ::mkdir(cache_dir.c_str(), 0755);
  const std::string path = cache_dir + "/ibsm-route-report.txt";
  if (auto st = write_file_atomically(
          path, routing::format_route_report_text(topo, grade, name, ms), false);
      !st.ok()) {
    routing_log_->warn("{}: {}", format_error_id(st.error().id), st.error().message);
  }
}

routing::Routes cached_routes(const routing::Topology& then, const routing::Routes& then_routes,
                              const routing::Topology& now, routing::Routes fresh,
                              bool deadlock_free, std::string& note) {
  std::optional<routing::Routes> kept_fresh;
  if (deadlock_free) kept_fresh = fresh;
  reroute::CacheMerge m;
  routing::Routes merged = reroute::merge_with_cache(then, then_routes, now, std::move(fresh), m);
  if (!m.used) {
    note = "not used (" + m.why_not + "): all " + std::to_string(m.lids) + " LIDs routed anew";
    return merged;
  }
  // Kept columns from two up*/down* rankings (or two layerings) may close a credit loop
  // that neither result has: then the new result as a whole.
  if (kept_fresh && !routing::make_route_report(now, merged).acyclic()) {
    note = "merged tables have a credit loop; all LIDs routed anew";
    return std::move(*kept_fresh);
  }
  note = fmt::format("{} of {} LIDs recomputed ({} switch entries), {} LFT entries changed",
                     m.recomputed, m.lids, m.renewed_entries, m.changed_entries);
  return merged;
}

}  // namespace ibsm::sm::routes
