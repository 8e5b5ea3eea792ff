// Degraded links without a file, the PortInfo code conversions and the JSON rendering.
#include <gtest/gtest.h>

#include "cabling/link_rates_check.hpp"
#include "found_fabric.hpp"

namespace ibsm::cabling {
namespace {

using test::as_found;
using test::load;

TEST(CablingDegraded, OneXLinkIsTheOnlyOne) {
  const auto list = find_degraded_links(as_found(load("faulty.ibnetdiscover")));
  ASSERT_EQ(list.size(), 1u) << deviations_json(list);
  EXPECT_EQ(list[0].kind, DeviationKind::kWidthMismatch);
  EXPECT_EQ(list[0].local, (DeviationEnd{0x200000, 1, "spine1"}));
  EXPECT_EQ(list[0].remote, (DeviationEnd{0x200002, 3, "leaf1"}));
  EXPECT_EQ(list[0].expected, "4x");
  EXPECT_EQ(list[0].found, "1x");
}

TEST(CablingDegraded, CouldBeTwelveXAsIbsimShows) {
  // ibsim reports 1x-12x as supported: every 4x link "could be 12X" (iblinkinfo).
  auto found = as_found(load("healthy.ibnetdiscover"), kAllWidths);
  EXPECT_EQ(find_degraded_links(found).size(), 8u);
  // Judged on Enabled instead, 4x is the best.
  for (auto& n : found.nodes)
    for (auto& p : n.ports)
      p.width_enabled = width_bit(1) | width_bit(4);
  EXPECT_TRUE(find_degraded_links(found, RateReference::kEnabled).empty());
}

TEST(CablingDegraded, BestIsWhatBothEndsSupport) {
  auto found = as_found(load("healthy.ibnetdiscover"), kAllWidths);
  // Every host supports 4x at most: only the switch-to-switch links could be 12x.
  for (auto& n : found.nodes)
    if (n.type == NodeType::kCa)
      for (auto& p : n.ports)
        p.width_supported = width_bit(1) | width_bit(4);
  EXPECT_EQ(find_degraded_links(found).size(), 4u);
}

TEST(CablingDegraded, UnknownValuesAreNotJudged) {
  auto found = as_found(load("faulty.ibnetdiscover"));
  for (auto& n : found.nodes)
    for (auto& p : n.ports)
      p.width_supported = 0;
  EXPECT_TRUE(find_degraded_links(found).empty());
}

TEST(CablingLinkRate, IbaCodes) {
  EXPECT_EQ(width_from_iba(1), 1);
  EXPECT_EQ(width_from_iba(2), 4);
  EXPECT_EQ(width_from_iba(8), 12);
  EXPECT_EQ(width_from_iba(16), 2);
  EXPECT_EQ(width_from_iba(3), 0);
  EXPECT_EQ(widths_from_iba(0x1f), kAllWidths);
  EXPECT_EQ(best_width(widths_from_iba(0x3)), 4);
  EXPECT_EQ(speed_from_iba(4), Speed::kQdr);
  EXPECT_EQ(speed_from_iba(1, 2), Speed::kEdr);
  EXPECT_EQ(speed_from_iba(1, 0, 1), Speed::kXdr);
  EXPECT_EQ(best_speed(speeds_from_iba(7, 0x3)), Speed::kEdr);
  EXPECT_EQ(best_speed(speeds_from_iba(7, 0)), Speed::kQdr);
  EXPECT_EQ(best_speed(0), Speed::kUnknown);
}

TEST(CablingLinkRate, IbnetdiscoverTokens) {
  const auto r = parse_rate("4xEDR");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->width, 4);
  EXPECT_EQ(r->speed, Speed::kEdr);
  EXPECT_EQ(parse_rate("12xFDR10")->speed, Speed::kFdr10);
  EXPECT_FALSE(parse_rate("3xSDR"));
  EXPECT_FALSE(parse_rate("4xWHAT"));
  EXPECT_FALSE(parse_rate("lid"));
  EXPECT_TRUE(looks_like_rate("4xWHAT"));
  EXPECT_FALSE(looks_like_rate("x4"));
}

TEST(CablingJson, OneDeviation) {
  const std::vector<Deviation> list = {{DeviationKind::kWrongNode,
                                        {0x100004, 1, "h3"},
                                        {0x200002, 5, "leaf1"},
                                        "\"leaf2\"[1]",
                                        "\"leaf1\"[5]"}};
  EXPECT_EQ(deviations_json(list),
            R"([{"kind":"wrong_node","local_guid":"0x0000000000100004","local_port":1,)"
            R"("local_name":"h3","remote_guid":"0x0000000000200002","remote_port":5,)"
            R"("remote_name":"leaf1","expected":"\"leaf2\"[1]","found":"\"leaf1\"[5]"}])");
  EXPECT_EQ(deviations_json({}), "[]");
}

TEST(CablingJson, KindNames) {
  EXPECT_EQ(deviation_kind_name(DeviationKind::kMissingLink), "missing_link");
  EXPECT_EQ(deviation_kind_name(DeviationKind::kExtraLink), "extra_link");
  EXPECT_EQ(deviation_kind_name(DeviationKind::kWrongPort), "wrong_port");
  EXPECT_EQ(deviation_kind_name(DeviationKind::kWrongNode), "wrong_node");
  EXPECT_EQ(deviation_kind_name(DeviationKind::kMissingNode), "missing_node");
  EXPECT_EQ(deviation_kind_name(DeviationKind::kExtraNode), "extra_node");
  EXPECT_EQ(deviation_kind_name(DeviationKind::kWidthMismatch), "width_mismatch");
  EXPECT_EQ(deviation_kind_name(DeviationKind::kSpeedMismatch), "speed_mismatch");
}

}  // namespace
}  // namespace ibsm::cabling
