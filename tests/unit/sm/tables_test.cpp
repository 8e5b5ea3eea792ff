// sm/tables: SwitchTables without a SubnetManager, programming a FakeFabric's switches:
// the first round sends every block and the tables then route every LID, later rounds
// send only the blocks that differ, a reset switch is sent in full again, a standby's
// reading of the tables spares the takeover's Sets when the fabric is the same, failures
// reach the report and SweepContext::on_failure, and SL2VL is read and set only where
// unknown or different.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "mad/attr/forwarding_table.hpp"
#include "sm/election/lft_mirror.hpp"
#include "sm/errors.hpp"
#include "sm/routes/routing_input.hpp"
#include "sm/tables/port_tables.hpp"
#include "sm/tables/switch_tables.hpp"
#include "tests/support/builders.hpp"
#include "tests/unit/sm/component_rig.hpp"

namespace ibsm::sm::tables_test {
namespace {

using mad::AttrId;
using mad::Method;
using tables::SwitchTables;
using testrig::NumberedRig;

// The model, minhop's routes on it and the switch rows, as the Router would hand them.
struct Bench {
  explicit Bench(testsupport::Fabric desc) : rig(std::move(desc)) { route(); }

  void route() {
    RoutingInput in = make_routing_input(rig.model);
    auto r = routing::make_engine("minhop")->route(in.topology);
    EXPECT_TRUE(r.ok());
    routes = std::make_shared<const routing::Routes>(std::move(*r));
    topology = std::move(in.topology);
    switches = in.switch_nodes;
  }

  // One programming round, answered.
  void program() {
    rig.fabric->reset_stats();
    tables.program_switches(rig.ctx(), routes, switches);
    rig.drain();
  }

  std::uint64_t lft_sets() const {
    return rig.fabric->stats().count(Method::kSet, AttrId::kLinearForwardingTable);
  }

  // LFT blocks of every switch up to its LinearFDBTop.
  std::size_t all_blocks() const {
    std::size_t n = 0;
    for (const routing::Lft& lft : routes->lfts) {
      std::size_t top = 0;
      for (std::size_t l = lft.size(); l-- > 1;)
        if (lft[l] != routing::kNoPath) {
          top = l;
          break;
        }
      n += (top + mad::LftBlock::kEntries) / mad::LftBlock::kEntries;
    }
    return n;
  }

