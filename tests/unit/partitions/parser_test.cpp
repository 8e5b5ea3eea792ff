#include "partitions/parser.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace ibsm::partitions {
namespace {

using test::count_id;
using test::first_with;

Statement only(std::string_view text) {
  ParseResult r = parse_partitions(text);
  EXPECT_TRUE(r.ok()) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
  EXPECT_EQ(r.config.statements.size(), 1u);
  return r.config.statements.empty() ? Statement{} : r.config.statements[0];
}

TEST(Parser, NameAndPKey) {
  auto st = only("Default=0x7fff: ALL;");
  EXPECT_EQ(st.name, "Default");
  EXPECT_EQ(st.pkey, 0x7fff);
}

TEST(Parser, PKeyKeepsLow15Bits) {
  EXPECT_EQ(only("P=0x8003: ALL;").pkey, 0x0003);
  EXPECT_EQ(only("P=0x18002: ALL;").pkey, 0x0002);  // 16-bit cast first
}

TEST(Parser, NameStartingWithDigitIsThePKey) {
  auto st = only("0x10: ALL;");
  EXPECT_EQ(st.name, "");
  EXPECT_EQ(st.pkey, 0x10);
}

TEST(Parser, OmittedPKeyMeansAutomatic) {
  EXPECT_EQ(only("Storage: ALL;").pkey, 0);
  EXPECT_EQ(only(": ALL;").name, "");
}

TEST(Parser, BadPKeyIsAnErrorAtTheValue) {
  auto r = parse_partitions("P=0xzz: ALL;");
  EXPECT_FALSE(r.ok());
  const Diagnostic* d = first_with(r.diagnostics, kBadPKey);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->column, 3);
  EXPECT_FALSE(parse_partitions("P=: ALL;").ok());
  EXPECT_FALSE(parse_partitions("1abc: ALL;").ok());
}

TEST(Parser, IpoibAndGroupFlags) {
  auto st = only(
      "P=2, ipoib, mtu=5, rate=7, sl=3, scope=2, scope=5, Q_Key=0x1234, "
      "TClass=4, FlowLabel=0x12: ALL;");
  EXPECT_TRUE(st.ipoib);
  EXPECT_EQ(st.flags.mtu, 5);
  EXPECT_EQ(st.flags.rate, 7);
  EXPECT_EQ(st.flags.sl, 3);
  EXPECT_EQ(st.flags.scope_mask, (1 << 2) | (1 << 5));
  EXPECT_EQ(st.flags.qkey, 0x1234u);
  EXPECT_EQ(st.flags.tclass, 4);
  EXPECT_EQ(st.flags.flow_label, 0x12u);
}

TEST(Parser, FlagDefaultsAreOpenSms) {
  auto st = only("P=2: ALL;");
  EXPECT_FALSE(st.ipoib);
  EXPECT_FALSE(st.indx0);
  EXPECT_EQ(st.flags.mtu, 4);
  EXPECT_EQ(st.flags.rate, 3);
  EXPECT_EQ(st.defmember, Membership::kLimited);
}

TEST(Parser, UnitsBeyondOpenSm) {
  auto st = only("P=2, mtu=4096, rate=100Gb: ALL;");
  EXPECT_EQ(st.flags.mtu, 5);
  EXPECT_EQ(st.flags.rate, 16);
  auto r = parse_partitions("P=2, mtu=4096, rate=2.5Gb: ALL;");
  EXPECT_EQ(count_id(r.diagnostics, kOpenSmReadsDifferently), 1);  // mtu only
}

TEST(Parser, KeywordsArePrefixes) {
  auto st = only("P=2, i, m=5, r=7, s=5, d=f, Q=0x10, T=3, F=9: A=f, S, N, ALL_S=b, ALL_C=l;");
  EXPECT_TRUE(st.ipoib);
  EXPECT_EQ(st.flags.mtu, 5);
  EXPECT_EQ(st.flags.rate, 7);
  EXPECT_EQ(st.flags.scope_mask, 1 << 5);  // "s" is scope, tried before sl
  EXPECT_EQ(st.defmember, Membership::kFull);
  EXPECT_EQ(st.flags.qkey, 0x10u);
  EXPECT_EQ(st.flags.tclass, 3);
  EXPECT_EQ(st.flags.flow_label, 9u);
  ASSERT_EQ(st.members.size(), 4u);  // N(ONE) adds nothing
  EXPECT_EQ(st.members[0].kind, MemberKind::kAll);
  EXPECT_EQ(st.members[0].membership, Membership::kFull);
  EXPECT_EQ(st.members[1].kind, MemberKind::kSelf);
  EXPECT_EQ(st.members[1].membership, std::nullopt);
  EXPECT_EQ(st.members[2].kind, MemberKind::kAllSwitches);
  EXPECT_EQ(st.members[2].membership, Membership::kBoth);
  EXPECT_EQ(st.members[3].kind, MemberKind::kAllCas);
  EXPECT_EQ(st.members[3].membership, Membership::kLimited);
}

TEST(Parser, KeywordsAreCaseSensitive) {
  auto r = parse_partitions("P=2, IPoIB: all;");
  EXPECT_EQ(count_id(r.diagnostics, kUnknownFlag), 1);
  EXPECT_EQ(count_id(r.diagnostics, kBadPortGuid), 1);
}

TEST(Parser, SlRequiresWholeNumberInRange) {
  auto r = parse_partitions("P=2, sl=16: ALL; Q=3, sl=2x: ALL;");
  EXPECT_EQ(count_id(r.diagnostics, kBadFlagValue), 2);
  EXPECT_EQ(r.config.statements[0].flags.sl, 0);
}

