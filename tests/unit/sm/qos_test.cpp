// QoS (opensm.conf qos and the qos_* keys): the per-class configuration with its
// fallbacks, the planner's tables for a small fabric (CA port, switch external port,
// switch port 0), and the SM programming them on a FakeFabric: only what differs, the
// SIGHUP path, optimized SL2VL, and the suppress flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <sstream>

#include "sm/qos/link_vls.hpp"
#include "sm/qos/qos_config.hpp"
#include "sm/qos/vlarb_plan.hpp"
#include "sm/subnet_manager.hpp"
#include "sm/tables/sl2vl_plan.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm {
namespace {

using fake::FakeFabric;
using qos::PortClass;

// One 4-port switch, two hosts on ports 1 and 2; the SM runs on h1.
testsupport::Fabric small_fabric() {
  testsupport::Fabric d;
  d.nodes.push_back({testsupport::NodeType::kSwitch, "sw", "sw", 4});
  d.nodes.push_back({testsupport::NodeType::kCa, "h1", "h1", 1});
  d.nodes.push_back({testsupport::NodeType::kCa, "h2", "h2", 1});
  d.cables = {{{0, 1}, {1, 1}}, {{0, 2}, {2, 1}}};
  testsupport::assign_ibsim_guids(d);
  return d;
}

// The configuration the tests program: a base high-priority list, a CA low-priority
// list, a switch external SL2VL table and high limits from two levels.
void configure(conf::Options& o) {
  o.qos = true;
  o.qos_vlarb_high = "0:4,1:8";
  o.qos_ca_vlarb_low = "0:0,1:64,2:128,3:192,4:32";
  o.qos_swe_sl2vl = "0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,15";
  o.qos_high_limit = 2;
  o.qos_sw0_high_limit = 6;
}

struct Rig {
  explicit Rig(fake::FakeOptions fo = {}, bool qos = true) {
    fabric = std::make_unique<FakeFabric>(small_fabric(), clock, fo);
    options.cache_dir = dir.path() + "/cache";
    if (qos) configure(options);
    sm = std::make_unique<SubnetManager>(*fabric, clock, logger, options);
  }
  SweepResult sweep() {
    sm->request_heavy_sweep(HeavyReason::kForced);
    fabric->reset_stats();
    return sm->sweep(stop);
  }
  std::uint64_t sets(mad::AttrId a) const { return fabric->stats().count(mad::Method::kSet, a); }
  std::uint64_t gets(mad::AttrId a) const { return fabric->stats().count(mad::Method::kGet, a); }
  const fake::FakeNode& node(const std::string& id) const {
    return fabric->node(fabric->index(id));
  }

