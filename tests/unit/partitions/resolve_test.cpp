#include "partitions/resolve.hpp"

#include <gtest/gtest.h>

#include "partitions/parser.hpp"
#include "test_util.hpp"

namespace ibsm::partitions {
namespace {

ResolvedConfig resolved(std::string_view text, ResolveOptions o = {}) {
  auto p = parse_partitions(text);
  EXPECT_TRUE(p.ok());
  return resolve(p.config, o);
}

TEST(Resolve, AutomaticPKeysAreLowestUnusedFromOne) {
  auto r = resolved("A: ALL; B: ALL; C=0x0003: ALL; D: ALL;");
  ASSERT_EQ(r.partitions.size(), 5u);
  EXPECT_EQ(r.partitions[1].pkey, 1);
  EXPECT_EQ(r.partitions[2].pkey, 2);
  EXPECT_EQ(r.partitions[3].pkey, 3);
  EXPECT_EQ(r.partitions[4].pkey, 4);
  EXPECT_TRUE(r.partitions[1].auto_pkey);
}

TEST(Resolve, SameNameWithoutPKeyReusesThePartition) {
  auto r = resolved("A: 0x10; A: 0x11; Default: 0x12;");
  ASSERT_EQ(r.partitions.size(), 2u);       // Default + A
  EXPECT_EQ(r.rules.back().partition, 0u);  // "Default" without P_Key is 0x7fff
}

TEST(Resolve, SamePKeyMergesAndKeepsFirstName) {
  auto r = resolved("First=0x10: 0x1; Second=0x10: 0x2;");
  ASSERT_EQ(r.partitions.size(), 2u);
  EXPECT_EQ(r.partitions[1].name, "First");
  EXPECT_EQ(r.rules.size(), 4u);
}

TEST(Resolve, AutoPKeyNamedExplicitlyLaterMergesWithWarning) {
  auto r = resolved("A: 0x1; B=0x0001: 0x2;");
  ASSERT_EQ(r.partitions.size(), 2u);
  EXPECT_EQ(test::count_id(r.diagnostics, kAutoPKeyTakenLater), 1);
}

TEST(Resolve, PreviousAutoPKeysStayStable) {
  ResolveOptions o;
  o.previous_auto_pkeys = {{"B", 1}};
  auto r = resolved("A: ALL; B: ALL;", o);
  EXPECT_EQ(r.find(1)->name, "B");
  EXPECT_EQ(r.find(2)->name, "A");
}

TEST(Resolve, UnnamedPartitionIsNamedAfterItsPKey) {
  auto r = resolved("=0x0123: ALL;");
  EXPECT_EQ(r.partitions[1].name, "0123");
}

TEST(Resolve, SlIsForcedToZeroWithoutQosButNotOnMgidLines) {
  auto r = resolved("D=0x7fff, ipoib, sl=3: mgid=ff12:401b::1\n mgid=ff12::2, sl=1\n ALL;");
  ASSERT_EQ(r.groups.size(), 3u);
  EXPECT_EQ(r.groups[0].sl, 0);
  EXPECT_EQ(r.groups[1].sl, 0);  // inherited after the override
  EXPECT_EQ(r.groups[2].sl, 1);  // written on the line
  ResolveOptions qos;
  qos.qos = true;
  auto q = resolved("D=0x7fff, ipoib, sl=3: ALL;", qos);
  EXPECT_EQ(q.groups[0].sl, 3);
  EXPECT_EQ(q.partitions[0].sl, 3);
}

TEST(Resolve, BroadcastGroupPerScope) {
  auto r = resolved("D=0x7fff, ipoib, scope=2, scope=5, Q_Key=0x99: ALL;");
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(format_gid(r.groups[0].mgid), "ff12:401b:ffff::ffff:ffff");
  EXPECT_EQ(format_gid(r.groups[1].mgid), "ff15:401b:ffff::ffff:ffff");
  EXPECT_EQ(r.groups[1].scope, 5);
  EXPECT_EQ(r.groups[0].qkey, 0x99u);
  EXPECT_TRUE(r.groups[0].broadcast);
  EXPECT_EQ(r.groups[0].pkey, 0xffff);
}

TEST(Resolve, IpGroupsGetThePKeyBitsAndDefaultQKey) {
  auto r = resolved("P=0x0002, ipoib: mgid=ff12:401b::1\n mgid=ff12:601b:8002::2\n ALL;");
  ASSERT_EQ(r.groups.size(), 3u);
  EXPECT_EQ(format_gid(r.groups[1].mgid), "ff12:401b:8002::1");
  EXPECT_EQ(r.groups[1].qkey, 0x0b1bu);
  EXPECT_EQ(format_gid(r.groups[2].mgid), "ff12:601b:8002::2");
}

TEST(Resolve, IpGroupWithForeignPKeyIsSkipped) {
  auto r = resolved("X=0x0010, ipoib: mgid=ff12:401b:1234::9\n ALL;");
  EXPECT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(test::count_id(r.diagnostics, kIpGroupPKeyMismatch), 1);
}

TEST(Resolve, IpGroupMustMatchPartitionRateAndMtu) {
  auto r =
      resolved("P=2, ipoib, rate=7: mgid=ff12:401b::2, rate=3\n mgid=ff12:401b::3, mtu=4\n ALL;");
  EXPECT_EQ(r.groups.size(), 2u);  // broadcast + ::3 (mtu 4 is the partition's)
  EXPECT_EQ(test::count_id(r.diagnostics, kIpGroupRateMtuMismatch), 1);
}

TEST(Resolve, IpGroupNeedsTheBroadcastGroup) {
  // observed on ibsim: ERR 1B1B "Broadcast group ff12:401b:8010::ffff:ffff not found"
  auto r = resolved("X=0x0010: mgid=ff12:601b::1, sl=3\n mgid=ff15::5\n ALL;");
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(format_gid(r.groups[0].mgid), "ff12::5");  // scope nibble set to 2
  EXPECT_EQ(test::count_id(r.diagnostics, kIpGroupWithoutBroadcast), 1);
}

TEST(Resolve, NonIpGroupInheritsButNotTClass) {
  auto r =
      resolved("X=0x0010, Q_Key=0x1234, TClass=7, FlowLabel=0x123, mtu=5: mgid=ff15::5\n ALL;");
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].qkey, 0x1234u);
  EXPECT_EQ(r.groups[0].tclass, 0);
  EXPECT_EQ(r.groups[0].flow_label, 0x123u);
  EXPECT_EQ(r.groups[0].mtu, 5);
  EXPECT_EQ(r.groups[0].pkey, 0x8010);
}

TEST(Resolve, DuplicateMgidFirstDefinitionWins) {
  auto r = resolved(
      "D=0x7fff, ipoib: mgid=ff12:401b::ffff:ffff, sl=4\n mgid=ff12::7\n mgid=ff12::7, mtu=1\n "
      "ALL;");
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].sl, 0);
  EXPECT_EQ(r.groups[1].mtu, 4);
}

}  // namespace
}  // namespace ibsm::partitions
