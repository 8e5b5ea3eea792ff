// The example files OpenSM's documentation and Red Hat's guide ship, read the way
// OpenSM 3.3.23 read them on ibsim.
#include <gtest/gtest.h>

#include "partitions/defaults.hpp"
#include "partitions/parser.hpp"
#include "partitions/planner.hpp"
#include "partitions/resolve.hpp"
#include "test_util.hpp"

namespace ibsm::partitions {
namespace {

TEST(Examples, RedHatTwoStatements) {
  auto out = load_partitions_text(test::read_data("redhat-two-statements.conf"));
  ASSERT_TRUE(out.config);
  EXPECT_FALSE(has_errors(out.diagnostics));
  const auto r = resolve(*out.config);
  ASSERT_EQ(r.partitions.size(), 2u);
  EXPECT_EQ(r.partitions[0].name, "Default");
  EXPECT_EQ(r.partitions[1].name, "ib0_2");
  EXPECT_EQ(r.partitions[1].pkey, 2);
  // 0x7fff: broadcast + 7 more IPv4 + 7 IPv6 groups; 0x0002: broadcast + 2 + 1
  ASSERT_EQ(r.groups.size(), 15u + 4u);
  EXPECT_EQ(format_gid(r.groups[0].mgid), "ff12:401b:ffff::ffff:ffff");
  EXPECT_EQ(format_gid(r.groups[1].mgid), "ff12:401b:ffff::1");
  EXPECT_EQ(format_gid(r.groups[14].mgid), "ff12:601b:ffff::1:3");
  EXPECT_EQ(format_gid(r.groups[15].mgid), "ff12:401b:8002::ffff:ffff");
  EXPECT_EQ(r.groups[15].rate, 7);
  EXPECT_EQ(r.groups[18].qkey, 0x0b1bu);
}

TEST(Examples, RedHatOneLine) {
  auto out = load_partitions_text(test::read_data("redhat-one-line.conf"));
  ASSERT_TRUE(out.config);
  const auto r = resolve(*out.config);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].pkey, 0xffff);
  EXPECT_EQ(r.rules.back().kind, MemberKind::kAllSwitches);
  EXPECT_EQ(r.rules.back().membership, Membership::kFull);
  EXPECT_EQ(r.rules[r.rules.size() - 2].membership, Membership::kFull);  // ALL via defmember
}

TEST(Examples, OpenSmDocExamples) {
  auto out = load_partitions_text(test::read_data("opensm-doc-examples.conf"));
  ASSERT_TRUE(out.config);
  const auto r = resolve(*out.config);
  const ResolvedPartition* share = r.find(0x80);
  ASSERT_NE(share, nullptr);
  EXPECT_EQ(share->name, "ShareIO");
  ASSERT_NE(r.find(0x300), nullptr);
  const ResolvedPartition* np = r.find(1);  // NewPartition has no P_Key
  ASSERT_NE(np, nullptr);
  EXPECT_EQ(np->name, "NewPartition");
  EXPECT_TRUE(np->ipoib);
  // 0x3456789034=limi is limited, 0x123456=full full, 0x2134af2306 defmember (limited)
  int limited = 0, full = 0;
  const auto np_index = static_cast<std::size_t>(np - r.partitions.data());
  for (const auto& rule : r.rules)
    if (rule.partition == np_index) (rule.membership == Membership::kFull ? full : limited)++;
  EXPECT_EQ(full, 1);
  EXPECT_EQ(limited, 2);
}

TEST(Examples, OpenSmDocLineThatOpenSmRejects) {
  // OpenSM 3.3.23: "PARSE ERROR: line 4: bad PortGUID", then the default config.
  auto out = load_partitions_text(test::read_data("opensm-doc-error.conf"));
  EXPECT_FALSE(out.config);
  const Diagnostic* d = test::first_with(out.diagnostics, kBadPortGuid);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 4);
}

TEST(Examples, LegacyRule) {
  auto out = load_partitions_text(test::read_data("legacy.conf"));
  ASSERT_TRUE(out.config);
  const auto r = resolve(*out.config);
  EXPECT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.rules.back().membership, Membership::kFull);
}

}  // namespace
}  // namespace ibsm::partitions
