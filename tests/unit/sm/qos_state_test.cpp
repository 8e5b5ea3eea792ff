// QoS as a sweep component (sm/qos/qos_state.hpp, sm/qos/vlarb_programmer.hpp), without
// a SubnetManager: the settings and long_transaction_timeout from the options, the
// policy file read as a whole or not at all, its qos-setup turned into per-port tables
// for a discovered fabric, and the VLArbitrationTable blocks Set on a FakeFabric only
// where the ports do not hold them already.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sm/errors.hpp"
#include "sm/qos/qos_state.hpp"
#include "sm/qos/vlarb_programmer.hpp"
#include "sm/tables/port_tables.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/sm/component_rig.hpp"

namespace ibsm::sm::qos {
namespace {

using mad::AttrId;
using mad::Method;
using testrig::ComponentRig;

struct QosRig : ComponentRig {
  QosRig() : ComponentRig(testrig::two_switches()) {
    options.qos = true;
    options.qos_vlarb_high = "0:4,1:8";
    options.qos_ca_vlarb_low = "0:0,1:64,2:128,3:192,4:32";
    options.qos_policy_file = dir.path() + "/qos-policy.conf";
    discover();
    qos.apply_options(options);
  }
  VlArbCounts program() {
    fabric->reset_stats();
    SweepContext c = ctx();
    c.on_failure = [this](const mad::SmpOutcome&) { ++failures; };
    const VlArbCounts n = program_vlarb(c, qos.config(), tables, log);
    drain();
    return n;
  }
  void write_policy(const std::string& text) { std::ofstream(options.qos_policy_file) << text; }
  // The first `n` (VL, weight) entries of block `b` (1-4) of a CA's port as the fake holds it.
  std::vector<std::pair<unsigned, unsigned>> held(const std::string& id, unsigned b, unsigned n) {
    const auto& block = fabric->node(fabric->index(id)).ports[1].vlarb[b - 1];
    std::vector<std::pair<unsigned, unsigned>> out;
    for (unsigned e = 0; e < n; ++e)
      out.emplace_back(block[2 * e], block[2 * e + 1]);
    return out;
  }

  testsupport::TempDir dir;
  QosState qos{log};
  PortTables tables{log};
  int failures = 0;
};

// h2's port in a group of its own, with a qos-setup scope for it.
std::string policy_for(Guid port) {
  return fmt::format(R"(port-groups
  port-group
    name: h2
    port-guid: 0x{:x}
  end-port-group
end-port-groups
qos-setup
  vlarb-tables
    vlarb-scope
      group: h2
      vlarb-high: 0:1
    end-vlarb-scope
  end-vlarb-tables
end-qos-setup
qos-levels
  qos-level
    name: DEFAULT
    sl: 0
  end-qos-level
end-qos-levels
)",
                     port);
}

TEST(QosState, OptionsGiveTheClassTablesAndALongTimeoutNoShorterThanTheNormalOne) {
  QosRig rig;
  EXPECT_TRUE(rig.qos.config().enabled);
  EXPECT_EQ(rig.qos.config().of(PortClass::kCa).vlarb_low[1], (mad::VlArbBlock::Entry{1, 64}));
  rig.options.transaction_timeout = 200;
  rig.options.long_transaction_timeout = 1000;
  rig.qos.apply_options(rig.options);
  EXPECT_EQ(rig.qos.long_timeout(), std::chrono::milliseconds(1000));
  rig.options.long_transaction_timeout = 100;
  rig.qos.apply_options(rig.options);
  EXPECT_EQ(rig.qos.long_timeout(), std::chrono::milliseconds(200));
  EXPECT_NE(rig.log_text.str().find("long_transaction_timeout 100 is below"), std::string::npos);
  rig.options.qos = false;
  rig.qos.apply_options(rig.options);
  EXPECT_FALSE(rig.qos.config().enabled);
}

TEST(QosState, PolicyFileIsTakenWholeOrTheLastGoodOneStays) {
  QosRig rig;
  rig.write_policy(policy_for(rig.port("h2").guid));
  EXPECT_TRUE(rig.qos.reload_policy(rig.options));
  ASSERT_NE(rig.qos.policy(), nullptr);
  const auto good = rig.qos.policy();
  rig.write_policy("qos-levels\n  qos-level\n    name: DEFAULT\n    sl: 99\n");
  EXPECT_FALSE(rig.qos.reload_policy(rig.options));
  EXPECT_EQ(rig.qos.policy(), good);
  EXPECT_NE(rig.log_text.str().find("keeping the last good policy"), std::string::npos);
  // qos off: the file is not read and no policy is in force.
  rig.options.qos = false;
  EXPECT_TRUE(rig.qos.reload_policy(rig.options));
  EXPECT_EQ(rig.qos.policy(), nullptr);
  EXPECT_NE(rig.log_text.str().find("is not read: qos is off"), std::string::npos);
}

TEST(QosState, QosSetupBecomesPerPortTablesForTheSweepsFabric) {
  QosRig rig;
  const partitions::ResolvedConfig parts;
  const partitions::MembershipResult membership;
  rig.qos.update_setup(rig.model, rig.options, {parts, membership});
  EXPECT_EQ(rig.qos.config().overrides, nullptr);  // no policy
  rig.write_policy(policy_for(rig.port("h2").guid));
  ASSERT_TRUE(rig.qos.reload_policy(rig.options));
  rig.qos.update_setup(rig.model, rig.options, {parts, membership});
  ASSERT_NE(rig.qos.config().overrides, nullptr);
  const NodeIndex h2 = rig.model.find(rig.fabric->node(rig.fabric->index("h2")).info.node_guid);
  const NodeIndex h3 = rig.model.find(rig.fabric->node(rig.fabric->index("h3")).info.node_guid);
  const ClassConfig* o = rig.qos.config().overrides->vlarb(h2, 1);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->vlarb_high[0], (mad::VlArbBlock::Entry{0, 1}));
  EXPECT_EQ(rig.qos.config().overrides->vlarb(h3, 1), nullptr);
  // The programming follows: h2's high-priority block carries the scope's list.
  rig.program();
  EXPECT_EQ(rig.held("h2", 3, 2), (std::vector<std::pair<unsigned, unsigned>>{{0, 1}, {0, 0}}));
  EXPECT_EQ(rig.held("h3", 3, 2), (std::vector<std::pair<unsigned, unsigned>>{{0, 4}, {1, 8}}));
}

