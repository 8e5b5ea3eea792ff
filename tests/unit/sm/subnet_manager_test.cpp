// SubnetManager end to end on a FakeFabric: heavy sweep to SUBNET UP, light sweeps
// that change nothing, restart with guid2lid, and faults (silent, garbage, vanishing
// nodes, failing links, lost MADs, duplicate GUIDs), plus SMInfo and trap answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "common/atomic_file.hpp"
#include "mad/attr/notice.hpp"
#include "mad/attr/sm_info.hpp"
#include "sm/lids/guid2lid.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/hand_drawn.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/sweep_problems.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm::subnet_manager_test {
namespace {

using fake::FakeFabric;
using fake::Garbage;
using mad::AttrId;
using mad::Method;

constexpr std::string_view kHandDrawn = testsupport::kHandDrawnNet;

// CA -- switch -- switch -- switch -- CA.
constexpr std::string_view kLine = R"(Switch 2 "a"
[1] "ha"[1]
[2] "b"[1]

Switch 3 "b"
[1] "a"[2]
[2] "c"[1]

Switch 2 "c"
[1] "b"[2]
[2] "hc"[1]

Hca 1 "ha"
[1] "a"[1]

Hca 1 "hc"
[1] "c"[2]
)";

testsupport::Fabric net(std::string_view text) {
  auto f = testsupport::parse_net(text);
  if (!f.ok()) {
    ADD_FAILURE() << f.error().message;
    return {};
  }
  return *f;
}

using testsupport::TempDir;

// A fabric, an SM on it and the SM's cache directory.
class Rig {
 public:
  explicit Rig(testsupport::Fabric d, fake::FakeOptions fo = {}) : desc(std::move(d)) {
    fabric = std::make_unique<FakeFabric>(desc, clock, fo);
    options.cache_dir = dir.path() + "/cache";
    options.sm_priority = 7;
    restart();
  }

  void restart() { sm = std::make_unique<SubnetManager>(*fabric, clock, logger, options); }

  SweepResult sweep() {
    fabric->reset_stats();
    return sm->sweep(stop);
  }

  // LID of every LID-holding port in the fake, by port GUID.
  std::map<mad::Guid, std::pair<mad::Lid, std::uint8_t>> lids() const {
    std::map<mad::Guid, std::pair<mad::Lid, std::uint8_t>> out;
    for (std::uint32_t i = 0; i < fabric->size(); ++i) {
      const fake::FakeNode& n = fabric->node(i);
      if (n.gone) continue;
      for (mad::PortNum p = n.is_switch() ? 0 : 1; p <= (n.is_switch() ? 0 : n.num_ports()); ++p) {
        const auto& pi = n.ports[p].info;
        if (pi.lid == 0) continue;
        out[n.is_switch() ? n.info.node_guid : n.info.node_guid + p] = {pi.lid, pi.lmc};
      }
    }
    return out;
  }

  std::size_t cables() const { return desc.cables.size(); }
  std::size_t switches() const {
    return static_cast<std::size_t>(
        std::count_if(desc.nodes.begin(), desc.nodes.end(),
                      [](auto& n) { return n.type == testsupport::NodeType::kSwitch; }));
  }

  // What the SM logged, one "level message" line each.
  std::string log() const { return log_text.str(); }

  FakeClock clock;
  TempDir dir;
  std::ostringstream log_text;
  Logger logger = testsupport::capture_log(log_text, "sm", spdlog::level::info);
  testsupport::Fabric desc;
  std::unique_ptr<FakeFabric> fabric;
  conf::Options options;
  std::atomic<bool> stop{false};
  std::unique_ptr<SubnetManager> sm;
};

std::string join(const std::vector<std::string>& v, std::size_t max = 10) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < max; ++i)
    s += v[i] + "\n";
  if (v.size() > max) s += "... " + std::to_string(v.size() - max) + " more\n";
  return s;
}

using testsupport::problems;

