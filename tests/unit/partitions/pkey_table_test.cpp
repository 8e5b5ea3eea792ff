#include "partitions/pkey_table.hpp"

#include <gtest/gtest.h>

namespace ibsm::partitions {
namespace {

std::vector<std::uint16_t> head(const std::vector<std::uint16_t>& t, std::size_t n) {
  return {t.begin(), t.begin() + static_cast<long>(std::min(n, t.size()))};
}

TEST(PKeyTable, OpenSmOrderIsByteSwappedLimitedFirst) {
  EXPECT_EQ(opensm_pkey_order({0xffff, 0x8002, 0x0001, 0x0100, 0x0002}),
            (std::vector<std::uint16_t>{0x0100, 0x0001, 0x0002, 0x8002, 0xffff}));
}

TEST(PKeyTable, DefaultAtIndexZeroNewOnesAppended) {
  PKeyIndexHistory h;
  auto r = plan_table({{0xffff}, 64, opensm_pkey_order({0xffff, 0x8002}), 0, false}, h);
  EXPECT_EQ(head(r.table, 3), (std::vector<std::uint16_t>{0xffff, 0x8002, 0}));
  EXPECT_EQ(r.table.size(), 64u);
  EXPECT_EQ(r.used_blocks, 1u);
  EXPECT_EQ(h.at(0x8002), 1);
}

TEST(PKeyTable, ExistingIndexesAreKept) {
  PKeyIndexHistory h;
  auto r = plan_table({{0xffff, 0, 0, 0x8005}, 64, {0x8002, 0x8005, 0xffff}, 0, false}, h);
  EXPECT_EQ(head(r.table, 5), (std::vector<std::uint16_t>{0xffff, 0, 0, 0x8005, 0x8002}));
}

TEST(PKeyTable, MembershipChangeKeepsTheIndex) {
  PKeyIndexHistory h;
  auto r = plan_table({{0xffff, 0x8002}, 64, {0x0002, 0xffff}, 0, false}, h);
  EXPECT_EQ(head(r.table, 2), (std::vector<std::uint16_t>{0xffff, 0x0002}));
}

TEST(PKeyTable, Indx0TakesIndexZeroAndDefaultMovesToTheEnd) {
  // observed on ibsim (partitions ibsim-c4.conf, Hca2): 0x8002 0x0001 0xffff
  PKeyIndexHistory h;
  auto r =
      plan_table({{0xffff}, 64, opensm_pkey_order({0x0001, 0x8002, 0xffff}), 0x8002, false}, h);
  EXPECT_EQ(head(r.table, 3), (std::vector<std::uint16_t>{0x8002, 0x0001, 0xffff}));
}

TEST(PKeyTable, RemovedPKeyLeavesAHoleAndNewOnesGoAfterTheHistory) {
  PKeyIndexHistory h;
  (void)plan_table({{0xffff}, 64, {0x8002, 0xffff}, 0, false}, h);
  auto r = plan_table({{0xffff, 0x8002}, 64, {0x8003, 0xffff}, 0, false}, h);
  EXPECT_EQ(head(r.table, 3), (std::vector<std::uint16_t>{0xffff, 0, 0x8003}));
  // and a P_Key that comes back gets its old index
  auto again = plan_table({{0xffff, 0, 0x8003}, 64, {0x8002, 0x8003, 0xffff}, 0, false}, h);
  EXPECT_EQ(head(again.table, 3), (std::vector<std::uint16_t>{0xffff, 0x8002, 0x8003}));
}

TEST(PKeyTable, FullTableReusesHolesThenDrops) {
  PKeyIndexHistory h{{0x8001, 1}, {0x8002, 2}, {0x8003, 3}};
  auto r = plan_table(
      {{0xffff, 0, 0x8002, 0x8003}, 4, {0x8002, 0x8003, 0x8004, 0x8005, 0xffff}, 0, false}, h);
  EXPECT_EQ(head(r.table, 4), (std::vector<std::uint16_t>{0xffff, 0x8004, 0x8002, 0x8003}));
  EXPECT_EQ(r.dropped, (std::vector<std::uint16_t>{0x8005}));
}

TEST(PKeyTable, BothMembershipsOnlyWithAllowBoth) {
  PKeyIndexHistory h;
  auto r = plan_table({{0xffff}, 64, opensm_pkey_order({0x0002, 0x8002, 0xffff}), 0, true}, h);
  EXPECT_EQ(head(r.table, 3), (std::vector<std::uint16_t>{0xffff, 0x0002, 0x8002}));
}

TEST(PKeyTable, PeerTableIsPackedWithoutLimitedTwins) {
  std::vector<std::uint16_t> t(64, 0);
  t[0] = 0xffff;
  t[2] = 0x0002;
  t[3] = 0x8002;
  t[5] = 0x0003;
  EXPECT_EQ(peer_table(t, 1), (std::vector<std::uint16_t>{0xffff, 0x8002, 0x0003}));
}

TEST(PKeyTable, ChangedBlocks) {
  std::vector<std::uint16_t> have(64, 0), want(64, 0);
  have[0] = want[0] = 0xffff;
  want[40] = 0x8002;
  EXPECT_EQ(changed_blocks(have, want, 2), (std::vector<std::uint16_t>{1}));
  EXPECT_EQ(changed_blocks({0xffff}, want, 2), (std::vector<std::uint16_t>{0, 1}));
  EXPECT_TRUE(changed_blocks(have, have, 2).empty());
}

}  // namespace
}  // namespace ibsm::partitions
