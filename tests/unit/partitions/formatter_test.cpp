#include "partitions/formatter.hpp"

#include <gtest/gtest.h>

#include "partitions/parser.hpp"
#include "test_util.hpp"

namespace ibsm::partitions {
namespace {

const char* kFiles[] = {"redhat-two-statements.conf",
                        "redhat-one-line.conf",
                        "opensm-doc-examples.conf",
                        "opensm-man-mgid.conf",
                        "legacy.conf",
                        "ibsim-c4.conf",
                        "ibsim-c6.conf"};

TEST(Formatter, FormatKeepsTheModelAndIsIdempotent) {
  for (const char* name : kFiles) {
    const std::string text = test::read_data(name);
    const auto tree = parse_syntax(text);
    ASSERT_FALSE(has_errors(tree.diagnostics)) << name;
    const std::string once = format_file(tree);
    EXPECT_EQ(parse_partitions(once).config, parse_partitions(text).config) << name;
    EXPECT_EQ(format_file(parse_syntax(once)), once) << name;
  }
}

TEST(Formatter, NormalisesBlanksAndSpellsOutKeywords) {
  const auto t = parse_syntax("P = 0x2 ,i,m=5 ,  d=f :A=f,S ,  0x10 = l ; # end\n  # note\n");
  EXPECT_EQ(format_file(t),
            "P=0x2, ipoib, mtu=5, defmember=full: ALL=full, SELF, 0x10=limited; # end\n# note\n");
}

TEST(Formatter, ContinuationLinesAndComments) {
  const auto t =
      parse_syntax("D=0x7fff,ipoib:\n\tmgid=ff12::1,sl=1   # grp\n  # c\n ALL ,\n SELF\n;\n");
  EXPECT_EQ(format_file(t),
            "D=0x7fff, ipoib:\n        mgid=ff12::1, sl=1 # grp\n        # c\n        ALL,\n"
            "        SELF\n        ;\n");
}

TEST(Formatter, ModelTextRoundTrips) {
  for (const char* name : kFiles) {
    const Config c = parse_partitions(test::read_data(name)).config;
    const std::string text = config_text(c);
    auto again = parse_partitions(text);
    EXPECT_TRUE(again.ok()) << name << "\n" << text;
    EXPECT_EQ(again.config, c) << name << "\n" << text;
  }
}

}  // namespace
}  // namespace ibsm::partitions