// Everything a finished bring-up must satisfy, checked in the fake (not in the SM's model).
void expect_fabric_up(const Rig& rig, std::size_t lid_holders) {
  EXPECT_EQ(join(rig.fabric->inactive_ports()), "");
  const auto lids = rig.lids();
  EXPECT_EQ(lids.size(), lid_holders);
  std::set<unsigned> used;
  for (const auto& [guid, l] : lids) {
    EXPECT_EQ(l.first % (1u << l.second), 0u) << mad::format_guid(guid) << " misaligned";
    for (unsigned x = l.first; x < l.first + (1u << l.second); ++x)
      EXPECT_TRUE(used.insert(x).second) << "LID " << x << " held twice";
  }
  std::size_t routes = 0;
  EXPECT_EQ(join(rig.fabric->check_routes(&routes)), "");
  EXPECT_GE(routes, rig.switches() * lid_holders);
  // Every port knows the SM, which sits on LID 1 (the first range aligned for its LMC).
  const fake::PortRef smp = rig.fabric->sm_port();
  const auto& sm_info = rig.fabric->node(smp.node).ports[smp.port].info;
  EXPECT_EQ(sm_info.lid, sm_info.lmc == 0 ? 1 : 1u << sm_info.lmc);
  for (std::uint32_t i = 0; i < rig.fabric->size(); ++i) {
    const auto& n = rig.fabric->node(i);
    if (n.is_switch()) {
      EXPECT_EQ(n.ports[0].info.master_sm_lid, sm_info.lid) << n.id;
      EXPECT_FALSE(n.switch_info->port_state_change) << n.id;
    }
    for (mad::PortNum p = 1; !n.is_switch() && p <= n.num_ports(); ++p) {
      EXPECT_EQ(n.ports[p].info.master_sm_lid, sm_info.lid) << n.id;
    }
  }
  // guid2lid on disk matches the fabric.
  std::ifstream in(rig.options.cache_dir + "/guid2lid");
  std::stringstream text;
  text << in.rdbuf();
  const auto parsed = parse_guid2lid(text.str());
  EXPECT_TRUE(parsed.warnings.empty());
  EXPECT_EQ(parsed.db.size(), lid_holders);
  for (const auto& [guid, l] : lids) {
    auto it = parsed.db.find(guid);
    ASSERT_NE(it, parsed.db.end()) << mad::format_guid(guid);
    EXPECT_EQ(it->second.min, l.first);
    EXPECT_EQ(it->second.max, l.first + (1u << l.second) - 1);
  }
}

std::size_t lid_holders(const testsupport::Fabric& d) {
  std::size_t n = 0;
  for (const auto& node : d.nodes)
    n += node.type == testsupport::NodeType::kSwitch ? 1 : node.num_ports;
  return n;
}

void expect_cold_bring_up(Rig& rig) {
  const SweepResult r = rig.sweep();
  ASSERT_TRUE(r.subnet_up) << problems(r);
  EXPECT_TRUE(r.heavy);
  EXPECT_EQ(rig.sm->state(), mad::SmState::kMaster);
  EXPECT_EQ(r.nodes, rig.desc.nodes.size());
  EXPECT_EQ(r.switches, rig.switches());
  EXPECT_EQ(r.mads.timeouts, 0u);
  EXPECT_EQ(r.mads.retries, 0u);
  EXPECT_EQ(r.mads.unexpected, 0u);
  EXPECT_EQ(r.mads.errors, 0u);
  expect_fabric_up(rig, lid_holders(rig.desc));
}

// ---------------------------------------------------------------- bring-up

TEST(SubnetManagerBringUp, HandDrawnFabricWithLoopsAndParallelLinks) {
  Rig rig(net(kHandDrawn));
  expect_cold_bring_up(rig);
}

// lmc_esp0: with LMC 1, an enhanced switch port 0 answers to two LIDs only when the key
// is set; a base port 0 always to one (OpenSM's osm_lid_mgr.c).
TEST(SubnetManagerBringUp, LmcEsp0GivesEnhancedPort0TheLmc) {
  for (bool esp0 : {false, true}) {
    Rig rig(net(kLine));
    const auto a = rig.fabric->index("a"), b = rig.fabric->index("b");
    rig.fabric->node(a).switch_info->enhanced_port0 = true;
    rig.options.lmc = 1;
    rig.options.lmc_esp0 = esp0;
    rig.restart();
    ASSERT_TRUE(rig.sweep().subnet_up);
    const auto& pa = rig.fabric->node(a).ports[0].info;
    EXPECT_EQ(pa.lmc, esp0 ? 1 : 0) << "enhanced port 0, lmc_esp0 " << esp0;
    if (esp0) {
      EXPECT_EQ(pa.lid % 2, 0) << "a 2-LID range starts even";
    }
    EXPECT_EQ(rig.fabric->node(b).ports[0].info.lmc, 0) << "base port 0";
    EXPECT_EQ(rig.fabric->node(rig.fabric->index("ha")).ports[1].info.lmc, 1);
  }
}

