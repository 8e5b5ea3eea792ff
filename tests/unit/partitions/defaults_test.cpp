#include "partitions/defaults.hpp"

#include <gtest/gtest.h>

#include "partitions/resolve.hpp"
#include "test_util.hpp"

namespace ibsm::partitions {
namespace {

TEST(Defaults, MissingFileIsEveryoneFullWithBroadcastGroup) {
  const auto out = load_partitions_file("/nonexistent/partitions.conf");
  ASSERT_TRUE(out.config);
  EXPECT_TRUE(out.diagnostics.empty());
  EXPECT_EQ(*out.config, missing_file_config());
  const auto r = resolve(*out.config);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(format_gid(r.groups[0].mgid), "ff12:401b:ffff::ffff:ffff");
  EXPECT_EQ(r.groups[0].rate, 3);
  EXPECT_EQ(r.groups[0].mtu, 4);
  EXPECT_EQ(r.groups[0].qkey, 0x0b1bu);
  EXPECT_EQ(r.rules.back().membership, Membership::kFull);
}

TEST(Defaults, EmptyOrCommentOnlyFileBehavesLikeMissingFile) {
  for (const char* text : {"", "# nothing\n\n   \n"}) {
    const auto out = load_partitions_text(text);
    ASSERT_TRUE(out.config);
    EXPECT_EQ(*out.config, missing_file_config());
    EXPECT_EQ(test::count_id(out.diagnostics, kNoStatements), 1);
  }
}

TEST(Defaults, FileWithoutDefaultRuleGetsLimitedAllAndFullSelf) {
  const auto out = load_partitions_text("P=2: ALL=full;");
  ASSERT_TRUE(out.config);
  const auto r = resolve(*out.config);
  ASSERT_GE(r.rules.size(), 2u);
  EXPECT_EQ(r.partitions[0].pkey, 0x7fff);
  EXPECT_EQ(r.rules[0].kind, MemberKind::kAll);
  EXPECT_EQ(r.rules[0].membership, Membership::kLimited);
  EXPECT_EQ(r.rules[1].kind, MemberKind::kSelf);
  EXPECT_EQ(r.rules[1].membership, Membership::kFull);
  EXPECT_TRUE(r.groups.empty());  // no broadcast group without 'ipoib'
}

TEST(Defaults, BrokenFileGivesNoConfigSoTheCallerKeepsItsLastGoodOne) {
  const auto out = load_partitions_text("P=2: ALL;\nbroken line\n");
  EXPECT_FALSE(out.config);
  EXPECT_TRUE(has_errors(out.diagnostics));
}

}  // namespace
}  // namespace ibsm::partitions
