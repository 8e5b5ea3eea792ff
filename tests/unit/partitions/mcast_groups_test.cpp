#include "partitions/mcast_groups.hpp"

#include <gtest/gtest.h>

#include "partitions/parser.hpp"
#include "test_util.hpp"

namespace ibsm::partitions {
namespace {

std::vector<GroupSpec> groups(std::string_view text) {
  return resolve(parse_partitions(text).config).groups;
}

Gid gid(const char* text) {
  return *parse_gid(text);
}

TEST(McGroups, MlidsFromC000InCreationOrder) {
  // observed on ibsim with opensm-man-mgid.conf: broadcast 0xC000, ::707 0xC001, ff12::1 0xC002
  McGroupTable t;
  EXPECT_TRUE(t.apply_configuration(groups(test::read_data("opensm-man-mgid.conf"))).empty());
  EXPECT_EQ(t.find(gid("ff12:401b:ffff::ffff:ffff"))->mlid, 0xC000);
  EXPECT_EQ(t.find(gid("ff12:401b:ffff::707"))->mlid, 0xC001);
  const McGroup* g = t.find(gid("ff12::1"));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->mlid, 0xC002);
  EXPECT_EQ(g->params.mtu, 2);
  EXPECT_EQ(g->params.sl, 1);
  EXPECT_EQ(g->params.qkey, 0xDEADBEEFu);
  EXPECT_EQ(g->params.pkey, 0xffff);
}

TEST(McGroups, RedHatFileMlidsAsOnIbsim) {
  // observed: ff12:401b:8002::ffff:ffff 0xC00F, ::1 0xC010, ::2 0xC011 (15 groups in 0x7fff)
  McGroupTable t;
  t.apply_configuration(groups(test::read_data("redhat-two-statements.conf")));
  EXPECT_EQ(t.find(gid("ff12:401b:8002::ffff:ffff"))->mlid, 0xC00F);
  EXPECT_EQ(t.find(gid("ff12:401b:8002::1"))->mlid, 0xC010);
  EXPECT_EQ(t.find(gid("ff12:401b:8002::2"))->mlid, 0xC011);
}

TEST(McGroups, ReloadKeepsMlidsAndReusesFreedOnes) {
  McGroupTable t;
  t.apply_configuration(groups("D=0x7fff,ipoib: mgid=ff12::1\n mgid=ff12::2\n ALL;"));
  t.apply_configuration(groups("D=0x7fff,ipoib: mgid=ff12::2\n mgid=ff12::3\n ALL;"));
  EXPECT_EQ(t.find(gid("ff12::2"))->mlid, 0xC002);
  EXPECT_EQ(t.find(gid("ff12::3"))->mlid, 0xC001);  // freed by ff12::1
  EXPECT_EQ(t.find(gid("ff12::1")), nullptr);
}

TEST(McGroups, RestartWithPreviousAssignmentKeepsMlids) {
  McGroupTable before;
  before.apply_configuration(groups("D=0x7fff,ipoib: mgid=ff12::1\n mgid=ff12::2\n ALL;"));
  const std::string saved = format_mlid_assignment(before.assignment());
  McGroupTable after;
  after.apply_configuration(groups("D=0x7fff,ipoib: mgid=ff12::2\n ALL;"), nullptr,
                            parse_mlid_assignment(saved));
  EXPECT_EQ(after.find(gid("ff12::2"))->mlid, 0xC002);
  EXPECT_EQ(after.find(gid("ff12:401b:ffff::ffff:ffff"))->mlid, 0xC000);
}

TEST(McGroups, PartitionsAbsentFromTheFabricHaveNoGroups) {
  McGroupTable t;
  auto g = groups("D=0x7fff,ipoib: ALL; P=2, ipoib: 0x1234;");
  std::vector<bool> present{true, false};
  t.apply_configuration(g, &present);
  EXPECT_EQ(t.size(), 1u);
}

TEST(McGroups, RunningOutOfMlidsIsReported) {
  McGroupTable t(0xC001);
  auto d = t.apply_configuration(groups("D=0x7fff,ipoib: mgid=ff12::1\n mgid=ff12::2\n ALL;"));
  EXPECT_EQ(test::count_id(d, kMlidsExhausted), 1);
  EXPECT_EQ(t.size(), 2u);
}

TEST(MlidAllocator, LowestFreeFirst) {
  MlidAllocator a;
  EXPECT_TRUE(a.reserve(0xC001));
  EXPECT_FALSE(a.reserve(0xC001));
  EXPECT_FALSE(a.reserve(0x0010));
  EXPECT_EQ(a.allocate(), 0xC000);
  EXPECT_EQ(a.allocate(), 0xC002);
  a.release(0xC000);
  EXPECT_EQ(a.allocate(), 0xC000);
}

}  // namespace
}  // namespace ibsm::partitions