TEST(SubnetManagerBringUp, LineOfSwitchesWithExactMadCounts) {
  Rig rig(net(kLine));
  expect_cold_bring_up(rig);
  const auto& st = rig.fabric->stats();
  const std::size_t nodes = 5, switches = 3, cables = 4;
  // Discovery: one NodeDescription per node, SwitchInfo per switch, PortInfo of every
  // switch port (0..N) and of each CA's port.
  EXPECT_EQ(st.count(Method::kGet, AttrId::kNodeDescription), nodes);
  EXPECT_EQ(st.count(Method::kGet, AttrId::kSwitchInfo), switches);
  EXPECT_EQ(st.count(Method::kGet, AttrId::kPortInfo), (3 + 4 + 3) + 2u);
  EXPECT_GE(st.count(Method::kGet, AttrId::kNodeInfo), nodes);
  EXPECT_LE(st.count(Method::kGet, AttrId::kNodeInfo), 1 + 2 * cables);
  // Programming: SwitchInfo (LinearFDBTop, PortStateChange) and one LFT block per
  // switch (5 LIDs), PortInfo for each switch port 0 and both ends of every cable
  // (Armed pass), both ends again (Active pass).
  EXPECT_EQ(st.count(Method::kSet, AttrId::kSwitchInfo), switches);
  EXPECT_EQ(st.count(Method::kSet, AttrId::kLinearForwardingTable), switches);
  EXPECT_EQ(st.count(Method::kSet, AttrId::kPortInfo), switches + 4 * cables);
  EXPECT_EQ(st.lost + st.dropped, 0u);
}

TEST(SubnetManagerBringUp, GeneratedTwoLevelFatTree) {
  Rig rig(testsupport::two_level_fat_tree(4, 6, 3));
  expect_cold_bring_up(rig);
  // 4*6 hosts + 7 switches = 31 LIDs: one LFT block per switch.
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kLinearForwardingTable), 7u);
}

TEST(SubnetManagerBringUp, GeneratedKaryNTree) {
  Rig rig(testsupport::kary_ntree(2, 3));
  expect_cold_bring_up(rig);
}

TEST(SubnetManagerBringUp, GeneratedMeshWithManyLidBlocks) {
  Rig rig(testsupport::torus({4, 4, 1}, 5, {false, false, false}));
  expect_cold_bring_up(rig);  // 96 LIDs: two LFT blocks per switch
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kLinearForwardingTable), 32u);
}

TEST(SubnetManagerBringUp, LmcGivesAlignedRangesAndRoutesEveryLid) {
  Rig rig(testsupport::two_level_fat_tree(2, 3, 2));
  rig.options.lmc = 2;
  rig.restart();
  expect_cold_bring_up(rig);
  for (const auto& [guid, l] : rig.lids()) {
    const bool is_switch = guid >= testsupport::kIbsimFirstSwitchGuid;
    EXPECT_EQ(l.second, is_switch ? 0 : 2) << mad::format_guid(guid);
  }
}

TEST(SubnetManagerBringUp, SmOnASwitch) {
  fake::FakeOptions fo;
  fo.sm_node = "s2";
  Rig rig(net(kHandDrawn), fo);
  expect_cold_bring_up(rig);
}

TEST(SubnetManagerBringUp, OnceModeRunsOneSweepAndReportsTheOutcome) {
  Rig rig(net(kLine));
  rig.options.once = true;
  rig.restart();
  ControlFlags control;
  EXPECT_EQ(rig.sm->run(control), 0);
  expect_fabric_up(rig, 5);

  Rig bad(net(kLine));
  bad.options.once = true;
  bad.restart();
  bad.fabric->faults(bad.fabric->index("hc")).silent = true;
  ControlFlags control2;
  EXPECT_EQ(bad.sm->run(control2), 1);
}

// ---------------------------------------------------------------- route report

// Where `needle` first appears in the log (npos: nowhere).
std::size_t at(const Rig& rig, std::string_view needle) {
  return rig.log().find(needle);
}

// An engine that claims no deadlock freedom and puts every path on SL 0 (minhop) is graded
// once the subnet is up: its report decides nothing, so bring-up does not wait for it.
TEST(SubnetManagerRouteReport, MinhopIsGradedOnceTheSubnetIsUp) {
  Rig rig(testsupport::two_level_fat_tree(4, 6, 3));
  expect_cold_bring_up(rig);
  const std::size_t up = at(rig, "SUBNET UP");
  ASSERT_NE(up, std::string::npos) << rig.log();
  EXPECT_LT(at(rig, "routing engine minhop computed 7 LFTs"), up) << rig.log();
  EXPECT_LT(at(rig, "route report once the subnet is up"), up) << rig.log();
  const std::size_t graded = at(rig, "route report of routing engine minhop");
  ASSERT_NE(graded, std::string::npos) << rig.log();
  EXPECT_GT(graded, up);
  EXPECT_NE(rig.log().find("CDG acyclic", graded), std::string::npos) << rig.log();
  const auto file = read_file(rig.options.cache_dir + "/ibsm-route-report.txt");
  ASSERT_TRUE(file.ok());
  EXPECT_NE(file->find("minhop"), std::string::npos) << *file;
}

