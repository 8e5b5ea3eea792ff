#include "partitions/syntax.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace ibsm::partitions {
namespace {

using test::count_id;
using test::first_with;

TEST(Syntax, StatementSpansLinesAndSharesLines) {
  const auto t = parse_syntax("A=1: ALL; B=2:\n  SELF,\n  0x10=full; # c\n");
  ASSERT_EQ(t.statements.size(), 2u);
  EXPECT_EQ(t.slice(t.statements[0].span), "A=1: ALL;");
  EXPECT_EQ(t.slice(t.statements[1].definition.key), "B");
  ASSERT_EQ(t.statements[1].body.size(), 2u);
  EXPECT_EQ(t.slice(t.statements[1].body[1].member.key), "0x10");
  EXPECT_EQ(t.slice(t.statements[1].body[1].member.value), "full");
  EXPECT_TRUE(t.diagnostics.empty());
}

TEST(Syntax, CommentsEndAtLineEnd) {
  const auto t = parse_syntax("# A=1: ALL;\nB=2: ALL; # C=3: ALL;\n");
  ASSERT_EQ(t.statements.size(), 1u);
  EXPECT_EQ(t.slice(t.statements[0].definition.key), "B");
}

TEST(Syntax, MgidTakesTheRestOfTheLine) {
  const auto t = parse_syntax("D=0x7fff,ipoib:\n mgid=ff12::1, sl=1, ALL=full\n SELF;\n");
  ASSERT_EQ(t.statements.size(), 1u);
  const auto& body = t.statements[0].body;
  ASSERT_EQ(body.size(), 2u);
  EXPECT_EQ(body[0].kind, BodyItem::Kind::kMgid);
  ASSERT_EQ(body[0].mgid.flags.size(), 2u);
  EXPECT_EQ(t.slice(body[0].mgid.flags[1].key), "ALL");
  EXPECT_EQ(body[1].kind, BodyItem::Kind::kMember);
}

TEST(Syntax, MissingColonIsAnErrorWithPosition) {
  const auto t = parse_syntax("A=1: ALL;\n  this line has no colon;\nB=2: ALL;\n");
  const Diagnostic* d = first_with(t.diagnostics, kMissingColon);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 2);
  EXPECT_EQ(d->column, 3);
  EXPECT_NE(d->expected.find("':'"), std::string::npos);
  // recovery: the statement after the next ';' is still read
  ASSERT_EQ(t.statements.size(), 2u);
  EXPECT_EQ(t.slice(t.statements[1].definition.key), "B");
}

TEST(Syntax, DefinitionAndColonMustShareALine) {
  const auto t = parse_syntax("A=1\n: ALL;\n");
  EXPECT_EQ(count_id(t.diagnostics, kMissingColon), 1);
}

TEST(Syntax, StraySemicolonIsAnError) {
  const auto t = parse_syntax(";\nA=1: ALL;\n");
  const Diagnostic* d = first_with(t.diagnostics, kEmptyStatement);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 1);
  EXPECT_EQ(t.statements.size(), 1u);
}

TEST(Syntax, UnterminatedLastStatementIsAWarning) {
  const auto t = parse_syntax("A=1: ALL");
  ASSERT_EQ(t.statements.size(), 1u);
  const Diagnostic* d = first_with(t.diagnostics, kUnterminatedStatement);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kWarning);
}

TEST(Syntax, LongLinesAreFlagged) {
  std::string text = "A=1: ALL";
  for (int i = 0; i < 300; ++i)
    text += ", 0x0002c90300a1b2c3";
  text += ";\n";
  const auto t = parse_syntax(text);
  EXPECT_EQ(count_id(t.diagnostics, kLongLine), 1);
  EXPECT_FALSE(has_errors(t.diagnostics));
}

TEST(Syntax, LoneSemicolonAfterMgidLinesWarns) {
  const auto t = parse_syntax("D=0x7fff, ipoib:\n  mgid=ff12:401b::1\n  ;\n");
  EXPECT_EQ(count_id(t.diagnostics, kOpenSmReadsDifferently), 1);
  EXPECT_EQ(t.statements.size(), 1u);
}

TEST(Syntax, PositionsAreOneBased) {
  const auto t = parse_syntax("ab\ncd\n");
  EXPECT_EQ(t.position(0), std::make_pair(1, 1));
  EXPECT_EQ(t.position(4), std::make_pair(2, 2));
}

}  // namespace
}  // namespace ibsm::partitions
