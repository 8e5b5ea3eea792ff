// wire/link_codes.hpp: the IBA 14.2.5.6 codes (tables 155/156) as the SM, the PerfMgr,
// ibsm-ctl (through mad/attr/port_speeds) and the cabling check all read them.
#include "wire/link_codes.hpp"

#include <gtest/gtest.h>

#include "cabling/link_rate.hpp"
#include "mad/attr/port_speeds.hpp"

namespace ibsm::wire {
namespace {

TEST(WireLinkCodes, WidthCodesNameTheirLaneCounts) {
  EXPECT_EQ(lanes_of_width_code(1), 1u);
  EXPECT_EQ(lanes_of_width_code(2), 4u);
  EXPECT_EQ(lanes_of_width_code(4), 8u);
  EXPECT_EQ(lanes_of_width_code(8), 12u);
  EXPECT_EQ(lanes_of_width_code(16), 2u);
  for (unsigned code : {0u, 3u, 5u, 32u, 255u})
    EXPECT_EQ(lanes_of_width_code(static_cast<std::uint8_t>(code)), 0u) << code;
}

TEST(WireLinkCodes, SpeedCodesOfTheThreeFields) {
  EXPECT_EQ(classic_lane_speed(1), LaneSpeed::kSdr);
  EXPECT_EQ(classic_lane_speed(4), LaneSpeed::kQdr);
  EXPECT_EQ(classic_lane_speed(3), LaneSpeed::kUnknown);  // a mask, not one speed
  EXPECT_EQ(extended_lane_speed(kSpeedExtEdr), LaneSpeed::kEdr);
  EXPECT_EQ(extended_lane_speed(kSpeedExtNdr), LaneSpeed::kNdr);
  EXPECT_EQ(extended_lane_speed(16), LaneSpeed::kUnknown);
  EXPECT_EQ(extended2_lane_speed(kSpeedExt2Xdr), LaneSpeed::kXdr);
  EXPECT_EQ(extended2_lane_speed(2), LaneSpeed::kUnknown);
}

// The two readers agree because they are one decoding: every width code and every
// single speed code gives the same answer through mad/ and through cabling/.
TEST(WireLinkCodes, MadAndCablingReadTheSameCodes) {
  for (unsigned code = 0; code < 256; ++code) {
    const auto c = static_cast<std::uint8_t>(code);
    EXPECT_EQ(mad::active_lanes(c), cabling::width_from_iba(c)) << code;
  }
  for (unsigned bit = 0; bit < 4; ++bit) {
    const auto c = static_cast<std::uint8_t>(1u << bit);
    EXPECT_EQ(mad::lane_speed_name(mad::extended_lane_speed(c)),
              std::string(cabling::speed_name(cabling::speed_from_iba(0, c))))
        << bit;
  }
}

}  // namespace
}  // namespace ibsm::wire
