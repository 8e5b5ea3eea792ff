// Planner results compared with what OpenSM 3.3.23 programmed on ibsim
// (net.2sw2path4hca, SM on Switch1 port 0, read back with smpquery pkeys).
#include "partitions/planner.hpp"

#include <gtest/gtest.h>

#include "partitions/fabric_snapshot.hpp"
#include "partitions/parser.hpp"
#include "test_util.hpp"

namespace ibsm::partitions {
namespace {

constexpr std::uint64_t kSwitch1 = 0x200000, kSwitch2 = 0x200001;
constexpr std::uint64_t kHca1Node = 0x100000, kHca2Node = 0x100003;

Fabric ibsim_fabric() {
  auto s = read_fabric_snapshot(test::read_data("net.2sw2path4hca.snapshot"));
  EXPECT_TRUE(s.ok());
  return s.ok() ? s->fabric : Fabric{};
}

FabricPlan plan(std::string_view text, PlannerOptions o = {}) {
  auto p = parse_partitions(text);
  EXPECT_TRUE(p.ok());
  return plan_pkeys(resolve(p.config), ibsim_fabric(), o);
}

std::vector<std::uint16_t> head(const PortPlan* p, std::size_t n) {
  if (!p) return {};
  return {p->table.begin(), p->table.begin() + static_cast<long>(std::min(n, p->table.size()))};
}

using V = std::vector<std::uint16_t>;

TEST(PlannerIbsim, RedHatOneLinePlusSecondPartition) {
  auto pl = plan(
      "Default=0x7fff, ipoib, rate=3, mtu=4, scope=2, defmember=full: ALL, ALL_SWITCHES=full;\n"
      "P2=0x0002, ipoib, rate=7, mtu=5: ALL=full;\n");
  EXPECT_EQ(head(pl.find(kSwitch1, 0), 2), (V{0xffff, 0x8002}));  // capacity 8
  EXPECT_EQ(pl.find(kSwitch1, 0)->table.size(), 32u);
  EXPECT_EQ(head(pl.find(kHca2Node, 1), 3), (V{0xffff, 0x8002, 0}));
  // switch port facing Hca1 mirrors it; inter-switch ports untouched
  EXPECT_EQ(head(pl.find(kSwitch1, 1), 2), (V{0xffff, 0x8002}));
  EXPECT_EQ(pl.find(kSwitch1, 3), nullptr);
  EXPECT_EQ(pl.find(kHca2Node, 1)->blocks_to_send, (V{0}));  // block 1 stays empty
  ASSERT_TRUE(pl.find(kSwitch1, 1)->set_enforcement);
  EXPECT_EQ(*pl.find(kSwitch1, 1)->set_enforcement, (Enforcement{true, true}));
}

TEST(PlannerIbsim, DefaultLimitedMakesEveryPortLimitedInOpenSm) {
  PlannerOptions opensm;
  opensm.sm_port_always_full = false;
  auto pl = plan("Default=0x7fff: ALL=limited;", opensm);
  EXPECT_EQ(head(pl.find(kSwitch1, 0), 1), (V{0x7fff}));  // the SM port too
  EXPECT_EQ(head(pl.find(kHca1Node, 1), 1), (V{0x7fff}));
  EXPECT_EQ(head(pl.find(kSwitch2, 1), 1), (V{0x7fff}));
}

TEST(PlannerIbsim, IbsmKeepsTheSmPortFull) {
  auto pl = plan("Default=0x7fff: ALL=limited;");
  EXPECT_EQ(head(pl.find(kSwitch1, 0), 1), (V{0xffff}));
  EXPECT_EQ(head(pl.find(kHca1Node, 1), 1), (V{0x7fff}));
  EXPECT_EQ(test::count_id(pl.diagnostics, kSmPortKeptFull), 1);
}

TEST(PlannerIbsim, AutoPKeysIndx0AndSwitchMembers) {
  auto pl = plan(test::read_data("ibsim-c4.conf"));
  EXPECT_EQ(head(pl.find(kSwitch1, 0), 3), (V{0x0002, 0x8003, 0xffff}));
  EXPECT_EQ(head(pl.find(kHca1Node, 1), 2), (V{0xffff, 0x0001}));
  EXPECT_EQ(head(pl.find(kSwitch2, 0), 2), (V{0xffff, 0x8003}));
  EXPECT_EQ(head(pl.find(kHca2Node, 1), 3), (V{0x8002, 0x0001, 0xffff}));
  EXPECT_EQ(head(pl.find(kSwitch2, 1), 3), (V{0x8002, 0x0001, 0xffff}));
  EXPECT_EQ(head(pl.find(kSwitch1, 2), 2), (V{0xffff, 0x0001}));
}

TEST(PlannerIbsim, UnchangedTablesSendNothing) {
  auto pl = plan("Default=0x7fff: ALL=full;");
  EXPECT_TRUE(pl.find(kHca1Node, 1)->blocks_to_send.empty());
  EXPECT_TRUE(pl.find(kSwitch1, 1)->blocks_to_send.empty());
}

// keep_pkey_indexes (osm_pkey_mgr.c): TRUE keeps an existing P_Key where the port holds
// it and a removed partition leaves a hole; FALSE lays the table out afresh, packed.
TEST(Planner, KeepPkeyIndexesFalseRepacks) {
  Fabric f = ibsim_fabric();
  for (auto& p : f.ports)
    if (p.node_guid == kHca1Node && p.port_num == 1) p.pkeys = {0xffff, 0x8002, 0x8003, 0x8004};
  auto parsed = parse_partitions("Default=0x7fff: ALL=full; P3=3: ALL=full; P4=4: ALL=full;");
  ASSERT_TRUE(parsed.ok());
  const auto config = resolve(parsed.config);

  PlannerOptions keep;
  auto kept = plan_pkeys(config, f, keep);
  EXPECT_EQ(head(kept.find(kHca1Node, 1), 4), (V{0xffff, 0, 0x8003, 0x8004}));

  PlannerOptions repack;
  repack.keep_pkey_indexes = false;
  // Even with an index history that says otherwise.
  PlannerState history;
  history.history[{kHca1Node, 1}] = {{0x8003, 9}, {0x8004, 7}};
  auto packed = plan_pkeys(config, f, repack, history);
  EXPECT_EQ(head(packed.find(kHca1Node, 1), 4), (V{0xffff, 0x8003, 0x8004, 0}));
  // Block 0 changed either way (the table above is one block short: block 1 too).
  EXPECT_EQ(packed.find(kHca1Node, 1)->blocks_to_send, kept.find(kHca1Node, 1)->blocks_to_send);
  // The switch port enforcing for it mirrors the packed table.
  EXPECT_EQ(head(packed.find(kSwitch1, 1), 3), (V{0xffff, 0x8003, 0x8004}));
}

TEST(Planner, PartEnforceModes) {
  for (auto [mode, bits] : {std::pair{PartEnforce::kIn, Enforcement{true, false}},
                            std::pair{PartEnforce::kOut, Enforcement{false, true}}}) {
    PlannerOptions o;
    o.part_enforce = mode;
    auto pl = plan("Default=0x7fff: ALL=full;", o);
    EXPECT_EQ(*pl.find(kSwitch1, 1)->set_enforcement, bits);
  }
  PlannerOptions off;
  off.part_enforce = PartEnforce::kOff;
  auto pl = plan("Default=0x7fff: ALL=full; P=2: ALL=full;", off);
  EXPECT_FALSE(pl.find(kSwitch1, 1)->set_enforcement);        // already off
  EXPECT_TRUE(pl.find(kSwitch1, 1)->blocks_to_send.empty());  // table left alone
}

TEST(Planner, InterSwitchEnforcementIsCleared) {
  Fabric f = ibsim_fabric();
  for (auto& p : f.ports)
    if (p.peer == FabricPort::Peer::kSwitch) p.enforcement = {true, true};
  auto r = resolve(parse_partitions("Default=0x7fff: ALL=full;").config);
  auto pl = plan_pkeys(r, f);
  ASSERT_NE(pl.find(kSwitch1, 3), nullptr);
  EXPECT_EQ(*pl.find(kSwitch1, 3)->set_enforcement, Enforcement{});
}

TEST(Planner, TooSmallEnforcementTableTurnsEnforcementOff) {
  Fabric f = ibsim_fabric();
  for (auto& p : f.ports)
    if (p.node_guid == kSwitch1 && p.port_num == 1) p.pkey_capacity = 2;
  auto r =
      resolve(parse_partitions("Default=0x7fff: ALL=full; A=1: ALL=full; B=2: ALL=full;").config);
  auto pl = plan_pkeys(r, f);
  EXPECT_EQ(*pl.find(kSwitch1, 1)->set_enforcement, Enforcement{});
  EXPECT_EQ(test::count_id(pl.diagnostics, kEnforcementTableTooSmall), 1);
}

TEST(Planner, AllowBothGivesTwoEntries) {
  PlannerOptions o;
  o.allow_both_pkeys = true;
  auto pl = plan("Default=0x7fff: ALL=full; P=2: ALL=both;", o);
  EXPECT_EQ(head(pl.find(kHca1Node, 1), 3), (V{0xffff, 0x0002, 0x8002}));
  // the switch port gets only the full one
  EXPECT_EQ(head(pl.find(kSwitch1, 1), 3), (V{0xffff, 0x8002, 0}));
  auto without = plan("Default=0x7fff: ALL=full; P=2: ALL=both;");
  EXPECT_EQ(head(without.find(kHca1Node, 1), 3), (V{0xffff, 0x8002, 0}));
}

TEST(Planner, UnknownGuidsAndAbsentPartitionsAreIgnored) {
  auto pl = plan("Default=0x7fff: ALL=full; Ghost=5: 0x1234=full;");
  EXPECT_EQ(head(pl.find(kHca1Node, 1), 2), (V{0xffff, 0}));
  EXPECT_FALSE(pl.membership.partition_present[1]);
}

TEST(Planner, HistoryIsHandedBack) {
  auto p = parse_partitions("Default=0x7fff: ALL=full; P=2: ALL=full;");
  auto r = resolve(p.config);
  auto first = plan_pkeys(r, ibsim_fabric());
  EXPECT_EQ(first.next_state.history.at({kHca1Node, 1}).at(0x8002), 1);
}

}  // namespace
}  // namespace ibsm::partitions