// One that claims deadlock freedom is graded before anything is programmed: a credit loop
// in its routes makes the SM discard them.
TEST(SubnetManagerRouteReport, DeadlockFreeEngineIsGradedBeforeProgramming) {
  Rig rig(testsupport::two_level_fat_tree(4, 6, 3));
  rig.options.routing_engine = "updn";
  rig.restart();
  // Up/down leaves spine-to-spine LIDs unrouted in a two-level tree, so not every check of
  // expect_cold_bring_up() holds; the sweep itself succeeds.
  const SweepResult r = rig.sweep();
  ASSERT_TRUE(r.subnet_up) << problems(r);
  const std::size_t up = at(rig, "SUBNET UP");
  const std::size_t graded = at(rig, "routing engine updn computed 7 LFTs");
  ASSERT_NE(graded, std::string::npos) << rig.log();
  EXPECT_LT(graded, up);
  EXPECT_NE(rig.log().find("route report (", graded), std::string::npos) << rig.log();
  EXPECT_LT(rig.log().find("CDG acyclic", graded), up) << rig.log();
  EXPECT_EQ(at(rig, "route report of routing engine"), std::string::npos) << rig.log();
}

// An engine that claims every LID reachable (updn, ftree, dnup) but whose tables leave a
// destination unreachable is discarded like one with a credit loop (IBSM-3082), and the
// next engine of the chain routes the fabric. Made with a fake at the routing seam: updn
// whose tables lose one entry of one switch.
class LossyUpdn final : public routing::Engine {
 public:
  // `lost` outlives the engine, which the SM drops after its sweep.
  LossyUpdn(const routing::EngineConfig& c, std::vector<mad::Lid>& lost)
      : real_(routing::make_engine("updn", c)), lost_(lost) {}
  std::string_view name() const override { return "updn"; }
  bool deadlock_free() const override { return true; }
  bool complete() const override { return true; }
  Result<routing::Routes> route(const routing::Topology& topo) override {
    auto r = real_->route(topo);
    if (!r) return r;
    // A CA LID the first switch forwards out of an external port: every source routed
    // through that switch then cannot reach it.
    routing::Lft& lft = r->lfts.front();
    for (auto e = topo.end_ports.rbegin(); e != topo.end_ports.rend(); ++e) {
      const mad::Lid lid = e->base_lid;
      if (lid != 0 && lid < lft.size() && lft[lid] != 0 && lft[lid] != routing::kNoPath) {
        lost_.push_back(lid);
        lft[lid] = routing::kNoPath;
        break;
      }
    }
    return r;
  }

 private:
  std::unique_ptr<routing::Engine> real_;
  std::vector<mad::Lid>& lost_;
};

TEST(SubnetManagerRouteReport, EngineClaimingCompletenessThatMissesALidIsDiscarded) {
  Rig rig(testsupport::two_level_fat_tree(4, 6, 3));
  rig.options.routing_engine = "updn";
  rig.restart();
  std::vector<mad::Lid> lost;
  rig.sm->set_engine_factory(
      [&](std::string_view name,
          const routing::EngineConfig& c) -> std::unique_ptr<routing::Engine> {
        if (name != "updn") return routing::make_engine(name, c);
        return std::make_unique<LossyUpdn>(c, lost);
      });
  const SweepResult r = rig.sweep();
  ASSERT_TRUE(r.subnet_up) << problems(r);
  ASSERT_EQ(lost.size(), 1U);
  const std::string log = rig.log();
  const std::size_t discarded =
      log.find("IBSM-3082: routing engine updn claims to reach every LID");
  ASSERT_NE(discarded, std::string::npos) << log;
  EXPECT_NE(log.find("fell back to 'minhop'", discarded), std::string::npos) << log;
  EXPECT_LT(discarded, at(rig, "SUBNET UP"));
  // What the switches hold is minhop's: the LID updn lost is routed on every switch.
  for (std::uint32_t i = 0; i < rig.fabric->size(); ++i) {
    const auto& n = rig.fabric->node(i);
    if (!n.is_switch()) continue;
    ASSERT_GT(n.lft.size(), lost[0]) << n.id;
    EXPECT_NE(n.lft[lost[0]], routing::kNoPath) << n.id << " LID " << lost[0];
  }
}