  NumberedRig rig;
  SwitchTables tables{rig.log, rig.log};
  std::shared_ptr<const routing::Routes> routes;
  routing::Topology topology;
  std::vector<NodeIndex> switches;
};

TEST(SwitchTables, FirstRoundSendsEveryBlockAndTheFabricRoutes) {
  Bench b(testsupport::two_level_fat_tree(3, 2, 2));
  b.program();
  EXPECT_TRUE(b.rig.report.clean());
  EXPECT_EQ(b.lft_sets(), b.all_blocks());
  EXPECT_EQ(b.tables.lft_blocks_sent(), b.all_blocks());
  EXPECT_EQ(b.rig.fabric->stats().count(Method::kSet, AttrId::kSwitchInfo), b.switches.size());
  std::size_t checked = 0;
  EXPECT_TRUE(b.rig.fabric->check_routes(&checked).empty());
  EXPECT_GT(checked, 0U);
  // The model took the SwitchInfo the switches answered with.
  for (NodeIndex s : b.switches)
    EXPECT_EQ(b.rig.model.node(s).switch_info->life_time_value, b.rig.options.packet_life_time);
}

TEST(SwitchTables, SameRoutesAgainSendNothing) {
  Bench b(testsupport::two_level_fat_tree(3, 2, 2));
  b.program();
  b.program();
  EXPECT_EQ(b.rig.fabric->stats().count(Method::kSet), 0U);
  EXPECT_EQ(b.tables.lft_blocks_sent(), 0U);
}

TEST(SwitchTables, OnlyTheBlockThatDiffersIsSet) {
  Bench b(testsupport::two_level_fat_tree(3, 2, 2));
  b.program();
  // One entry of the second switch row changes (a LID of the fabric, kept below top).
  routing::Routes changed = *b.routes;
  routing::Lft& lft = changed.lfts[1];
  const std::size_t lid = 2;
  ASSERT_GT(lft.size(), lid);
  lft[lid] = lft[lid] == 1 ? 2 : 1;
  b.routes = std::make_shared<const routing::Routes>(std::move(changed));
  b.program();
  EXPECT_EQ(b.lft_sets(), 1U);
  EXPECT_EQ(b.tables.lft_blocks_sent(), 1U);
  EXPECT_EQ(b.rig.fabric->stats().count(Method::kSet, AttrId::kSwitchInfo), 0U);
  const Node& sw = b.rig.model.node(b.switches[1]);
  const fake::FakeNode* held = nullptr;
  for (std::uint32_t i = 0; i < b.rig.fabric->size(); ++i)
    if (b.rig.fabric->node(i).info.node_guid == sw.guid()) held = &b.rig.fabric->node(i);
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(held->lft[lid], b.routes->lfts[1][lid]);
  const auto* known = b.tables.held_lft(sw.guid());
  ASSERT_NE(known, nullptr);
  EXPECT_EQ((*known)[lid], b.routes->lfts[1][lid]);
}

TEST(SwitchTables, ResetSwitchIsProgrammedInFull) {
  Bench b(testsupport::two_level_fat_tree(3, 2, 2));
  b.program();
  // The first switch power-cycles: no LID, LinearFDBTop 0, empty table.
  const Guid reset_guid = b.rig.model.node(b.switches[0]).guid();
  std::uint32_t idx = 0;
  for (std::uint32_t i = 0; i < b.rig.fabric->size(); ++i)
    if (b.rig.fabric->node(i).info.node_guid == reset_guid) idx = i;
  fake::FakeNode& n = b.rig.fabric->node(idx);
  std::fill(n.lft.begin(), n.lft.end(), routing::kNoPath);
  n.switch_info->linear_fdb_top = 0;
  const mad::Lid lid = n.ports[0].info.lid;
  n.ports[0].info.lid = 0;
  // The next sweep reads it so; LID assignment gives it its LID back.
  b.rig.discover_numbered();
  b.tables.forget_reset_switches(b.rig.model);
  for (const auto& h : b.rig.model.lid_holders())
    if (b.rig.model.node(h.node).guid() == reset_guid) b.rig.model.node(h.node).ports[0].lid = lid;
  b.route();
  b.program();
  std::size_t row = 0;
  while (row < b.switches.size() && b.rig.model.node(b.switches[row]).guid() != reset_guid)
    ++row;
  ASSERT_LT(row, b.switches.size());
  const routing::Lft& lft = b.routes->lfts[row];
  std::size_t top = 0;
  for (std::size_t l = lft.size(); l-- > 1;)
    if (lft[l] != routing::kNoPath) {
      top = l;
      break;
    }
  EXPECT_EQ(b.lft_sets(), (top + mad::LftBlock::kEntries) / mad::LftBlock::kEntries);
  EXPECT_EQ(b.rig.fabric->stats().count(Method::kSet, AttrId::kSwitchInfo), 1U);
  n.ports[0].info.lid = lid;  // what PortInfo programming would do
  EXPECT_TRUE(b.rig.fabric->check_routes().empty());
}

TEST(SwitchTables, TakeoverAdoptsWhatTheStandbyRead) {
  Bench b(testsupport::two_level_fat_tree(3, 2, 2));
  b.program();  // the old master's tables
  // A standby read them all; a new SwitchTables (a new master) adopts the reading.
  election::MirroredTables read;
  read.signature = election::topology_signature(b.rig.model);
  for (std::size_t s = 0; s < b.switches.size(); ++s) {
    const Node& sw = b.rig.model.node(b.switches[s]);
    read.lft[sw.guid()] = *b.tables.held_lft(sw.guid());
    read.top[sw.guid()] = sw.switch_info->linear_fdb_top;
  }
  SwitchTables fresh(b.rig.log, b.rig.log);
  fresh.set_takeover(read);
  EXPECT_TRUE(fresh.takeover_pending());
  fresh.adopt_mirrored_tables(b.rig.model);
  EXPECT_FALSE(fresh.takeover_pending());
  b.rig.fabric->reset_stats();
  fresh.program_switches(b.rig.ctx(), b.routes, b.switches);
  b.rig.drain();
  EXPECT_EQ(b.lft_sets(), 0U);
  EXPECT_NE(b.rig.log_text.str().find("only blocks that differ are sent"), std::string::npos);
  // Read in another fabric (the signature differs): every block goes out.
  read.signature ^= 1;
  SwitchTables other(b.rig.log, b.rig.log);
  other.set_takeover(read);
  other.adopt_mirrored_tables(b.rig.model);
  b.rig.fabric->reset_stats();
  other.program_switches(b.rig.ctx(), b.routes, b.switches);
  b.rig.drain();
  EXPECT_EQ(b.lft_sets(), b.all_blocks());
}

TEST(SwitchTables, SilentSwitchIsAProblemAndReachesOnFailure) {
  Bench b(testsupport::two_level_fat_tree(3, 2, 2));
  const Guid silent = b.rig.model.node(b.switches[2]).guid();
  for (std::uint32_t i = 0; i < b.rig.fabric->size(); ++i)
    if (b.rig.fabric->node(i).info.node_guid == silent) b.rig.fabric->faults(i).silent = true;
  b.program();
  ASSERT_FALSE(b.rig.report.clean());
  EXPECT_EQ(b.rig.report.problems.front().id, kErrProgrammingFailed);
  EXPECT_FALSE(b.rig.failures.empty());
  // Its blocks are not taken as held: the next round sends them again.
  b.rig.fabric->clear_faults();
  b.program();
  EXPECT_GT(b.lft_sets(), 0U);
}

TEST(SwitchTables, Sl2VlOnlyWhenPathsUseSls) {
  Bench b(testsupport::two_level_fat_tree(2, 2, 1));
  PortTables ports(b.rig.log);
  b.rig.fabric->reset_stats();
  b.tables.program_sl2vl(
      b.rig.ctx(), {b.topology, *b.routes, false, nullptr, std::chrono::milliseconds(500), ports});
  b.rig.drain();
  EXPECT_EQ(b.tables.sl2vl_counts(), nullptr);
  EXPECT_EQ(b.rig.fabric->stats().count(Method::kGet, AttrId::kSlToVlTable), 0U);
  EXPECT_EQ(b.rig.fabric->stats().count(Method::kSet, AttrId::kSlToVlTable), 0U);
  // Per-path SLs: every table is wanted; unknown ones are read first, then Set where
  // they differ; the next round knows them all and sends nothing.
  b.tables.program_sl2vl(
      b.rig.ctx(), {b.topology, *b.routes, true, nullptr, std::chrono::milliseconds(500), ports});
  b.rig.drain();
  const tables::Sl2VlCounts* c = b.tables.sl2vl_counts();
  ASSERT_NE(c, nullptr);
  EXPECT_GT(c->wanted, 0U);
  EXPECT_EQ(c->wanted, c->known + c->gets);
  EXPECT_EQ(b.rig.fabric->stats().count(Method::kGet, AttrId::kSlToVlTable), c->gets);
  EXPECT_EQ(b.rig.fabric->stats().count(Method::kSet, AttrId::kSlToVlTable), c->sets);
  b.rig.fabric->reset_stats();
  b.tables.program_sl2vl(
      b.rig.ctx(), {b.topology, *b.routes, true, nullptr, std::chrono::milliseconds(500), ports});
  b.rig.drain();
  c = b.tables.sl2vl_counts();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->known, c->wanted);
  EXPECT_EQ(b.rig.fabric->stats().count(Method::kGet, AttrId::kSlToVlTable), 0U);
  EXPECT_EQ(b.rig.fabric->stats().count(Method::kSet, AttrId::kSlToVlTable), 0U);
}

}  // namespace
}  // namespace ibsm::sm::tables_test