TEST(VlArbProgrammer, SetsTheConfiguredBlocksThenOnlyWhatDiffers) {
  QosRig rig;
  const VlArbCounts first = rig.program();
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kVlArbitration), first.sets);
  EXPECT_GT(first.wanted, 0u);
  EXPECT_EQ(first.known, 0u);
  EXPECT_EQ(first.sets, first.wanted);  // nothing known yet: every block
  EXPECT_TRUE(rig.report.clean());
  EXPECT_EQ(rig.held("h2", 1, 5), (std::vector<std::pair<unsigned, unsigned>>{
                                      {0, 0}, {1, 64}, {2, 128}, {3, 192}, {0, 32}}));
  EXPECT_EQ(rig.held("h2", 3, 2), (std::vector<std::pair<unsigned, unsigned>>{{0, 4}, {1, 8}}));
  // Known and equal: nothing.
  const VlArbCounts again = rig.program();
  EXPECT_EQ(again.known, again.wanted);
  EXPECT_EQ(again.sets, 0u);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kVlArbitration), 0u);
  // A changed high-priority list: block 3 of each port, block 1 left alone.
  rig.options.qos_vlarb_high = "0:2,1:2";
  rig.qos.apply_options(rig.options);
  const VlArbCounts changed = rig.program();
  EXPECT_EQ(changed.sets, changed.wanted / 2);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kVlArbitration), changed.sets);
  EXPECT_EQ(rig.held("h3", 3, 2), (std::vector<std::pair<unsigned, unsigned>>{{0, 2}, {1, 2}}));
  EXPECT_EQ(rig.failures, 0);
}

TEST(VlArbProgrammer, QosOffSendsNothing) {
  QosRig rig;
  rig.options.qos = false;
  rig.qos.apply_options(rig.options);
  const VlArbCounts n = rig.program();
  EXPECT_EQ(n.wanted, 0u);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet), 0u);
}

TEST(VlArbProgrammer, ALostSetIsAFailureOfTheSweepARefusedOneOnlyAWarning) {
  QosRig rig;
  rig.fabric->faults(rig.fabric->index("h3")).silent = true;
  rig.fabric->faults(rig.fabric->index("h2")).garbage = fake::Garbage::kErrorStatus;
  rig.program();
  // h3's two blocks (1 and 3) were lost; h2's, refused, are no failure of the sweep.
  ASSERT_EQ(rig.report.problems.size(), 2u);
  for (const auto& e : rig.report.problems)
    EXPECT_EQ(e.id, kErrProgrammingFailed);
  EXPECT_EQ(rig.failures, 2);
  EXPECT_NE(rig.log_text.str().find("VLArbitrationTable Set refused"), std::string::npos);
}

}  // namespace
}  // namespace ibsm::sm::qos