TEST(Parser, Indx0IsExactNotPrefix) {
  EXPECT_TRUE(only("P=2, indx0: ALL;").indx0);
  auto r = parse_partitions("P=2, indx: ALL;");
  EXPECT_EQ(count_id(r.diagnostics, kUnknownFlag), 1);
  EXPECT_FALSE(r.config.statements[0].indx0);
}

TEST(Parser, UnknownFlagsAreWarningsNotErrors) {
  auto r = parse_partitions("P=2, fast: ALL;");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(count_id(r.diagnostics, kUnknownFlag), 1);
}

TEST(Parser, MembershipWords) {
  auto st = only("P=2, defmember=full: 0x10, 0x11=limited, 0x12=both, 0x13=l;");
  ASSERT_EQ(st.members.size(), 4u);
  EXPECT_EQ(st.members[0].guid, 0x10u);
  EXPECT_FALSE(st.members[0].membership);
  EXPECT_EQ(st.members[1].membership, Membership::kLimited);
  EXPECT_EQ(st.members[2].membership, Membership::kBoth);
  EXPECT_EQ(st.members[3].membership, Membership::kLimited);
}

TEST(Parser, UnknownMembershipMeansLimitedWithWarning) {
  auto r = parse_partitions("P=2: 0x10=fulll;");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(count_id(r.diagnostics, kUnknownMembership), 1);
  EXPECT_EQ(r.config.statements[0].members[0].membership, Membership::kLimited);
}

TEST(Parser, GuidsInAnyCBase) {
  auto st = only("P=2: 0x0002c90300a1b2c3, 12345, 017;");
  EXPECT_EQ(st.members[0].guid, 0x0002c90300a1b2c3ull);
  EXPECT_EQ(st.members[1].guid, 12345u);
  EXPECT_EQ(st.members[2].guid, 15u);
}

TEST(Parser, BadGuidsAreErrors) {
  for (const char* text : {"P=2: 0;", "P=2: 0x12 34;", "P=2: xyz;", "P=2: 0x10=full junk;"}) {
    auto r = parse_partitions(text);
    if (std::string(text).find("junk") != std::string::npos) {
      // the junk is part of the membership word, not the GUID
      EXPECT_TRUE(r.ok()) << text;
      continue;
    }
    EXPECT_FALSE(r.ok()) << text;
    EXPECT_EQ(count_id(r.diagnostics, kBadPortGuid), 1) << text;
  }
}

TEST(Parser, CrlfFilesGetAHint) {
  auto r = parse_partitions("P=2:\r\n ALL\r\n;\r\n");
  ASSERT_FALSE(r.ok());
  const Diagnostic* d = first_with(r.diagnostics, kBadPortGuid);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("Windows"), std::string::npos);
}

TEST(Parser, EmptyMemberListAndNone) {
  EXPECT_TRUE(only("P=2: ;").members.empty());
  EXPECT_TRUE(only("P=2: NONE;").members.empty());
  EXPECT_TRUE(only("P=2:\n;").members.empty());
}

TEST(Parser, MgidLinesWithFlagsAndInheritanceMarkers) {
  auto st = only(
      "D=0x7fff, ipoib:\n"
      "  mgid=ff12:401b::0707, sl=1 # IPv4 group\n"
      "  mgid=ff12::1, sl=1, Q_Key=0xDEADBEEF, rate=3, mtu=2, scope=5\n"
      "  ALL=full;\n");
  ASSERT_EQ(st.groups.size(), 2u);
  EXPECT_EQ(format_gid(st.groups[0].mgid), "ff12:401b::707");
  EXPECT_EQ(st.groups[0].overrides.sl, 1);
  EXPECT_FALSE(st.groups[0].overrides.mtu);
  EXPECT_EQ(st.groups[1].overrides.qkey, 0xDEADBEEFu);
  EXPECT_EQ(st.groups[1].overrides.mtu, 2);
  EXPECT_EQ(st.groups[1].overrides.scope_mask, 1 << 5);
  ASSERT_EQ(st.members.size(), 1u);
}

TEST(Parser, BadMgidIsSkippedWithWarning) {
  auto r = parse_partitions("D=0x7fff: mgid=fe80::1\n mgid=nonsense\n ALL;");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(count_id(r.diagnostics, kBadMgid), 2);
  EXPECT_TRUE(r.config.statements[0].groups.empty());
}

TEST(Parser, MembersAfterMgidOnTheSameLineAreIgnoredFlags) {
  auto r = parse_partitions("D=0x7fff: mgid=ff12::1, ALL=full;");
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.config.statements[0].members.empty());
  const Diagnostic* d = first_with(r.diagnostics, kUnknownFlag);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("cannot follow"), std::string::npos);
}

TEST(Parser, ReportsEveryErrorSortedByPosition) {
  auto r = parse_partitions("A=1: xyz;\nno colon;\nB=zz: ALL;\n");
  ASSERT_EQ(r.diagnostics.size(), 3u);
  EXPECT_EQ(r.diagnostics[0].id, kBadPortGuid);
  EXPECT_EQ(r.diagnostics[1].id, kMissingColon);
  EXPECT_EQ(r.diagnostics[2].id, kBadPKey);
  EXPECT_EQ(format_diagnostic(r.diagnostics[1], "p.conf").rfind("p.conf:2:1: error IBSM-4001", 0),
            0u);
}

TEST(Parser, NeverThrowsOnBinaryJunk) {
  std::string junk;
  for (int i = 0; i < 512; ++i)
    junk += static_cast<char>((i * 37) & 0xff);
  EXPECT_NO_THROW((void)parse_partitions(junk));
}

}  // namespace
}  // namespace ibsm::partitions
