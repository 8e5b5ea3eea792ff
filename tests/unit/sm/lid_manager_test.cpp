// LID assignment (sm/lid_manager) and the guid2lid file format (sm/guid2lid).
#include <gtest/gtest.h>

#include <set>

#include "sm/lids/guid2lid.hpp"
#include "sm/lids/lid_manager.hpp"

namespace ibsm::sm {
namespace {

LidRequest req(mad::Guid g, mad::Lid current = 0, std::uint8_t lmc = 0, bool sm = false) {
  return LidRequest{g, current, lmc, sm};
}

std::vector<mad::Lid> assign(const std::vector<LidRequest>& r, const Guid2Lid& db = {},
                             LidPolicy policy = {}) {
  auto lids = assign_lids(r, db, policy);
  EXPECT_TRUE(lids.ok()) << lids.error().message;
  return lids.ok() ? *lids : std::vector<mad::Lid>{};
}

void expect_unique_and_aligned(const std::vector<LidRequest>& r, const std::vector<mad::Lid>& l) {
  std::set<unsigned> used;
  ASSERT_EQ(r.size(), l.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_TRUE(lid_range_valid(l[i], r[i].lmc, mad::kMaxUnicastLid)) << i;
    for (unsigned x = l[i]; x < l[i] + (1u << r[i].lmc); ++x)
      EXPECT_TRUE(used.insert(x).second) << "LID " << x << " given twice";
  }
}

TEST(LidRangeValid, FollowsLmcAlignment) {
  EXPECT_TRUE(lid_range_valid(1, 0, 0xBFFF));
  EXPECT_FALSE(lid_range_valid(0, 0, 0xBFFF));
  EXPECT_TRUE(lid_range_valid(4, 2, 0xBFFF));
  EXPECT_FALSE(lid_range_valid(6, 2, 0xBFFF));  // not a multiple of 4
  EXPECT_FALSE(lid_range_valid(0xBFFC + 4, 2, 0xBFFF));
  EXPECT_TRUE(lid_range_valid(0xBFFC, 2, 0xBFFF));
  EXPECT_FALSE(lid_range_valid(8, 0, 7));  // above max_lid
}

TEST(PortLmc, OnlyAnEnhancedPort0WithLmcEsp0GetsTheLmc) {
  EXPECT_EQ(port_lmc(false, false, 2, false), 2);  // CA port
  EXPECT_EQ(port_lmc(true, false, 2, true), 0);    // base port 0: one LID whatever the key
  EXPECT_EQ(port_lmc(true, true, 2, false), 0);    // enhanced, lmc_esp0 FALSE (default)
  EXPECT_EQ(port_lmc(true, true, 2, true), 2);     // enhanced, lmc_esp0 TRUE
}

TEST(AssignLids, SmPortGetsLidOneOnAColdFabric) {
  const std::vector<LidRequest> r = {req(0x10), req(0x20), req(0x30, 0, 0, true), req(0x40)};
  const auto l = assign(r);
  EXPECT_EQ(l[2], 1);
  EXPECT_EQ(l[0], 2);  // then discovery order
  EXPECT_EQ(l[1], 3);
  EXPECT_EQ(l[3], 4);
}

TEST(AssignLids, KeepsValidUniqueCurrentLids) {
  const std::vector<LidRequest> r = {req(0x10, 17), req(0x20, 5), req(0x30, 9, 0, true)};
  const auto l = assign(r);
  EXPECT_EQ(l, (std::vector<mad::Lid>{17, 5, 9}));
}

TEST(AssignLids, CurrentLidBeatsAnotherPortsGuid2LidRecord) {
  const Guid2Lid db = {{0x20, {5, 5}}};
  const auto l = assign({req(0x10, 5), req(0x20, 0)}, db);
  EXPECT_EQ(l[0], 5);  // the port holding it now keeps it
  EXPECT_NE(l[1], 5);
}

TEST(AssignLids, Guid2LidUsedWhenCurrentIsZeroInvalidOrDuplicate) {
  const Guid2Lid db = {{0x10, {7, 7}}, {0x20, {12, 15}}, {0x30, {21, 21}}, {0x40, {22, 22}}};
  const std::vector<LidRequest> r = {
      req(0x10, 0),       // unassigned
      req(0x20, 13, 2),   // misaligned for LMC 2
      req(0x30, 30),      // duplicate with 0x40 ...
      req(0x40, 30),      // ... and neither record says 30
      req(0x50, 0xC000),  // multicast: invalid
  };
  const auto l = assign(r, db);
  EXPECT_EQ(l[0], 7);
  EXPECT_EQ(l[1], 12);
  EXPECT_EQ(l[2], 21);
  EXPECT_EQ(l[3], 22);
  expect_unique_and_aligned(r, l);
}

TEST(AssignLids, DuplicateCurrentLidStaysWithThePortGuid2LidAgreesWith) {
  const Guid2Lid db = {{0x20, {30, 30}}};
  const auto l = assign({req(0x10, 30), req(0x20, 30)}, db);
  EXPECT_EQ(l[1], 30);
  EXPECT_NE(l[0], 30);
}

TEST(AssignLids, LmcRangesAreAligned) {
  std::vector<LidRequest> r;
  r.push_back(req(0x1, 0, 0, true));
  for (mad::Guid g = 2; g < 10; ++g)
    r.push_back(req(g, 0, 2));
  const auto l = assign(r);
  EXPECT_EQ(l[0], 1);
  for (std::size_t i = 1; i < l.size(); ++i)
    EXPECT_EQ(l[i] % 4, 0) << i;
  expect_unique_and_aligned(r, l);
}

TEST(AssignLids, RangesKeptForAbsentGuidsAreAvoided) {
  const Guid2Lid db = {{0xAA, {1, 1}}, {0xBB, {2, 3}}, {0xCC, {5, 5}}};
  const auto l = assign({req(0x10), req(0x20), req(0x30)}, db);
  EXPECT_EQ(l, (std::vector<mad::Lid>{4, 6, 7}));
}

TEST(AssignLids, ReservationsGiveWayWhenSpaceRunsOut) {
  const Guid2Lid db = {{0xAA, {1, 1}}, {0xBB, {2, 2}}};
  LidPolicy p;
  p.max_lid = 3;
  const auto l = assign({req(0x10), req(0x20)}, db, p);
  EXPECT_EQ(l[0], 3);
  EXPECT_EQ(l[1], 1);
}

TEST(AssignLids, ReassignIgnoresCurrentLidsAndGuid2Lid) {
  const Guid2Lid db = {{0x10, {40, 40}}};
  LidPolicy p;
  p.reassign = true;
  const auto l = assign({req(0x10, 50), req(0x20, 60, 0, true), req(0x30, 70)}, db, p);
  EXPECT_EQ(l, (std::vector<mad::Lid>{2, 1, 3}));
}

TEST(AssignLids, ExhaustionIsAnError) {
  LidPolicy p;
  p.max_lid = 3;
  auto r = assign_lids({req(1), req(2), req(3), req(4)}, {}, p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kErrLidSpaceExhausted);
  EXPECT_NE(r.error().message.find("0x0000000000000004"), std::string::npos) << r.error().message;

  p.max_lid = 7;  // two LMC-2 ranges do not fit next to LID 1
  EXPECT_FALSE(assign_lids({req(1, 0, 0, true), req(2, 0, 2), req(3, 0, 2)}, {}, p).ok());
}

TEST(AssignLids, ManyPortsStayUniqueWithMixedInput) {
  std::vector<LidRequest> r;
  Guid2Lid db;
  for (mad::Guid g = 1; g <= 500; ++g) {
    const mad::Lid current = static_cast<mad::Lid>((g * 7) % 300);  // collisions and zeros
    r.push_back(req(g, current, g % 3 == 0 ? 1 : 0, g == 250));
    if (g % 5 == 0) db[g] = {static_cast<mad::Lid>(g * 2), static_cast<mad::Lid>(g * 2)};
  }
  const auto l = assign(r, db);
  expect_unique_and_aligned(r, l);
}

// ---------------------------------------------------------------- guid2lid

TEST(Guid2Lid, ParsesOpenSmFormat) {
  const auto r = parse_guid2lid(
      "0x0002c90300001234 0x0001 0x0001\n"
      "\n"
      "0x0002c90300005678 0x0004 0x0007\n"
      "\n");
  EXPECT_TRUE(r.warnings.empty());
  ASSERT_EQ(r.db.size(), 2u);
  EXPECT_EQ(r.db.at(0x0002c90300001234ULL), (LidRange{1, 1}));
  EXPECT_EQ(r.db.at(0x0002c90300005678ULL), (LidRange{4, 7}));
}

TEST(Guid2Lid, FormatsLikeOpenSm) {
  const Guid2Lid db = {{0x0002c90300005678ULL, {4, 7}}, {0x0002c90300001234ULL, {1, 1}}};
  EXPECT_EQ(format_guid2lid(db),
            "0x0002c90300001234 0x0001 0x0001\n\n"
            "0x0002c90300005678 0x0004 0x0007\n\n");
  EXPECT_EQ(parse_guid2lid(format_guid2lid(db)).db, db);
  EXPECT_EQ(format_guid2lid({}), "");
}

TEST(Guid2Lid, BadLinesAreSkippedWithTheirLineNumbers) {
  const auto r = parse_guid2lid(
      "0x10 0x0001 0x0001\n"    // 1 ok
      "garbage\n"               // 2
      "0x11 0x0002\n"           // 3 missing max
      "0x12 0x0000 0x0000\n"    // 4 LID 0
      "0x13 0x0005 0x0003\n"    // 5 max < min
      "0x14 0xC000 0xC000\n"    // 6 multicast
      "0x15 0x0002 0x0002 x\n"  // 7 trailing token
      "0x0 0x0003 0x0003\n"     // 8 GUID 0
      "# a comment\n"           // 9 skipped silently
      "0x16 0x0009 0x0009\r\n"  // 10 CRLF is not OpenSM's, but must not crash
      "0x17 0x000a 0x000a\n");  // 11 ok
  EXPECT_TRUE(r.db.count(0x10));
  EXPECT_TRUE(r.db.count(0x17));
  for (mad::Guid g = 0x11; g <= 0x15; ++g)
    EXPECT_FALSE(r.db.count(g)) << std::hex << g;
  ASSERT_GE(r.warnings.size(), 7u);
  const int lines[] = {2, 3, 4, 5, 6, 7, 8};
  for (std::size_t i = 0; i < 7; ++i)
    EXPECT_EQ(r.warnings[i].rfind("line " + std::to_string(lines[i]) + ":", 0), 0u)
        << r.warnings[i];
}

TEST(Guid2Lid, RandomTextNeverCrashes) {
  std::uint32_t x = 99;
  for (int i = 0; i < 300; ++i) {
    std::string text;
    for (int j = 0; j < 200; ++j) {
      x = x * 1103515245u + 12345u;
      const char alphabet[] = "0x123456789abcdefABCDEF \n\t#-+";
      text += alphabet[(x >> 16) % (sizeof alphabet - 1)];
    }
    const auto r = parse_guid2lid(text);
    for (const auto& [g, range] : r.db) {
      EXPECT_NE(g, 0u);
      EXPECT_GE(range.min, 1);
      EXPECT_LE(range.min, range.max);
      EXPECT_LE(range.max, mad::kMaxUnicastLid);
    }
  }
}

}  // namespace
}  // namespace ibsm::sm
