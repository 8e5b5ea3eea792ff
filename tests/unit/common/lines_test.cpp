// common/lines.hpp: the numbered lines file readers name in their errors.
#include "common/lines.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ibsm::text {
namespace {

std::vector<std::string> numbered(std::string_view text) {
  std::vector<std::string> out;
  for (const Line& l : Lines(text))
    out.push_back(std::to_string(l.number) + ":" + std::string(l.text));
  return out;
}

TEST(CommonLines, NumbersEachLineFromOne) {
  EXPECT_EQ(numbered("a\nb\n\nc"), (std::vector<std::string>{"1:a", "2:b", "3:", "4:c"}));
}

TEST(CommonLines, AFinalNewlineEndsTheLastLine) {
  EXPECT_EQ(numbered("a\n"), (std::vector<std::string>{"1:a"}));
  EXPECT_EQ(numbered("a\n\n"), (std::vector<std::string>{"1:a", "2:"}));
  EXPECT_TRUE(numbered("").empty());
  EXPECT_EQ(numbered("\n"), (std::vector<std::string>{"1:"}));
}

TEST(CommonLines, CarriageReturnsStayInTheLine) {
  EXPECT_EQ(numbered("a\r\nb"), (std::vector<std::string>{"1:a\r", "2:b"}));
}

}  // namespace
}  // namespace ibsm::text