  FakeClock clock;
  testsupport::TempDir dir;
  std::ostringstream log_text;
  Logger logger = testsupport::capture_log(log_text, "qos");
  std::unique_ptr<FakeFabric> fabric;
  conf::Options options;
  std::atomic<bool> stop{false};
  std::unique_ptr<SubnetManager> sm;
};

using Entries = std::vector<std::pair<unsigned, unsigned>>;  // (VL, weight)

// The first `n` entries of a VLArbitration block as the fake holds it (wire bytes).
Entries held(const std::array<std::uint8_t, 64>& block, std::size_t n) {
  Entries out;
  for (std::size_t e = 0; e < n; ++e)
    out.emplace_back(block[2 * e], block[2 * e + 1]);
  return out;
}
Entries entries(const mad::VlArbBlock& b, std::size_t n) {
  Entries out;
  for (std::size_t e = 0; e < n; ++e)
    out.emplace_back(b.entries[e].vl, b.entries[e].weight);
  return out;
}
std::array<std::uint8_t, 8> wire(std::initializer_list<unsigned> vls) {
  std::array<std::uint8_t, 8> w{};
  unsigned sl = 0;
  for (unsigned vl : vls) {
    w[sl / 2] |= static_cast<std::uint8_t>(vl << (sl % 2 == 0 ? 4 : 0));
    ++sl;
  }
  return w;
}

// ---- configuration ----

TEST(QosConfig, EachClassFallsBackToTheBaseKeyThenToOpenSmsDefault) {
  conf::Options o;
  configure(o);
  o.qos_max_vls = 8;
  o.qos_rtr_max_vls = 2;
  const qos::QosConfig q = qos::qos_config(o);
  EXPECT_TRUE(q.enabled);
  // high_limit: sw0 its own, the others the base key.
  EXPECT_EQ(q.of(PortClass::kSwitchPort0).high_limit, 6);
  EXPECT_EQ(q.of(PortClass::kCa).high_limit, 2);
  EXPECT_EQ(q.of(PortClass::kRouter).high_limit, 2);
  // max_vls: rtr its own, the others the base key.
  EXPECT_EQ(q.of(PortClass::kRouter).max_vls, 2u);
  EXPECT_EQ(q.of(PortClass::kSwitchExternal).max_vls, 8u);
  // vlarb_high from the base key, zero beyond the list.
  for (const auto& c : q.classes) {
    EXPECT_EQ(c.vlarb_high[0], (mad::VlArbBlock::Entry{0, 4}));
    EXPECT_EQ(c.vlarb_high[1], (mad::VlArbBlock::Entry{1, 8}));
    EXPECT_EQ(c.vlarb_high[2], (mad::VlArbBlock::Entry{0, 0}));
  }
  // vlarb_low: the CA's own, the others OpenSM's default 0:0,1:4,...,14:4.
  EXPECT_EQ(q.of(PortClass::kCa).vlarb_low[3], (mad::VlArbBlock::Entry{3, 192}));
  EXPECT_EQ(q.of(PortClass::kSwitchExternal).vlarb_low[0], (mad::VlArbBlock::Entry{0, 0}));
  EXPECT_EQ(q.of(PortClass::kSwitchExternal).vlarb_low[14], (mad::VlArbBlock::Entry{14, 4}));
  EXPECT_EQ(q.of(PortClass::kSwitchExternal).vlarb_low[15], (mad::VlArbBlock::Entry{0, 0}));
  // sl2vl: swe its own, the others OpenSM's default 0,...,14,7.
  EXPECT_EQ(q.of(PortClass::kSwitchExternal).sl2vl[15], 15);
  EXPECT_EQ(q.of(PortClass::kCa).sl2vl[14], 14);
  EXPECT_EQ(q.of(PortClass::kCa).sl2vl[15], 7);
}

TEST(QosConfig, NothingSetGivesOpenSmsDefaults) {
  conf::Options o;
  const qos::QosConfig q = qos::qos_config(o);
  EXPECT_FALSE(q.enabled);
  for (const auto& c : q.classes) {
    EXPECT_EQ(c.max_vls, 15u);
    EXPECT_EQ(c.high_limit, 0);
    EXPECT_EQ(c.vlarb_high[0], (mad::VlArbBlock::Entry{0, 4}));
    EXPECT_EQ(c.vlarb_high[1], (mad::VlArbBlock::Entry{1, 0}));
    EXPECT_EQ(c.vlarb_low[1], (mad::VlArbBlock::Entry{1, 4}));
  }
}

TEST(QosConfig, MaxVlsBecomesTheLargestOperationalVlsCodeThatFits) {
  EXPECT_EQ(qos::max_vls_code(1), 1);
  EXPECT_EQ(qos::max_vls_code(3), 2);
  EXPECT_EQ(qos::max_vls_code(4), 3);
  EXPECT_EQ(qos::max_vls_code(14), 4);
  EXPECT_EQ(qos::max_vls_code(15), 5);
}

// ---- planner: golden tables ----

class QosPlan : public ::testing::Test {
 protected:
  QosPlan() : rig(fake::FakeOptions{}, false) {
    rig.sweep();  // no QoS: discover the fabric only
    f = rig.sm->fabric();
    configure(opts);
    q = qos::qos_config(opts);
    for (NodeIndex i = 0; i < f.size(); ++i) {
      if (f.node(i).is_switch()) sw = i;
      if (f.node(i).description == "h2") h2 = i;
    }
    // Port 0 of this switch is enhanced: an end port with tables of its own.
    f.node(sw).switch_info->enhanced_port0 = true;
  }
  std::vector<qos::VlArbWant> blocks_of(NodeIndex n, PortNum p) const {
    std::vector<qos::VlArbWant> out;
    for (const auto& w : qos::vlarb_wants(f, q, 5))
      if (w.node == n && w.port == p) out.push_back(w);
    return out;
  }
  Rig rig;
  Fabric f;
  conf::Options opts;
  qos::QosConfig q;
  NodeIndex sw = kNoNode, h2 = kNoNode;
};

TEST_F(QosPlan, CaPortVlArbitrationIsItsClassListMaskedToFourVls) {
  // CA VLCap 3 (VL0-3) against a switch's VLCap 4: OperationalVLs 3, VL mask 3.
  const auto b = blocks_of(h2, 1);
  ASSERT_EQ(b.size(), 2u);  // caps 8 and 8: blocks 1 and 3
  EXPECT_EQ(b[0].block, 1u);
  EXPECT_EQ(b[0].entries, 8u);
  EXPECT_EQ(entries(b[0].table, 8),
            (Entries{{0, 0}, {1, 64}, {2, 128}, {3, 192}, {0, 32}, {0, 0}, {0, 0}, {0, 0}}));
  EXPECT_EQ(b[1].block, 3u);
  EXPECT_EQ(entries(b[1].table, 8),
            (Entries{{0, 4}, {1, 8}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}));
}

TEST_F(QosPlan, SwitchExternalPortTakesTheDefaultLowListMasked) {
  const auto b = blocks_of(sw, 2);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(entries(b[0].table, 8),
            (Entries{{0, 0}, {1, 4}, {2, 4}, {3, 4}, {0, 4}, {1, 4}, {2, 4}, {3, 4}}));
  EXPECT_EQ(entries(b[1].table, 2), (Entries{{0, 4}, {1, 8}}));
}

TEST_F(QosPlan, EnhancedSwitchPort0RunsItsOwnVlsAndClass) {
  // Port 0's VLCap 4 (VL0-7): mask 7, so VL 4-7 stay.
  const auto b = blocks_of(sw, 0);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(entries(b[0].table, 8),
            (Entries{{0, 0}, {1, 4}, {2, 4}, {3, 4}, {4, 4}, {5, 4}, {6, 4}, {7, 4}}));
  // A base port 0 has none.
  f.node(sw).switch_info->enhanced_port0 = false;
  EXPECT_TRUE(blocks_of(sw, 0).empty());
}

TEST_F(QosPlan, Sl2VlTablesComeFromEachClassMaskedWithVl15Kept) {
  std::map<std::tuple<NodeIndex, PortNum, PortNum>, mad::SlToVlTable> got;
  for (const Sl2VlWant& w : sl2vl_wants(f, 5, EngineSl2Vl{}, &q)) {
    EXPECT_FALSE(w.all_inputs);
    got[{w.node, w.out, w.in}] = w.table;
  }
  const auto vls = [](const mad::SlToVlTable& t) {
    return std::vector<unsigned>(t.vl.begin(), t.vl.end());
  };
  // CA: OpenSM's default masked to VL0-3 (SL 15 -> 7 & 3).
  ASSERT_TRUE(got.contains({h2, 1, 0}));
  EXPECT_EQ(vls(got[{h2, 1, 0}]),
            (std::vector<unsigned>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}));
  // Switch external port 2, every input (0 and the other up port 1): swe's table, VL 15 kept.
  for (PortNum in : {PortNum{0}, PortNum{1}}) {
    ASSERT_TRUE(got.contains({sw, 2, in}));
    EXPECT_EQ(vls(got[{sw, 2, in}]),
              (std::vector<unsigned>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 15}));
  }
  EXPECT_FALSE(got.contains({sw, 2, 2}));
  // Enhanced port 0 as output: sw0's (the default) masked to VL0-7.
  ASSERT_TRUE(got.contains({sw, 0, 1}));
  EXPECT_EQ(vls(got[{sw, 0, 1}]),
            (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST_F(QosPlan, OptimizedSwitchesGetOneTablePerOutputPort) {
  q.optimized_sl2vl = true;
  f.node(sw).switch_info->optimized_sl_to_vl = 1;
  std::vector<PortNum> outs;
  for (const Sl2VlWant& w : sl2vl_wants(f, 5, EngineSl2Vl{}, &q))
    if (w.node == sw) {
      EXPECT_TRUE(w.all_inputs);
      outs.push_back(w.out);
    }
  EXPECT_EQ(outs, (std::vector<PortNum>{0, 1, 2}));
  // Not without the switch's capability.
  f.node(sw).switch_info->optimized_sl_to_vl = 0;
  for (const Sl2VlWant& w : sl2vl_wants(f, 5, EngineSl2Vl{}, &q))
    EXPECT_FALSE(w.all_inputs);
}

TEST_F(QosPlan, MaxVlsCapsOperationalVlsOfBothEnds) {
  q.classes[static_cast<std::size_t>(PortClass::kCa)].max_vls = 2;  // VL0-1: code 2
  EXPECT_EQ(qos::port_operational_vls(&q, f, h2, 1, 5), 2);
  EXPECT_EQ(qos::port_operational_vls(&q, f, sw, 2, 5), 2);  // the switch end too
  EXPECT_EQ(qos::port_operational_vls(&q, f, sw, 0, 5), 4);  // port 0: its own class
  EXPECT_EQ(qos::port_operational_vls(nullptr, f, h2, 1, 5), 3);
}

// ---- the SM on a FakeFabric ----

TEST(QosSm, ProgramsConfiguredTablesThenNothingOnTheNextSweep) {
  Rig rig;
  ASSERT_TRUE(rig.sweep().subnet_up) << rig.log_text.str();
  // VLArbitration: blocks 1 and 3 of h1, h2 and switch ports 1, 2.
  EXPECT_EQ(rig.sets(mad::AttrId::kVlArbitration), 8u);
  const auto& h2 = rig.node("h2");
  EXPECT_EQ(held(h2.ports[1].vlarb[2], 3), (Entries{{0, 4}, {1, 8}, {0, 0}}));
  EXPECT_EQ(held(h2.ports[1].vlarb[0], 5), (Entries{{0, 0}, {1, 64}, {2, 128}, {3, 192}, {0, 32}}));
  const auto& sw = rig.node("sw");
  EXPECT_EQ(held(sw.ports[1].vlarb[0], 5), (Entries{{0, 0}, {1, 4}, {2, 4}, {3, 4}, {0, 4}}));
  // SL2VL: the switch's four (in, out) tables get swe's table; the CAs already hold
  // the default masked to VL0-3 (the fake resets them to SL mod 4), so only Gets.
  EXPECT_EQ(rig.sets(mad::AttrId::kSlToVlTable), 4u);
  const auto swe = wire({0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 15});
  EXPECT_EQ(sw.ports[2].sl2vl[1], swe);
  EXPECT_EQ(sw.ports[1].sl2vl[0], swe);
  // VLHighLimit: the base key on every physical port.
  EXPECT_EQ(h2.ports[1].info.vl_high_limit, 2);
  EXPECT_EQ(sw.ports[2].info.vl_high_limit, 2);
  // The SA serves what was programmed.
  const auto tables = rig.sm->port_tables().vl_tables(h2.info.node_guid, 1);
  ASSERT_NE(tables, nullptr);
  EXPECT_EQ(held(tables->vlarb[2], 2), (Entries{{0, 4}, {1, 8}}));
  const auto sw_tables = rig.sm->port_tables().vl_tables(sw.info.node_guid, 2);
  ASSERT_NE(sw_tables, nullptr);
  ASSERT_GT(sw_tables->sl2vl.size(), 1u);
  EXPECT_EQ(sw_tables->sl2vl[1], 0x0123012301230120ULL | 0xF);

  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.sets(mad::AttrId::kVlArbitration), 0u);
  EXPECT_EQ(rig.sets(mad::AttrId::kSlToVlTable), 0u);
  EXPECT_EQ(rig.gets(mad::AttrId::kSlToVlTable), 0u);
}

TEST(QosSm, AChangedKeyOnSighupSendsOnlyTheDifference) {
  Rig rig;
  ASSERT_TRUE(rig.sweep().subnet_up);
  rig.options.qos_vlarb_high = "0:2,1:2";
  rig.options.qos_ca_high_limit = 9;
  rig.sm->apply_options(rig.options);
  ASSERT_TRUE(rig.sweep().subnet_up);
  // Block 3 (high priority) of the four ports; block 1 unchanged.
  EXPECT_EQ(rig.sets(mad::AttrId::kVlArbitration), 4u);
  EXPECT_EQ(rig.sets(mad::AttrId::kSlToVlTable), 0u);
  EXPECT_EQ(held(rig.node("h1").ports[1].vlarb[2], 2), (Entries{{0, 2}, {1, 2}}));
  EXPECT_EQ(rig.node("h2").ports[1].info.vl_high_limit, 9);
  EXPECT_EQ(rig.node("sw").ports[2].info.vl_high_limit, 2);
}

TEST(QosSm, QosOffProgramsNothing) {
  Rig rig(fake::FakeOptions{}, false);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.sets(mad::AttrId::kVlArbitration), 0u);
  EXPECT_EQ(rig.sets(mad::AttrId::kSlToVlTable), 0u);
}

