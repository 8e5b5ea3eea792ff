// -R dfsssp end to end on a FakeFabric: the engine gets the fabric's usable VLs, the
// SM programs SLtoVLMappingTable identity where the ports differ, and the SA's
// PathRecords carry each path's SL.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>

#include "common/atomic_file.hpp"
#include "mad/attr/vl_tables.hpp"
#include "sa/path_resolver.hpp"
#include "sm/publish/sa_snapshot.hpp"
#include "sm/subnet_manager.hpp"
#include "sm/tables/sl2vl_plan.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm::dfsssp_sm_test {
namespace {

using fake::FakeFabric;

using testsupport::TempDir;

struct Rig {
  explicit Rig(testsupport::Fabric d, std::uint8_t max_op_vls = 5,
               const std::string& engine = "dfsssp",
               const std::function<void(conf::Options&)>& configure = {}) {
    fabric = std::make_unique<FakeFabric>(d, clock);
    options.cache_dir = dir.path() + "/cache";
    options.routing_engine = engine;
    options.max_op_vls = max_op_vls;
    if (configure) configure(options);
    sm = std::make_unique<SubnetManager>(*fabric, clock, null_logger(), options);
  }
  // The engine the route report names (the one whose tables were programmed).
  std::string report() const {
    auto text = read_file(dir.path() + "/cache/ibsm-route-report.txt");
    return text ? *text : std::string("(no route report)");
  }
  SweepResult sweep(bool heavy = false) {
    if (heavy) sm->request_heavy_sweep(HeavyReason::kForced);
    fabric->reset_stats();
    return sm->sweep(stop);
  }
  std::uint64_t sl2vl_sets() const {
    return fabric->stats().count(mad::Method::kSet, mad::AttrId::kSlToVlTable);
  }