// ---------------------------------------------------------------- steady state

TEST(SubnetManagerSteadyState, SecondSweepIsLightAndSendsNoSets) {
  Rig rig(net(kHandDrawn));
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto before = rig.lids();
  const SweepResult r = rig.sweep();
  EXPECT_FALSE(r.heavy);
  EXPECT_TRUE(r.subnet_up);
  const auto& st = rig.fabric->stats();
  EXPECT_EQ(st.count(Method::kSet), 0u);
  EXPECT_EQ(st.count(Method::kGet), st.count(Method::kGet, AttrId::kSwitchInfo));
  EXPECT_EQ(st.count(Method::kGet, AttrId::kSwitchInfo), rig.switches());
  EXPECT_EQ(rig.lids(), before);
}

TEST(SubnetManagerProgramming, PacketLifeTimeIsProgrammedIntoEverySwitchOnce) {
  Rig rig(net(kHandDrawn));
  rig.options.packet_life_time = 0x0b;
  rig.restart();
  ASSERT_TRUE(rig.sweep().subnet_up);
  for (std::uint32_t i = 0; i < rig.fabric->size(); ++i) {
    const auto& n = rig.fabric->node(i);
    if (!n.is_switch()) continue;
    EXPECT_EQ(n.switch_info->life_time_value, 0x0b) << n.id;
  }
  rig.sm->request_heavy_sweep(HeavyReason::kForced);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kSwitchInfo), 0u);
}

TEST(SubnetManagerSteadyState, ForcedHeavySweepOnAConfiguredFabricSendsNoSets) {
  Rig rig(testsupport::two_level_fat_tree(3, 2, 2));
  ASSERT_TRUE(rig.sweep().subnet_up);
  rig.sm->request_heavy_sweep(HeavyReason::kForced);
  const SweepResult r = rig.sweep();
  EXPECT_TRUE(r.heavy);
  EXPECT_TRUE(r.subnet_up) << problems(r);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet), 0u);
}

// Ports that ignore link fields (ibsim keeps neither the Trap 129/130 thresholds nor
// LinkWidthEnabled 255) are not sent them again on every heavy sweep, as OpenSM does.
TEST(SubnetManagerSteadyState, PortsThatIgnoreLinkFieldsAreNotAskedAgain) {
  fake::FakeOptions fo;
  fo.ignores_link_fields = true;
  Rig rig(testsupport::two_level_fat_tree(3, 2, 2), fo);
  ASSERT_TRUE(rig.sweep().subnet_up);
  const fake::FakeNode& leaf = rig.fabric->node(rig.fabric->index("leaf0"));
  EXPECT_EQ(leaf.ports[1].info.local_phy_errors, 0);  // sent 8, kept nothing
  EXPECT_EQ(leaf.ports[1].info.link_width_enabled, 3);
  rig.sm->request_heavy_sweep(HeavyReason::kForced);
  const SweepResult r = rig.sweep();
  EXPECT_TRUE(r.heavy);
  EXPECT_TRUE(r.subnet_up) << problems(r);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kPortInfo), 0u);
}

TEST(SubnetManagerSteadyState, RestartWithColdFabricKeepsLidsFromGuid2Lid) {
  Rig rig(net(kHandDrawn));
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto first = rig.lids();
  rig.fabric->reset_cold();
  rig.restart();  // a new SubnetManager reading the same cache directory
  const SweepResult r = rig.sweep();
  ASSERT_TRUE(r.subnet_up) << problems(r);
  EXPECT_EQ(rig.lids(), first);
  expect_fabric_up(rig, lid_holders(rig.desc));
}

TEST(SubnetManagerSteadyState, RestartOnAWarmFabricKeepsLidsAndReprograms) {
  Rig rig(net(kLine));
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto first = rig.lids();
  rig.restart();
  const SweepResult r = rig.sweep();
  ASSERT_TRUE(r.subnet_up) << problems(r);
  EXPECT_EQ(rig.lids(), first);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kLinearForwardingTable), 3u);
}

TEST(SubnetManagerSteadyState, LinkFailureIsSeenByTheLightSweep) {
  Rig rig(net(kHandDrawn));
  ASSERT_TRUE(rig.sweep().subnet_up);
  rig.fabric->set_link(rig.fabric->index("s1"), 3, false);  // one of the parallel cables
  const SweepResult r = rig.sweep();
  EXPECT_TRUE(r.heavy) << "PortStateChange must trigger a heavy sweep";
  EXPECT_TRUE(r.subnet_up) << problems(r);
  EXPECT_EQ(join(rig.fabric->check_routes()), "");
  rig.fabric->set_link(rig.fabric->index("s1"), 3, true);
  EXPECT_TRUE(rig.sweep().heavy);
  EXPECT_EQ(join(rig.fabric->inactive_ports()), "");
}