TEST(QosSm, OptimizedSl2VlSendsOneTablePerOutputPortWithTheLongTimeout) {
  fake::FakeOptions fo;
  fo.optimized_sl2vl = true;
  Rig rig(fo);
  rig.options.use_optimized_slvl = true;
  rig.options.long_transaction_timeout = 100;  // below transaction_timeout 200: raised
  rig.sm->apply_options(rig.options);
  ASSERT_TRUE(rig.sweep().subnet_up) << rig.log_text.str();
  std::vector<std::uint32_t> to_switch;
  for (std::uint32_t mod : rig.fabric->stats().sl2vl_set_mods)
    if (mod != 0) to_switch.push_back(mod);  // CA tables have modifier 0
  std::sort(to_switch.begin(), to_switch.end());
  EXPECT_EQ(to_switch, (std::vector<std::uint32_t>{0x20001, 0x20002}));
  EXPECT_EQ(rig.gets(mad::AttrId::kSlToVlTable), 2u);  // the two CA tables only
  const auto swe = wire({0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 15});
  const auto& sw = rig.node("sw");
  for (std::size_t in = 0; in <= 4; ++in) {
    EXPECT_EQ(sw.ports[1].sl2vl[in], swe) << in;
    EXPECT_EQ(sw.ports[2].sl2vl[in], swe) << in;
  }
  EXPECT_NE(rig.log_text.str().find("long_transaction_timeout 100 is below transaction_timeout"),
            std::string::npos);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.sets(mad::AttrId::kSlToVlTable), 0u);
}

TEST(QosSm, SuppressFlagMovesRefusedSl2VlSetsToDebug) {
  for (bool suppress : {false, true}) {
    Rig rig;
    // h2's port has no SL2VL table the fake would take: every Get and Set is refused.
    rig.fabric->node(rig.fabric->index("h2")).ports[1].sl2vl.clear();
    rig.options.suppress_sl2vl_mad_status_errors = suppress;
    rig.sm->apply_options(rig.options);
    rig.sweep();
    const std::string text = rig.log_text.str();
    const auto at = text.find("SLtoVLMappingTable Set refused");
    ASSERT_NE(at, std::string::npos) << text;
    const std::string level = text.substr(text.rfind('\n', at) + 1, 5);
    EXPECT_EQ(level, suppress ? "debug" : "warni") << text.substr(at - 20, 120);
  }
}

}  // namespace
}  // namespace ibsm::sm