  FakeClock clock;
  TempDir dir;
  std::unique_ptr<FakeFabric> fabric;
  conf::Options options;
  std::atomic<bool> stop{false};
  std::unique_ptr<SubnetManager> sm;
};

using TableKey = std::tuple<std::uint32_t, PortNum, std::size_t>;  // node, out, in

// Every SL2VL table the fake's ports hold.
std::map<TableKey, std::array<std::uint8_t, 8>> fake_tables(const FakeFabric& f) {
  std::map<TableKey, std::array<std::uint8_t, 8>> out;
  for (std::uint32_t i = 0; i < f.size(); ++i) {
    const fake::FakeNode& n = f.node(i);
    for (PortNum p = 0; p < n.ports.size(); ++p)
      for (std::size_t in = 0; in < n.ports[p].sl2vl.size(); ++in)
        out[{i, p, in}] = n.ports[p].sl2vl[in];
  }
  return out;
}

std::array<std::uint8_t, 8> wire(const mad::SlToVlTable& t) {
  std::array<std::uint8_t, mad::kSmpDataSize> data{};
  mad::SlToVlTable::encode_payload(t, mad::Payload(data));
  std::array<std::uint8_t, 8> w{};
  std::copy_n(data.begin(), 8, w.begin());
  return w;
}

// The fake's node index of a node of the SM's fabric (same GUIDs).
std::uint32_t fake_index(const FakeFabric& f, Guid guid) {
  for (std::uint32_t i = 0; i < f.size(); ++i)
    if (f.node(i).info.node_guid == guid) return i;
  ADD_FAILURE() << "no node " << mad::format_guid(guid);
  return 0;
}

// Every table sl2vl_wants() names holds identity_sl2vl() of the port's VLs in the fake.
void expect_identity_programmed(const Rig& rig) {
  const Fabric& f = rig.sm->fabric();
  const auto wants = sl2vl_wants(f, rig.options.max_op_vls);
  ASSERT_FALSE(wants.empty());
  const auto held = fake_tables(*rig.fabric);
  for (const Sl2VlWant& w : wants) {
    const std::uint32_t fi = fake_index(*rig.fabric, f.node(w.node).guid());
    auto it = held.find({fi, w.out, w.in});
    ASSERT_NE(it, held.end());
    EXPECT_EQ(it->second, wire(w.table))
        << f.node(w.node).description << " out " << int{w.out} << " in " << int{w.in};
  }
}

// Every end-port pair's PathRecord SL, from the SA's snapshot, against the routes' SL of
// (source switch, destination LID). Returns the largest SL seen.
unsigned expect_path_sls(const Rig& rig) {
  const sa::SnapshotPtr& snap = rig.sm->sa().snapshot();
  const routing::PathSls* sls = rig.sm->path_sls();
  EXPECT_NE(snap, nullptr);
  EXPECT_NE(sls, nullptr);
  if (snap == nullptr || sls == nullptr) return 0;
  EXPECT_FALSE(snap->path_sl.empty());
  const sa::SaSettings settings = sa_settings(rig.options);
  const sa::PathResolver resolver(*snap, settings);
  const Fabric& f = rig.sm->fabric();
  std::map<NodeIndex, std::uint32_t> row;  // switch node -> PathSls row
  std::uint32_t r = 0;
  for (NodeIndex i = 0; i < f.size(); ++i)
    if (f.node(i).is_switch()) row[i] = r++;  // routing_input numbers switches in fabric order
  unsigned max_sl = 0;
  std::size_t checked = 0;
  for (const auto& a : f.lid_holders()) {
    const Node& an = f.node(a.node);
    if (an.is_switch()) continue;
    const Port& ap = an.ports[a.port];
    for (const auto& b : f.lid_holders()) {
      const Node& bn = f.node(b.node);
      const Port& bp = bn.ports[b.port];
      if (bn.is_switch() || bp.guid == ap.guid) continue;
      auto path =
          resolver.resolve({a.node, a.port}, ap.lid, {b.node, b.port}, bp.lid, sa::PathQuery{}, 0);
      EXPECT_TRUE(path.has_value()) << an.description << " -> " << bn.description;
      if (!path) continue;
      const std::uint8_t want = sls->sl(row.at(ap.peer), bp.lid);
      EXPECT_EQ(path->params.sl, want) << an.description << " -> " << bn.description;
      max_sl = std::max<unsigned>(max_sl, path->params.sl);
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
  return max_sl;
}

TEST(DfssspSm, OperationalVlsDecodeAsIba) {
  EXPECT_EQ(decode_operational_vls(1), 1u);
  EXPECT_EQ(decode_operational_vls(2), 2u);
  EXPECT_EQ(decode_operational_vls(3), 4u);
  EXPECT_EQ(decode_operational_vls(4), 8u);
  EXPECT_EQ(decode_operational_vls(5), 15u);
  EXPECT_EQ(decode_operational_vls(0), 1u);
}

TEST(DfssspSm, IdentityFoldsAsOpenSmMasks) {
  // 8 VLs: SL i -> VL i, SL 8-14 -> VL 0-6, SL 15 -> VL 7 (default qos_sl2vl & 7).
  EXPECT_EQ(identity_sl2vl(4).packed(), 0x0123456701234567ull);
  EXPECT_EQ(identity_sl2vl(3).packed(), 0x0123012301230123ull);
  EXPECT_EQ(identity_sl2vl(1).packed(), 0ull);
  EXPECT_EQ(identity_sl2vl(5).packed(), 0x0123456789abcde7ull);
}

// A ring of 5 switches needs 2 layers (routing/dfsssp_test.cpp); the fake's CA ports
// run 4 VLs (VLCap 3), so 4 usable VLs and SLs 0-3 on the paths.
TEST(DfssspSm, RingProgramsIdentityAndSaAnswersPathSls) {
  Rig rig(testsupport::torus({5, 1, 1}, 2, {true, false, false}));
  // Ports that map everything to VL 0 (a device's reset choice): all must be Set.
  for (std::uint32_t i = 0; i < rig.fabric->size(); ++i)
    for (auto& port : rig.fabric->node(i).ports)
      for (auto& t : port.sl2vl)
        t.fill(0);
  const SweepResult r = rig.sweep();
  ASSERT_TRUE(r.subnet_up);
  EXPECT_EQ(usable_vls(rig.sm->fabric(), rig.options.max_op_vls), 4u);
  const routing::PathSls* sls = rig.sm->path_sls();
  ASSERT_NE(sls, nullptr);
  EXPECT_GE(sls->layers, 2u);
  EXPECT_LE(sls->sls, 4u);
  expect_identity_programmed(rig);
  const SubnetManager::Sl2VlCounts* c = rig.sm->sl2vl_counts();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->gets, c->wanted);  // nothing known before the first sweep
  EXPECT_GT(c->sets, 0u);
  EXPECT_EQ(rig.sl2vl_sets(), c->sets);
  EXPECT_GT(expect_path_sls(rig), 0u);
  // The SA serves the programmed tables (SLtoVLMappingTableRecord).
  const sa::SnapshotPtr& snap = rig.sm->sa().snapshot();
  bool served = false;
  for (const auto& n : snap->nodes)
    for (const auto& p : n.ports)
      served = served || (p.vl_tables && !p.vl_tables->sl2vl.empty() && p.vl_tables->sl2vl[0] != 0);
  EXPECT_TRUE(served);

  // A heavy sweep of the unchanged fabric reads nothing and sets nothing.
  ASSERT_TRUE(rig.sweep(true).subnet_up);
  c = rig.sm->sl2vl_counts();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->gets, 0u);
  EXPECT_EQ(c->sets, 0u);
  EXPECT_EQ(c->known, c->wanted);
  EXPECT_EQ(rig.fabric->stats().count(mad::Method::kGet, mad::AttrId::kSlToVlTable), 0u);
  EXPECT_EQ(rig.sl2vl_sets(), 0u);
  expect_path_sls(rig);
}

// A fat tree fits in one layer; the fake's reset tables already map SL i to VL i mod
// VLs, so only the tables of switch ports facing 4-VL CA ports differ (their 8-VL
// default maps SL 4-7 beyond VL 3).
TEST(DfssspSm, FatTreeSetsOnlyTablesThatDiffer) {
  Rig rig(testsupport::two_level_fat_tree(4, 2, 2));
  const auto before = fake_tables(*rig.fabric);
  const SweepResult r = rig.sweep();
  ASSERT_TRUE(r.subnet_up);
  const routing::PathSls* sls = rig.sm->path_sls();
  ASSERT_NE(sls, nullptr);
  EXPECT_EQ(sls->layers, 1u);
  expect_identity_programmed(rig);
  const auto after = fake_tables(*rig.fabric);
  std::size_t changed = 0;
  for (const auto& [k, t] : after)
    changed += before.at(k) != t ? 1 : 0;
  EXPECT_GT(changed, 0u);
  EXPECT_EQ(rig.sl2vl_sets(), changed);
  // Inter-switch tables (8 VLs both ends) and CA tables kept their reset contents.
  const Fabric& f = rig.sm->fabric();
  for (const Sl2VlWant& w : sl2vl_wants(f, rig.options.max_op_vls)) {
    const Node& n = f.node(w.node);
    const bool faces_ca = n.is_switch() && w.out != 0 && !f.node(n.ports[w.out].peer).is_switch();
    const TableKey k{fake_index(*rig.fabric, n.guid()), w.out, w.in};
    EXPECT_EQ(before.at(k) != after.at(k), faces_ca) << n.description << " out " << int{w.out};
  }
  expect_path_sls(rig);
}

// One data VL (max_op_vls 1): every path on SL 0, every SL mapped to VL 0.
TEST(DfssspSm, OneVlPutsEveryPathOnSlZero) {
  Rig rig(testsupport::two_level_fat_tree(4, 2, 2), 1);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(usable_vls(rig.sm->fabric(), 1), 1u);
  const routing::PathSls* sls = rig.sm->path_sls();
  ASSERT_NE(sls, nullptr);
  EXPECT_EQ(sls->sls, 1u);
  EXPECT_TRUE(std::all_of(sls->table.begin(), sls->table.end(), [](auto s) { return s == 0; }));
  expect_identity_programmed(rig);
  EXPECT_EQ(expect_path_sls(rig), 0u);
}

// A ring of 5 switches cannot be routed deadlock free on 1 VL: dfsssp fails and the SM
// falls back to minhop, with no SLs and no SL2VL programming.
TEST(DfssspSm, RingOnOneVlFallsBackWithoutSls) {
  Rig rig(testsupport::torus({5, 1, 1}, 1, {true, false, false}), 1);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.sm->path_sls(), nullptr);
  EXPECT_EQ(rig.sm->sl2vl_counts(), nullptr);
  EXPECT_EQ(rig.sl2vl_sets(), 0u);
  EXPECT_TRUE(rig.sm->sa().snapshot()->path_sl.empty());
}