// ---------------------------------------------------------------- faults

TEST(SubnetManagerFaults, SilentNodeIsReportedWithItsPathAndTheRestComesUp) {
  Rig rig(net(kLine));
  const std::uint32_t hc = rig.fabric->index("hc");
  rig.fabric->faults(hc).silent = true;
  const SweepResult r = rig.sweep();
  EXPECT_FALSE(r.subnet_up);
  ASSERT_FALSE(r.report.problems.empty());
  EXPECT_EQ(r.report.problems[0].id, kErrNodeUnreachable);
  EXPECT_NE(r.report.problems[0].message.find("DR path 0,1,2,2,2"), std::string::npos)
      << problems(r);
  // Everything but the silent CA and the switch port facing it is Active.
  const auto inactive = rig.fabric->inactive_ports();
  EXPECT_EQ(inactive, (std::vector<std::string>{"c/2 is Init", "hc/1 is Init"}));
  EXPECT_EQ(rig.lids().size(), 4u);

  // The next sweep retries the node and, once it answers, brings it up.
  rig.fabric->faults(hc).silent = false;
  const SweepResult again = rig.sweep();
  EXPECT_TRUE(again.heavy) << "a sweep with errors must be followed by a heavy sweep";
  EXPECT_TRUE(again.subnet_up) << problems(again);
  expect_fabric_up(rig, 5);
}

TEST(SubnetManagerFaults, SilentSwitchCutsOffOnlyWhatIsBehindIt) {
  Rig rig(testsupport::two_level_fat_tree(3, 2, 2));
  rig.fabric->faults(rig.fabric->index("leaf2")).silent = true;
  const SweepResult r = rig.sweep();
  EXPECT_FALSE(r.subnet_up);
  EXPECT_EQ(r.nodes, 2u + 2u + 2u * 2u);  // spines, two leaves and their hosts
  for (const std::string& s : rig.fabric->inactive_ports()) {
    const bool behind = s.rfind("leaf2/", 0) == 0 || s.rfind("h2_", 0) == 0 ||
                        s.rfind("spine0/3 ", 0) == 0 || s.rfind("spine1/3 ", 0) == 0;
    EXPECT_TRUE(behind) << s;
  }
}

TEST(SubnetManagerFaults, GarbageAnswersNeverCrash) {
  for (Garbage g : {Garbage::kBadNodeInfo, Garbage::kWrongAttribute, Garbage::kShortMad,
                    Garbage::kNotAnSmp, Garbage::kRandomPayload, Garbage::kErrorStatus}) {
    SCOPED_TRACE(static_cast<int>(g));
    for (const char* who : {"h2", "s3"}) {
      SCOPED_TRACE(who);
      Rig rig(net(kHandDrawn));
      rig.fabric->faults(rig.fabric->index(who)).garbage = g;
      const SweepResult r = rig.sweep();
      if (g != Garbage::kRandomPayload) {
        EXPECT_FALSE(r.subnet_up);
        EXPECT_FALSE(r.report.problems.empty());
      }
      // Once the node behaves, the fabric comes up.
      rig.fabric->clear_faults();
      rig.sm->request_heavy_sweep(HeavyReason::kForced);
      const SweepResult again = rig.sweep();
      EXPECT_TRUE(again.subnet_up) << problems(again);
      EXPECT_EQ(join(rig.fabric->inactive_ports()), "");
      EXPECT_EQ(join(rig.fabric->check_routes()), "");
    }
  }
}

TEST(SubnetManagerFaults, NodeVanishingMidSweep) {
  for (std::uint64_t k : {1u, 3u, 8u, 20u}) {
    SCOPED_TRACE(k);
    Rig rig(testsupport::two_level_fat_tree(3, 2, 2));
    rig.fabric->faults(rig.fabric->index("leaf1")).vanish_after = k;
    const SweepResult r = rig.sweep();
    EXPECT_FALSE(r.subnet_up);
    // Without it the rest is consistent after one more sweep.
    const SweepResult again = rig.sweep();
    EXPECT_TRUE(again.heavy);
    EXPECT_TRUE(again.subnet_up) << problems(again);
    EXPECT_EQ(again.nodes, 2u + 2u + 2u * 2u);
    EXPECT_EQ(join(rig.fabric->check_routes()), "");
  }
}

