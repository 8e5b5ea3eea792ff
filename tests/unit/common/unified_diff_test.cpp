#include "common/unified_diff.hpp"

#include <gtest/gtest.h>

namespace ibsm::text {
namespace {

TEST(UnifiedDiff, EqualTextsGiveNothing) {
  EXPECT_EQ(unified_diff("a\n", "a\n", "x", "y"), "");
}

TEST(UnifiedDiff, OneChangedLineWithContext) {
  const std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n";
  const std::string b = "1\n2\n3\n4\nfive\n6\n7\n8\n";
  EXPECT_EQ(unified_diff(a, b, "a", "b"),
            "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
}

TEST(UnifiedDiff, AppendedLine) {
  EXPECT_EQ(unified_diff("x\n", "x\ny\n", "a", "b"), "--- a\n+++ b\n@@ -1 +1,2 @@\n x\n+y\n");
}

TEST(UnifiedDiff, FarApartChangesAreSeparateHunks) {
  std::string a, b;
  for (int i = 0; i < 20; ++i) {
    a += std::to_string(i) + "\n";
    b += (i == 1 || i == 18 ? "x" : std::to_string(i)) + "\n";
  }
  const std::string d = unified_diff(a, b, "a", "b");
  EXPECT_NE(d.find("@@ -1,5 +1,5 @@"), std::string::npos) << d;
  EXPECT_NE(d.find("@@ -16,5 +16,5 @@"), std::string::npos) << d;
}

}  // namespace
}  // namespace ibsm::text
