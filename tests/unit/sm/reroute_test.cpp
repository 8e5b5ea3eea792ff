// The targeted sweep and the unicast cache (sm/reroute/) on a FakeFabric: a lost
// inter-switch link is routed around without rediscovery, a link back up is put to use,
// a node nobody knew forces the full heavy sweep, and with use_ucast_cache only the
// destinations whose routes crossed the lost link change.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "routing/analysis.hpp"
#include "sm/reroute/ucast_cache.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/to_routing.hpp"

namespace ibsm::sm {
namespace {

using fake::FakeFabric;
using mad::AttrId;
using mad::Method;

// Four leaves with two hosts each, two spines; leaf l's port 3 goes to spine0.
class Rig {
 public:
  explicit Rig(bool cache = false) : desc(testsupport::two_level_fat_tree(4, 2, 2)) {
    fabric = std::make_unique<FakeFabric>(desc, clock);
    options.cache_dir = dir.path() + "/cache";
    options.use_ucast_cache = cache;
    // REROUTE_TEST_LOG=1: the SM's log on stderr, for debugging a failure.
    Logger log = std::getenv("REROUTE_TEST_LOG") ? make_logger({.file = "stderr", .flags = 0x0f})
                                                 : null_logger();
    sm = std::make_unique<SubnetManager>(*fabric, clock, log, options);
  }
  SweepResult sweep() {
    fabric->reset_stats();
    return sm->sweep(stop);
  }
  std::uint64_t gets(AttrId a) const { return fabric->stats().count(Method::kGet, a); }
  std::vector<std::vector<PortNum>> lfts() const {
    std::vector<std::vector<PortNum>> out;
    for (std::uint32_t i = 0; i < fabric->size(); ++i)
      out.push_back(fabric->node(i).lft);
    return out;
  }
  std::string routes() const {
    std::string s;
    for (const auto& line : fabric->check_routes())
      s += line + "\n";
    return s;
  }

  FakeClock clock;
  testsupport::TempDir dir;
  testsupport::Fabric desc;
  std::unique_ptr<FakeFabric> fabric;
  conf::Options options;
  std::atomic<bool> stop{false};
  std::unique_ptr<SubnetManager> sm;
};

// leaf1 is reached through spine0 on the SM's first walk (h0_0 - leaf0 - spine0 -
// leaf1), so losing leaf1-spine0 also breaks the directed route the SM knew it by.
constexpr PortNum kLeafToSpine0 = 3;

std::size_t entries_to(const Rig& rig, const std::string& sw, PortNum port) {
  std::size_t n = 0;
  for (PortNum p : rig.fabric->node(rig.fabric->index(sw)).lft)
    n += p == port ? 1 : 0;
  return n;
}

TEST(TargetedSweep, LinkDownBetweenSwitchesIsRoutedAroundWithoutRediscovery) {
  Rig rig;
  ASSERT_TRUE(rig.sweep().subnet_up);
  ASSERT_GT(entries_to(rig, "leaf1", kLeafToSpine0), 0u);
  rig.fabric->set_link(rig.fabric->index("leaf1"), kLeafToSpine0, false);
  const SweepResult r = rig.sweep();
  EXPECT_TRUE(r.heavy);
  EXPECT_TRUE(r.subnet_up);
  EXPECT_EQ(rig.gets(AttrId::kNodeInfo), 0u) << "no rediscovery";
  EXPECT_EQ(rig.gets(AttrId::kNodeDescription), 0u);
  // PortInfo of the flagged switches' ports only, not of every port of the fabric.
  EXPECT_LE(rig.gets(AttrId::kPortInfo), 2u * 5u);
  EXPECT_EQ(rig.routes(), "");
  EXPECT_EQ(entries_to(rig, "leaf1", kLeafToSpine0), 0u);
  EXPECT_EQ(entries_to(rig, "spine0", 2), 0u);  // spine0's port to leaf1
  // The flags are cleared: the next sweep is light and sends nothing.
  const SweepResult quiet = rig.sweep();
  EXPECT_FALSE(quiet.heavy);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet), 0u);
}