// -R lash: a ring needs two layers; the SM programs SL2VL identity and the SA hands out
// each switch pair's SL, from lash_start_vl up.
TEST(LayeredEnginesSm, LashOnARing) {
  for (unsigned start : {0U, 2U}) {
    Rig rig(testsupport::torus({5, 1, 1}, 2, {true, false, false}), 5, "lash",
            [start](conf::Options& o) { o.lash_start_vl = static_cast<std::uint8_t>(start); });
    ASSERT_TRUE(rig.sweep().subnet_up);
    EXPECT_NE(rig.report().find("lash"), std::string::npos) << rig.report();
    const routing::PathSls* sls = rig.sm->path_sls();
    ASSERT_NE(sls, nullptr);
    EXPECT_EQ(sls->layers, 2u);
    EXPECT_TRUE(std::all_of(sls->table.begin(), sls->table.end(),
                            [start](auto sl) { return sl >= start && sl < 4; }));
    expect_identity_programmed(rig);
    EXPECT_GT(expect_path_sls(rig), start);
  }
}

// -R lash with do_mesh_analysis on a 5x5 torus: dimension-ordered paths, one layer per
// combination of datelines crossed (4), programmed and handed out as with any lash.
TEST(LayeredEnginesSm, LashWithMeshAnalysisOnATorus) {
  Rig rig(testsupport::torus({5, 5, 1}, 1, {true, true, false}), 5, "lash",
          [](conf::Options& o) { o.do_mesh_analysis = true; });
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_NE(rig.report().find("lash"), std::string::npos) << rig.report();
  const routing::PathSls* sls = rig.sm->path_sls();
  ASSERT_NE(sls, nullptr);
  EXPECT_EQ(sls->layers, 4u);
  expect_identity_programmed(rig);
  EXPECT_EQ(expect_path_sls(rig), 3u);
}

