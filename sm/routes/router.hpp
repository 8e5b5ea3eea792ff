// Router: the routing step of a heavy sweep and what it leaves (sm/routes/). It owns the
// engine chain of routing_engine, tries each engine in turn on the swept fabric, grades
// the result (credit loops and unreachable LIDs discard it; engines that promise
// nothing are graded after SUBNET UP), merges with the last result under
// use_ucast_cache, and keeps the routes the switches are programmed with.
//
// Engines and grading run through SweepContext::run_pure (on the SM, a worker thread
// while the SM keeps serving its port). What that work reads is its own: the topology
// and the last result as immutable shared snapshots, the options it needs copied. The
// ops bookkeeping (SubnetManager::note_routing) stays with the caller: the result says
// which engines routed, how long they took and how they graded.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/log.hpp"
#include "routing/engine.hpp"
#include "routing/route_report.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/qos/qos_config.hpp"
#include "sm/routes/routing_input.hpp"
#include "sm/sweep/pure_runner.hpp"
#include "sm/sweep/sweep_context.hpp"

namespace ibsm::sm::routes {

// Where routing engines come from: routing::make_engine unless a test puts a fake in
// its place. Returns nullptr for a name it does not know.
using EngineFactory = std::function<std::unique_ptr<routing::Engine>(
    std::string_view name, const routing::EngineConfig& config)>;

// routing_engine ("updn,minhop" or "ftree,no_fallback") as the chain of engines tried in
// order; `fallback` becomes false with no_fallback. Empty: minhop.
std::vector<std::string> split_engines(const std::string& list, bool& fallback);

// One engine that produced routes this sweep (kept or discarded afterwards), for the
// ops snapshot: its name and time, and its grade when it was graded now.
struct EngineRun {
  std::string engine;
  double ms = 0;
  std::optional<routing::RouteReport> grade;
};

struct RouteOutcome {
  bool routed = false;          // some engine's routes are now in force
  std::vector<EngineRun> runs;  // in the order they ran
};

// A result compute() left ungraded, graded after SUBNET UP.
struct LateGrade {
  std::string engine;
  double ms = 0;  // how long the engine took
  routing::RouteReport grade;
};

class Router {
 public:
  // `log` is the SM's root logger (one line goes there, as before the split),
  // `routing_log` the routing module's; `engines` is routing_engine.
  Router(Logger log, Logger routing_log, const std::string& engines);

  void set_engine_factory(EngineFactory f) { factory_ = std::move(f); }
  // Links routing leaves out from the next compute() on (routing_input.hpp). When the
  // set changes, that compute() merges with the routes in force as use_ucast_cache (-A)
  // does, whatever the option says: only routes that crossed a link now left out move.
  void set_excluded_links(const LinkExclusions& links) {
    if (links == excluded_) return;
    excluded_ = links;
    exclusions_changed_ = true;
  }
  const LinkExclusions& excluded_links() const { return excluded_; }
  const std::vector<std::string>& engine_chain() const { return chain_; }

  // Routes ctx.fabric (LIDs assigned). `qos` may leave links fewer VLs for dfsssp
  // (null: no QoS). Problems go to ctx.report. On success the routes are in force.
  RouteOutcome compute(const SweepContext& ctx, const qos::QosConfig* qos);
  // The report of routes compute() left ungraded (grade_after_up), if any; written to
  // the cache directory and logged as when graded at once.
  std::optional<LateGrade> grade_pending(const conf::Options& options, const PureRunner& run_pure);

  // The routes in force, row i for fabric node switches()[i]; path_sl moved out into
  // path_sls() (null for single-layer engines).
  const routing::Routes& routes() const { return *routes_; }
  const std::shared_ptr<const routing::Routes>& routes_ptr() const { return routes_; }
  const std::shared_ptr<const routing::PathSls>& path_sls() const { return path_sls_; }
  // The topology and switch rows of the last compute(): set when it starts, so after a
  // sweep whose routing failed they belong to that sweep and routes() to an earlier one.
  const routing::Topology& topology() const { return *topology_; }
  const std::shared_ptr<const routing::Topology>& topology_ptr() const { return topology_; }
  const std::vector<NodeIndex>& switches() const { return switches_; }

 private:
  void write_report(const std::string& cache_dir, const routing::Topology& topo,
                    const routing::RouteReport& grade, const std::string& name, double ms) const;

  Logger log_;
  Logger routing_log_;
  std::vector<std::string> chain_;  // tried in order
  bool fallback_to_minhop_ = true;
  EngineFactory factory_;  // empty: routing::make_engine
  std::shared_ptr<const routing::Routes> routes_ = std::make_shared<const routing::Routes>();
  std::shared_ptr<const routing::PathSls> path_sls_;
  std::shared_ptr<const routing::Topology> topology_ = std::make_shared<const routing::Topology>();
  std::vector<NodeIndex> switches_;
  struct Ungraded {
    std::string engine;
    double ms = 0;
  };
  std::optional<Ungraded> ungraded_;  // routes_ still to be graded (after SUBNET UP)
  LinkExclusions excluded_;           // links no route may cross
  bool exclusions_changed_ = false;   // since the last compute(): merge as -A
};

// use_ucast_cache: `fresh` merged with the last result (`then_routes` on `then`) so that
// destinations the change did not touch keep their routes (sm/reroute/ucast_cache.hpp).
// A deadlock-free engine's merge that closes a credit loop gives `fresh` back.
routing::Routes cached_routes(const routing::Topology& then, const routing::Routes& then_routes,
                              const routing::Topology& now, routing::Routes fresh,
                              bool deadlock_free, std::string& note);

}  // namespace ibsm::sm::routes