TEST(SubnetManagerFaults, LinkGoingDownMidSweep) {
  for (std::uint64_t after : {5u, 40u, 120u}) {
    SCOPED_TRACE(after);
    Rig rig(testsupport::two_level_fat_tree(3, 2, 2));
    rig.fabric->link_down_after(rig.fabric->index("spine0"), 2, after);
    (void)rig.sweep();  // may or may not notice, depending on the moment
    SweepResult r = rig.sweep();
    if (!r.heavy) r = rig.sweep();
    EXPECT_TRUE(r.subnet_up) << problems(r);
    EXPECT_EQ(join(rig.fabric->check_routes()), "");
    EXPECT_EQ(join(rig.fabric->inactive_ports()), "");
  }
}

TEST(SubnetManagerFaults, LostMadsAreRetried) {
  Rig rig(testsupport::two_level_fat_tree(4, 4, 2));
  rig.fabric->set_loss_rate(0.05);
  // A lost answer to a state-changing Set makes its retry an X -> X transition, which
  // the port rejects (IBA 14.2.5.6); that sweep fails and the next one finishes the
  // job from what the ports report. Discovery itself survives loss by retrying.
  SweepResult r = rig.sweep();
  EXPECT_GT(r.mads.retries, 0u);
  EXPECT_EQ(r.mads.timeouts, 0u);
  EXPECT_EQ(r.nodes, rig.desc.nodes.size());
  for (int i = 0; i < 4 && !r.subnet_up; ++i) {
    for (const auto& e : r.report.problems)
      EXPECT_EQ(e.id, kErrProgrammingFailed) << e.message;
    r = rig.sweep();
    EXPECT_TRUE(r.heavy);
  }
  EXPECT_TRUE(r.subnet_up) << problems(r);
  rig.fabric->set_loss_rate(0);
  expect_fabric_up(rig, lid_holders(rig.desc));
}

TEST(SubnetManagerFaults, SlowNodeAnswersLateAndIsCountedUnexpected) {
  Rig rig(net(kLine));
  rig.fabric->faults(rig.fabric->index("hc")).latency = std::chrono::milliseconds(300);
  const SweepResult r = rig.sweep();
  EXPECT_FALSE(r.subnet_up);
  EXPECT_GT(r.mads.unexpected, 0u);
  EXPECT_GT(r.mads.timeouts, 0u);
}

TEST(SubnetManagerFaults, DuplicateGuidIsReported) {
  testsupport::Fabric d = net(kHandDrawn);
  const auto s3 = *d.find("s3");
  const auto h4 = *d.find("h4");
  d.nodes[h4].node_guid = d.nodes[s3].node_guid;  // a CA claiming a switch's GUID
  Rig rig(std::move(d));
  const SweepResult r = rig.sweep();
  EXPECT_FALSE(r.subnet_up);
  bool seen = false;
  for (const auto& e : r.report.problems)
    seen = seen || e.id == kErrDuplicateGuid;
  EXPECT_TRUE(seen) << problems(r);
}

// exit_on_fatal (default TRUE, as OpenSM): the daemon stops with status 1 on a duplicate
// GUID; -y (exit_on_fatal FALSE) keeps it running and sweeping without the duplicate.
TEST(SubnetManagerFaults, DuplicateGuidIsFatalUnlessStayOnFatal) {
  for (bool exit_on_fatal : {true, false}) {
    testsupport::Fabric d = net(kHandDrawn);
    d.nodes[*d.find("h4")].node_guid = d.nodes[*d.find("s3")].node_guid;
    Rig rig(std::move(d));
    rig.options.exit_on_fatal = exit_on_fatal;
    rig.restart();
    ControlFlags control;
    std::optional<int> rc;
    const auto deadline = rig.clock.now() + std::chrono::seconds(10);
    while (!rc && rig.clock.now() < deadline)
      rc = rig.sm->step(control);
    if (exit_on_fatal) {
      EXPECT_EQ(rc, std::optional<int>(1));
    } else {
      EXPECT_FALSE(rc.has_value()) << "still running after 10 s";
      EXPECT_EQ(rig.sm->state(), mad::SmState::kMaster);
    }
  }
}

TEST(SubnetManagerFaults, SmPortDownFailsTheSweep) {
  Rig rig(net(kLine));
  rig.fabric->faults(rig.fabric->index("ha")).silent = true;  // the SM's own node
  const SweepResult r = rig.sweep();
  EXPECT_FALSE(r.subnet_up);
  EXPECT_EQ(rig.sm->state(), mad::SmState::kDiscovering);
}