// -R nue with the default nue_max_num_vls 1: the ring is routed free of credit loops on
// one VL (with detours), so no SLs and no SL2VL programming are needed at all.
TEST(LayeredEnginesSm, NueOnOneVlNeedsNoSls) {
  Rig rig(testsupport::torus({5, 1, 1}, 1, {true, false, false}), 1, "nue");
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_NE(rig.report().find("nue"), std::string::npos) << "not a fallback: " << rig.report();
  EXPECT_EQ(rig.sm->path_sls(), nullptr);
  EXPECT_EQ(rig.sl2vl_sets(), 0u);
  EXPECT_TRUE(rig.sm->sa().snapshot()->path_sl.empty());
}

// nue_max_num_vls 4: destinations spread over 4 layers, one SL each.
TEST(LayeredEnginesSm, NueOnFourLayers) {
  Rig rig(testsupport::torus({5, 1, 1}, 2, {true, false, false}), 5, "nue",
          [](conf::Options& o) { o.nue_max_num_vls = 4; });
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_NE(rig.report().find("nue"), std::string::npos) << rig.report();
  const routing::PathSls* sls = rig.sm->path_sls();
  ASSERT_NE(sls, nullptr);
  EXPECT_EQ(sls->sls, 4u);
  expect_identity_programmed(rig);
  EXPECT_EQ(expect_path_sls(rig), 3u);
}

// dfsssp chooses every path's SL for deadlock freedom and the QoS policy chooses SLs too:
// the engine keeps the SL bits it needs (as OpenSM's path_sl hook lets it), and the SM
// says so once per policy, naming the bits (IBSM-2506), not on every sweep.
TEST(DfssspSm, QosPolicySlsGiveWayToTheEngineAndTheLogSaysSoOnce) {
  TempDir files;
  const std::string policy = files.path() + "/qos-policy.conf";
  ASSERT_TRUE(write_file_atomically(policy,
                                    "qos-levels\n"
                                    "  qos-level\n"
                                    "    name: DEFAULT\n"
                                    "    sl: 3\n"
                                    "  end-qos-level\n"
                                    "end-qos-levels\n")
                  .ok());
  Rig rig(testsupport::torus({5, 1, 1}, 2, {true, false, false}), 5, "dfsssp",
          [&](conf::Options& o) {
            o.qos = true;
            o.qos_policy_file = policy;
          });
  std::ostringstream out;
  rig.sm = std::make_unique<SubnetManager>(*rig.fabric, rig.clock, testsupport::capture_log(out),
                                           rig.options);
  ASSERT_TRUE(rig.sweep().subnet_up);
  ASSERT_NE(rig.sm->path_sls(), nullptr);
  const std::string first = out.str();
  const std::size_t at = first.find("IBSM-2506: the routing engine assigns per-path SLs");
  ASSERT_NE(at, std::string::npos) << first;
  EXPECT_NE(first.find("the engine wins on SL bits 0x", at), std::string::npos) << first;
  // The paths keep the engine's SLs: the policy's SL 3 does not override them.
  EXPECT_GT(expect_path_sls(rig), 0u);
  ASSERT_TRUE(rig.sweep(true).subnet_up);
  EXPECT_EQ(out.str().find("IBSM-2506", first.size()), std::string::npos) << out.str();
}

}  // namespace
}  // namespace ibsm::sm::dfsssp_sm_test
