#include "partitions/units.hpp"

#include <gtest/gtest.h>

namespace ibsm::partitions {
namespace {

TEST(Units, MtuEnumsKeepTheirMeaning) {
  for (int e = 1; e <= 5; ++e) {
    auto m = parse_mtu(std::to_string(e));
    ASSERT_TRUE(m) << e;
    EXPECT_EQ(m->value, e);
    EXPECT_TRUE(m->opensm_reads_same);
  }
}

TEST(Units, MtuInBytes) {
  EXPECT_EQ(parse_mtu("4096")->value, 5);
  EXPECT_EQ(parse_mtu("256")->value, 1);
  EXPECT_EQ(parse_mtu("2048")->value, 4);
  EXPECT_FALSE(parse_mtu("4096")->opensm_reads_same);
  EXPECT_FALSE(parse_mtu("0"));
  EXPECT_FALSE(parse_mtu("6"));
  EXPECT_FALSE(parse_mtu("1500"));
  EXPECT_FALSE(parse_mtu("abc"));
}

TEST(Units, RateEnumsKeepTheirMeaning) {
  EXPECT_EQ(parse_rate("3")->value, 3);    // 10 Gb/s
  EXPECT_EQ(parse_rate("10")->value, 10);  // 120 Gb/s, not 10 Gb/s
  EXPECT_EQ(parse_rate("22")->value, 22);
  EXPECT_FALSE(parse_rate("1"));
  EXPECT_FALSE(parse_rate("25"));
}

TEST(Units, RateWithUnits) {
  EXPECT_EQ(parse_rate("10Gb")->value, 3);
  EXPECT_EQ(parse_rate("2.5Gb")->value, 2);
  EXPECT_EQ(parse_rate("100Gb")->value, 16);
  EXPECT_EQ(parse_rate("40 Gb/s")->value, 7);
  EXPECT_EQ(parse_rate("200Gbps")->value, 17);
  EXPECT_EQ(parse_rate("600G")->value, 22);
  EXPECT_FALSE(parse_rate("33Gb"));
  EXPECT_FALSE(parse_rate("Gb"));
  // OpenSM reads "2.5Gb" as 2 = 2.5 Gb/s: same; "10Gb" as enum 10 = 120 Gb/s: not.
  EXPECT_TRUE(parse_rate("2.5Gb")->opensm_reads_same);
  EXPECT_FALSE(parse_rate("10Gb")->opensm_reads_same);
}

TEST(Units, HumanText) {
  EXPECT_EQ(mtu_bytes(5), 4096u);
  EXPECT_EQ(rate_text(2), "2.5 Gb/s");
  EXPECT_EQ(rate_text(16), "100 Gb/s");
  EXPECT_EQ(rate_unit_form(7), "40Gb");
  EXPECT_EQ(mtu_unit_form(4), "2048");
}

}  // namespace
}  // namespace ibsm::partitions