TEST(SubnetManagerFaults, SmOwnLinkDownKeepsTheLastModelUntilItIsBack) {
  Rig rig(net(kLine));
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto first = rig.lids();
  const auto nodes = rig.sm->fabric().size();
  const auto ha = rig.fabric->index("ha");
  rig.fabric->set_link(ha, 1, false);  // the SM's own cable
  rig.fabric->reset_stats();
  for (int i = 0; i < 3; ++i) {
    const SweepResult r = rig.sweep();
    EXPECT_TRUE(r.heavy);
    EXPECT_FALSE(r.subnet_up) << "a fabric of the SM's node alone is not the subnet";
    ASSERT_FALSE(r.report.problems.empty());
    EXPECT_EQ(r.report.problems[0].id, kErrSmPortDown) << problems(r);
  }
  EXPECT_EQ(rig.sm->fabric().size(), nodes) << "the last good model stays";
  EXPECT_EQ(rig.sm->state(), mad::SmState::kMaster);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet), 0u) << "nothing is programmed";
  rig.fabric->set_link(ha, 1, true);
  const SweepResult back = rig.sweep();
  EXPECT_TRUE(back.heavy);
  EXPECT_TRUE(back.subnet_up) << problems(back);
  EXPECT_EQ(rig.lids(), first);
  expect_fabric_up(rig, 5);
}

// ---------------------------------------------------------------- SMInfo and traps

TEST(SubnetManagerRequests, AnswersGetSmInfo) {
  Rig rig(net(kLine));
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto req = mad::Smp::request(Method::kGet, AttrId::kSmInfo, 0, mad::DrPath{}, 0x5151);
  rig.fabric->inject(req, mad::kPermissiveLid);
  (void)rig.sweep();  // the light sweep's polling handles it
  ASSERT_EQ(rig.fabric->sm_responses().size(), 1u);
  const mad::Smp& resp = rig.fabric->sm_responses()[0];
  EXPECT_TRUE(resp.is_response());
  EXPECT_EQ(resp.method(), Method::kGetResp);
  EXPECT_EQ(resp.tid_low(), 0x5151u);
  EXPECT_EQ(resp.attr_id(), AttrId::kSmInfo);
  auto info = mad::decode<mad::SmInfo>(resp.data());
  ASSERT_TRUE(info.ok());
  const auto& ha = rig.fabric->node(rig.fabric->index("ha"));
  EXPECT_EQ(info->guid, ha.info.node_guid + 1);  // the SM's port GUID
  EXPECT_EQ(info->priority, 7);
  EXPECT_EQ(info->state, mad::SmState::kMaster);
}

TEST(SubnetManagerRequests, Trap128IsRepressedAndTriggersAHeavySweep) {
  Rig rig(net(kLine));
  ASSERT_TRUE(rig.sweep().subnet_up);
  mad::Notice n;
  n.is_generic = true;
  n.type = 1;
  n.producer_type = 2;
  n.trap_number = 128;
  n.issuer_lid = 2;
  mad::Smp trap = mad::Smp::request(Method::kTrap, AttrId::kNotice, 0, mad::Lid{1}, 0x77);
  trap.set_attribute(n);
  rig.fabric->inject(trap, 2);
  const SweepResult r = rig.sweep();
  EXPECT_TRUE(r.heavy);
  EXPECT_TRUE(r.subnet_up);
  ASSERT_GE(rig.fabric->sm_responses().size(), 1u);
  EXPECT_EQ(rig.fabric->sm_responses()[0].method(), Method::kTrapRepress);
  EXPECT_EQ(rig.fabric->sm_responses()[0].tid_low(), 0x77u);
}

TEST(SubnetManagerRequests, GarbageUnsolicitedMadsAreIgnored) {
  Rig rig(net(kLine));
  ASSERT_TRUE(rig.sweep().subnet_up);
  for (AttrId a : {AttrId::kNotice, AttrId::kSmInfo, AttrId::kPortInfo}) {
    mad::Smp s = mad::Smp::request(a == AttrId::kPortInfo ? Method::kSet : Method::kTrap, a, 0,
                                   mad::Lid{1}, 9);
    auto bytes = s.bytes();
    for (std::size_t i = 64; i < 128; ++i)
      bytes[i] = static_cast<std::uint8_t>(i * 37);
    rig.fabric->inject(*mad::Smp::parse(bytes), 3);
  }
  const SweepResult r = rig.sweep();
  EXPECT_TRUE(r.subnet_up);
}

}  // namespace
}  // namespace ibsm::sm::subnet_manager_test
