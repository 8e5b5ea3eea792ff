// sm/routes: the Router without a SubnetManager, on a fabric model discovered from a
// FakeFabric: the engine chain and its fallback, discarded results (failure, credit
// loop), grading after SUBNET UP, the route report file, use_ucast_cache, the pure work
// going through SweepContext::run_pure, and the routes in force as immutable snapshots.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "routing/route_report.hpp"
#include "sm/errors.hpp"
#include "sm/routes/router.hpp"
#include "sm/routes/routing_input.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/sm/component_rig.hpp"

namespace ibsm::sm::routes_test {
namespace {

using routes::Router;
using testrig::NumberedRig;

// Five switches in a ring, a host on each: minhop's two-hop paths all turn the same
// way round the ring, a cycle of channel dependencies (a credit loop).
constexpr std::string_view kRing5 = R"(Switch 3 "s0"
[1] "s1"[2]
[2] "s4"[1]
[3] "h0"[1]

Switch 3 "s1"
[1] "s2"[2]
[2] "s0"[1]
[3] "h1"[1]

Switch 3 "s2"
[1] "s3"[2]
[2] "s1"[1]
[3] "h2"[1]

Switch 3 "s3"
[1] "s4"[2]
[2] "s2"[1]
[3] "h3"[1]

Switch 3 "s4"
[1] "s0"[2]
[2] "s3"[1]
[3] "h4"[1]

Hca 1 "h0"
[1] "s0"[3]

Hca 1 "h1"
[1] "s1"[3]

Hca 1 "h2"
[1] "s2"[3]

Hca 1 "h3"
[1] "s3"[3]

Hca 1 "h4"
[1] "s4"[3]
)";

// An engine that cannot route anything.
class Failing : public routing::Engine {
 public:
  std::string_view name() const override { return "failing"; }
  Result<routing::Routes> route(const routing::Topology&) override {
    return fail(kErrRoutingFailed, "refuses by design");
  }
};

// minhop's tables under a claim of deadlock freedom: on a ring the claim is false.
class Boastful : public routing::Engine {
 public:
  std::string_view name() const override { return "boastful"; }
  Result<routing::Routes> route(const routing::Topology& t) override {
    return routing::make_engine("minhop")->route(t);
  }
  bool deadlock_free() const override { return true; }
};

routes::EngineFactory fakes(int* made = nullptr) {
  return [made](std::string_view name,
                const routing::EngineConfig& c) -> std::unique_ptr<routing::Engine> {
    if (made) ++*made;
    if (name == "failing") return std::make_unique<Failing>();
    if (name == "boastful") return std::make_unique<Boastful>();
    return routing::make_engine(name, c);
  };
}

struct Bench {
  explicit Bench(testsupport::Fabric desc) : rig(std::move(desc)) {
    rig.options.cache_dir = dir.path();
  }
  testsupport::TempDir dir;
  NumberedRig rig;
};

TEST(RoutesSplitEngines, ParsesChainAndNoFallback) {
  bool fallback = false;
  EXPECT_EQ(routes::split_engines(" updn , minhop,no_fallback", fallback),
            (std::vector<std::string>{"updn", "minhop"}));
  EXPECT_FALSE(fallback);
  EXPECT_EQ(routes::split_engines("", fallback), (std::vector<std::string>{"minhop"}));
  EXPECT_TRUE(fallback);
}

TEST(Router, FailingEngineFallsBackToMinhop) {
  Bench b(testsupport::two_level_fat_tree(2, 2, 1));
  Router router(b.rig.log, b.rig.log, "failing");
  router.set_engine_factory(fakes());
  const routes::RouteOutcome out = router.compute(b.rig.ctx(), nullptr);
  ASSERT_TRUE(out.routed);
  EXPECT_TRUE(b.rig.report.clean());
  // Only engines that produced routes are noted for the ops snapshot.
  ASSERT_EQ(out.runs.size(), 1U);
  EXPECT_EQ(out.runs[0].engine, "minhop");
  EXPECT_NE(b.rig.log_text.str().find("routing engine failing: refuses by design"),
            std::string::npos);
  EXPECT_NE(b.rig.log_text.str().find("routing engine 'failing' failed; fell back to 'minhop'"),
            std::string::npos)
      << b.rig.log_text.str();
  // The tables in force are minhop's on this fabric, one row per switch node.
  const RoutingInput in = make_routing_input(b.rig.model);
  auto expected = routing::make_engine("minhop")->route(in.topology);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(router.routes().lfts, expected->lfts);
  EXPECT_EQ(router.switches(), in.switch_nodes);
  EXPECT_EQ(router.topology().switches.size(), in.topology.switches.size());
}

TEST(Router, NoFallbackLeavesTheSweepWithAProblem) {
  Bench b(testsupport::two_level_fat_tree(2, 2, 1));
  Router router(b.rig.log, b.rig.log, "failing,no_fallback");
  router.set_engine_factory(fakes());
  const routes::RouteOutcome out = router.compute(b.rig.ctx(), nullptr);
  EXPECT_FALSE(out.routed);
  EXPECT_TRUE(out.runs.empty());
  ASSERT_FALSE(b.rig.report.clean());
  EXPECT_EQ(b.rig.report.problems.front().id, kErrRoutingFailed);
  EXPECT_TRUE(router.routes().lfts.empty());  // nothing was ever in force
}

TEST(Router, CreditLoopOfADeadlockFreeClaimIsDiscarded) {
  Bench b(testrig::parse(kRing5));
  ASSERT_EQ(b.rig.model.switch_count(), 5U);
  {
    // The premise: minhop's tables on this ring close a credit loop.
    const RoutingInput in = make_routing_input(b.rig.model);
    auto r = routing::make_engine("minhop")->route(in.topology);
    ASSERT_TRUE(r.ok());
    ASSERT_FALSE(routing::make_route_report(in.topology, *r).acyclic());
  }
  Router router(b.rig.log, b.rig.log, "boastful");
  router.set_engine_factory(fakes());
  const routes::RouteOutcome out = router.compute(b.rig.ctx(), nullptr);
  ASSERT_TRUE(out.routed);
  ASSERT_EQ(out.runs.size(), 2U);
  // The boastful engine was graded at once (it claims deadlock freedom) and discarded.
  EXPECT_EQ(out.runs[0].engine, "boastful");
  ASSERT_TRUE(out.runs[0].grade.has_value());
  EXPECT_FALSE(out.runs[0].grade->acyclic());
  EXPECT_NE(b.rig.log_text.str().find(
                "IBSM-3006: routing engine boastful claims deadlock freedom but its "
                "routes have a credit loop, discarded"),
            std::string::npos)
      << b.rig.log_text.str();
  // minhop claims nothing: in force, its grade left for after SUBNET UP.
  EXPECT_EQ(out.runs[1].engine, "minhop");
  EXPECT_FALSE(out.runs[1].grade.has_value());
  auto late = router.grade_pending(b.rig.options, run_inline);
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(late->engine, "minhop");
  EXPECT_FALSE(late->grade.acyclic());
  EXPECT_FALSE(router.grade_pending(b.rig.options, run_inline).has_value());  // once
}

TEST(Router, GradeAfterUpWritesTheRouteReport) {
  Bench b(testsupport::two_level_fat_tree(2, 2, 1));
  Router router(b.rig.log, b.rig.log, "minhop");
  int pure_calls = 0;
  SweepContext ctx = b.rig.ctx();
  ctx.run_pure = [&pure_calls](const std::function<void()>& work) {
    ++pure_calls;
    work();
  };
  const routes::RouteOutcome out = router.compute(ctx, nullptr);
  ASSERT_TRUE(out.routed);
  EXPECT_EQ(pure_calls, 1);  // the engine ran as pure work
  const std::string report = b.dir.path() + "/ibsm-route-report.txt";
  EXPECT_FALSE(std::filesystem::exists(report));  // minhop is graded after SUBNET UP
  auto late = router.grade_pending(b.rig.options, ctx.run_pure);
  EXPECT_EQ(pure_calls, 2);
  ASSERT_TRUE(late.has_value());
  EXPECT_TRUE(late->grade.complete());
  EXPECT_GT(late->grade.pairs, 0U);
  std::ifstream in(report);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("minhop"), std::string::npos) << text.str();
  EXPECT_NE(b.rig.log_text.str().find("route report of routing engine minhop"), std::string::npos);
}