TEST(TargetedSweep, LinkBackUpIsActivatedAndCarriesRoutesAgain) {
  Rig rig;
  ASSERT_TRUE(rig.sweep().subnet_up);
  rig.fabric->set_link(rig.fabric->index("leaf1"), kLeafToSpine0, false);
  ASSERT_TRUE(rig.sweep().subnet_up);
  rig.fabric->set_link(rig.fabric->index("leaf1"), kLeafToSpine0, true);
  const SweepResult r = rig.sweep();
  EXPECT_TRUE(r.heavy);
  EXPECT_TRUE(r.subnet_up);
  EXPECT_LE(rig.gets(AttrId::kNodeInfo), 2u) << "only the probes behind the ports that came up";
  EXPECT_EQ(rig.gets(AttrId::kNodeDescription), 0u);
  EXPECT_TRUE(rig.fabric->inactive_ports().empty());
  EXPECT_EQ(rig.routes(), "");
  EXPECT_GT(entries_to(rig, "leaf1", kLeafToSpine0), 0u);
}

TEST(TargetedSweep, UnknownNodeBehindAPortForcesTheFullHeavySweep) {
  Rig rig;
  // h3_1's cable is down at the first sweep: the SM never sees the host.
  const std::uint32_t leaf3 = rig.fabric->index("leaf3");
  rig.fabric->set_link(leaf3, 2, false);
  ASSERT_TRUE(rig.sweep().subnet_up);
  rig.fabric->set_link(leaf3, 2, true);
  const SweepResult r = rig.sweep();
  EXPECT_TRUE(r.heavy);
  EXPECT_TRUE(r.subnet_up);
  EXPECT_GT(rig.gets(AttrId::kNodeDescription), 0u) << "a full discovery";
  EXPECT_EQ(r.nodes, rig.desc.nodes.size());
  EXPECT_TRUE(rig.fabric->inactive_ports().empty());
  EXPECT_EQ(rig.routes(), "");
}

// Whether the route from switch `sw` to `lid` along `lfts` left by the lost link
// (`a` port `pa`, either direction).
bool route_crossed(const FakeFabric& f, const std::vector<std::vector<PortNum>>& lfts,
                   std::uint32_t sw, std::size_t lid, fake::PortRef a, fake::PortRef b) {
  for (std::size_t hop = 0; hop < f.size(); ++hop) {
    const PortNum out = lid < lfts[sw].size() ? lfts[sw][lid] : 0xFF;
    if (out == 0 || out == 0xFF) return false;
    const fake::PortRef here{sw, out};
    if (here == a || here == b) return true;
    const auto& cable = f.node(sw).ports[out].cable;
    if (!cable || !f.node(cable->node).is_switch()) return false;
    sw = cable->node;
  }
  return false;
}

// With the cache, a switch whose route to a LID did not leave by either end of the lost
// link keeps its entry; the tables are as valid as a full recompute's.
TEST(UcastCache, OnlyDestinationsThatCrossedTheLostLinkChange) {
  for (bool cache : {false, true}) {
    SCOPED_TRACE(cache ? "use_ucast_cache" : "no cache");
    Rig rig(cache);
    ASSERT_TRUE(rig.sweep().subnet_up);
    const auto before = rig.lfts();
    const std::uint32_t leaf1 = rig.fabric->index("leaf1");
    const std::uint32_t spine0 = rig.fabric->index("spine0");
    std::set<std::size_t> crossed;
    for (std::size_t lid = 1; lid < before[leaf1].size(); ++lid)
      if (before[leaf1][lid] == kLeafToSpine0 || before[spine0][lid] == 2) crossed.insert(lid);
    ASSERT_FALSE(crossed.empty());
    rig.fabric->set_link(leaf1, kLeafToSpine0, false);
    ASSERT_TRUE(rig.sweep().subnet_up);
    EXPECT_EQ(rig.routes(), "");
    const auto after = rig.lfts();
    const fake::PortRef end_a{leaf1, kLeafToSpine0};
    const fake::PortRef end_b{spine0, 2};
    std::size_t moved_elsewhere = 0;
    for (std::uint32_t sw = 0; sw < after.size(); ++sw)
      for (std::size_t lid = 1; lid < after[sw].size(); ++lid)
        if (after[sw][lid] != before[sw][lid] &&
            !route_crossed(*rig.fabric, before, sw, lid, end_a, end_b))
          ++moved_elsewhere;
    if (cache) {
      EXPECT_EQ(moved_elsewhere, 0u) << "an entry whose route avoided the link moved";
    }
    std::size_t moved = 0;
    for (std::size_t sw = 0; sw < after.size(); ++sw)
      for (std::size_t lid = 1; lid < after[sw].size(); ++lid)
        if (!crossed.contains(lid) && after[sw][lid] != before[sw][lid]) ++moved;
    if (cache)
      EXPECT_EQ(moved, 0u) << "routes that did not cross the link moved";
    else
      EXPECT_GT(moved, 0u) << "minhop's balancing moves other routes (why the cache exists)";
  }
}

TEST(UcastCache, NewLinkTakesTheFullResult) {
  Rig rig(true);
  ASSERT_TRUE(rig.sweep().subnet_up);
  const std::uint32_t leaf1 = rig.fabric->index("leaf1");
  const auto full = rig.lfts();
  rig.fabric->set_link(leaf1, kLeafToSpine0, false);
  ASSERT_TRUE(rig.sweep().subnet_up);
  rig.fabric->set_link(leaf1, kLeafToSpine0, true);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.routes(), "");
  // Back to the fabric of the first sweep: the same (deterministic) full result.
  EXPECT_EQ(rig.lfts(), full);
}

// The merge alone, on a 4-ary 3-tree, for engines of both kinds: the merged tables
// deliver every pair, and a link that came back takes the full new result.
routing::Topology without_first_isl(routing::Topology t, std::uint32_t& sw, PortNum& port) {
  for (std::uint32_t s = 0; s < t.switches.size(); ++s) {
    auto& links = t.switches[s].links;
    for (std::size_t i = 0; i < links.size(); ++i) {
      if (links[i].kind != routing::Link::Kind::kSwitch) continue;
      const routing::Link l = links[i];
      links.erase(links.begin() + static_cast<std::ptrdiff_t>(i));
      auto& back = t.switches[l.peer].links;
      std::erase_if(back, [&](const routing::Link& b) { return b.port == l.peer_port; });
      sw = s;
      port = l.port;
      return t;
    }
  }
  ADD_FAILURE() << "no inter-switch link";
  return t;
}

TEST(UcastCacheMerge, MergedTablesDeliverEveryPairForEachEngine) {
  const auto fixture = testsupport::to_routing(testsupport::kary_ntree(4, 3));
  std::uint32_t cut_sw = 0;
  PortNum cut_port = 0;
  const routing::Topology cut = without_first_isl(fixture.topo, cut_sw, cut_port);
  for (const char* name : {"minhop", "updn", "sssp"}) {
    SCOPED_TRACE(name);
    auto engine = routing::make_engine(name);
    ASSERT_TRUE(engine);
    auto before = engine->route(fixture.topo);
    auto fresh = engine->route(cut);
    ASSERT_TRUE(before.ok() && fresh.ok());
    reroute::CacheMerge m;
    const routing::Routes merged = reroute::merge_with_cache(fixture.topo, *before, cut, *fresh, m);
    ASSERT_TRUE(m.used) << m.why_not;
    EXPECT_GT(m.recomputed, 0u);
    EXPECT_LT(m.recomputed, m.lids);
    const routing::PairCheck check = routing::check_all_pairs(cut, merged);
    EXPECT_TRUE(check.all_delivered()) << (check.examples.empty() ? "" : check.examples[0]);
    for (PortNum p : merged.lfts[cut_sw])
      EXPECT_NE(p, cut_port) << "an entry still leaves by the lost link";
    // Back up: the kept routes would never use the link, so the full result is taken.
    reroute::CacheMerge back;
    const routing::Routes again =
        reroute::merge_with_cache(cut, merged, fixture.topo, *before, back);
    EXPECT_FALSE(back.used);
    EXPECT_EQ(back.why_not, "a new link");
    EXPECT_EQ(again.lfts, before->lfts);
  }
}

}  // namespace
}  // namespace ibsm::sm