TEST(Router, RoutesInForceAreSnapshotsAFailedRoutingLeaves) {
  Bench b(testsupport::two_level_fat_tree(2, 2, 1));
  bool broken = false;
  Router router(b.rig.log, b.rig.log, "minhop,no_fallback");
  router.set_engine_factory(
      [&broken](std::string_view name,
                const routing::EngineConfig& c) -> std::unique_ptr<routing::Engine> {
        if (broken) return std::make_unique<Failing>();
        return routing::make_engine(name, c);
      });
  ASSERT_TRUE(router.compute(b.rig.ctx(), nullptr).routed);
  const std::shared_ptr<const routing::Routes> first = router.routes_ptr();
  const routing::Routes copy = *first;
  ASSERT_FALSE(copy.lfts.empty());
  // The next sweep's engine fails and there is no fallback: the routes in force stay.
  broken = true;
  ASSERT_FALSE(router.compute(b.rig.ctx(), nullptr).routed);
  EXPECT_EQ(router.routes_ptr(), first);
  // A later result replaces them; what an earlier reader (the SA, a worker) holds never
  // changes under it.
  broken = false;
  ASSERT_TRUE(router.compute(b.rig.ctx(), nullptr).routed);
  EXPECT_NE(router.routes_ptr(), first);
  EXPECT_EQ(first->lfts, copy.lfts);
}

TEST(Router, UcastCacheKeepsUntouchedDestinations) {
  Bench b(testsupport::two_level_fat_tree(2, 3, 2));
  b.rig.options.use_ucast_cache = true;
  Router router(b.rig.log, b.rig.log, "minhop");
  ASSERT_TRUE(router.compute(b.rig.ctx(), nullptr).routed);
  const routing::Routes before = router.routes();
  // The same fabric again: the merge keeps every column; nothing changes.
  ASSERT_TRUE(router.compute(b.rig.ctx(), nullptr).routed);
  EXPECT_NE(b.rig.log_text.str().find("ucast cache: "), std::string::npos) << b.rig.log_text.str();
  EXPECT_EQ(router.routes().lfts, before.lfts);
}

TEST(Router, DeadlockFreeEngineIsGradedAtOnce) {
  Bench b(testsupport::two_level_fat_tree(2, 2, 2));
  Router router(b.rig.log, b.rig.log, "updn");
  const routes::RouteOutcome out = router.compute(b.rig.ctx(), nullptr);
  ASSERT_TRUE(out.routed);
  ASSERT_EQ(out.runs.size(), 1U);
  ASSERT_TRUE(out.runs[0].grade.has_value());
  EXPECT_TRUE(out.runs[0].grade->acyclic());
  EXPECT_TRUE(std::filesystem::exists(b.dir.path() + "/ibsm-route-report.txt"));
  EXPECT_FALSE(router.grade_pending(b.rig.options, run_inline).has_value());
}

}  // namespace
}  // namespace ibsm::sm::routes_test
