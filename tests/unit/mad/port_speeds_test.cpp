// PortInfo speed fields: which per-lane speed a port runs (IBA 14.2.5.6, HDR/NDR of
// IBA 1.4/1.5, XDR of 1.7) and how contradictory answers are cleaned.
#include "mad/attr/port_speeds.hpp"

#include <gtest/gtest.h>

namespace ibsm::mad {
namespace {

PortInfo up_port() {
  PortInfo p;
  p.port_state = PortState::kActive;
  p.phys_state = PhysState::kLinkUp;
  p.link_width_active = 2;  // 4x
  p.link_speed_supported = 7;
  p.link_speed_enabled = 7;
  p.link_speed_active = 4;  // QDR, as a port with an extended speed active shows
  return p;
}

PortInfo ndr_port() {
  PortInfo p = up_port();
  p.capability_mask = kCapIsExtendedSpeedsSupported | kCapHasCapabilityMask2;
  p.capability_mask2 =
      kCap2IsLinkWidth2xSupported | kCap2IsLinkSpeedHdrSupported | kCap2IsLinkSpeedNdrSupported;
  p.link_speed_ext_supported = kSpeedExtEdr | kSpeedExtHdr | kSpeedExtNdr;
  p.link_speed_ext_enabled = p.link_speed_ext_supported;
  p.link_speed_ext_active = kSpeedExtNdr;
  return p;
}

PortInfo xdr_port() {
  PortInfo p = ndr_port();
  p.capability_mask2 |= kCap2IsExtendedSpeeds2Supported | kCap2IsLinkSpeedXdrSupported;
  p.link_speed_ext_supported2 = kSpeedExt2Xdr;
  p.link_speed_ext_enabled2 = kSpeedExt2Xdr;
  p.link_speed_ext_active2 = kSpeedExt2Xdr;
  p.link_speed_ext_active = 0;
  return p;
}

TEST(PortSpeeds, ActiveLaneSpeedPrefersXdrThenExtendedThenClassic) {
  EXPECT_EQ(active_lane_speed(up_port(), up_port()), LaneSpeed::kQdr);
  EXPECT_EQ(active_lane_speed(ndr_port(), ndr_port()), LaneSpeed::kNdr);
  EXPECT_EQ(active_lane_speed(xdr_port(), xdr_port()), LaneSpeed::kXdr);
  // Extended fields of a port that does not advertise them are not read.
  PortInfo caps = up_port();
  EXPECT_EQ(active_lane_speed(ndr_port(), caps), LaneSpeed::kQdr);
  EXPECT_EQ(active_lane_speed(xdr_port(), ndr_port()), LaneSpeed::kQdr);
  EXPECT_STREQ(lane_speed_gbps(LaneSpeed::kXdr), "200");
  EXPECT_STREQ(lane_speed_name(LaneSpeed::kNdr), "NDR");
}

TEST(PortSpeeds, LanesOfEveryWidthCode) {
  EXPECT_EQ(active_lanes(1), 1u);
  EXPECT_EQ(active_lanes(16), 2u);
  EXPECT_EQ(active_lanes(2), 4u);
  EXPECT_EQ(active_lanes(4), 8u);
  EXPECT_EQ(active_lanes(8), 12u);
  EXPECT_EQ(active_lanes(3), 0u);
}

TEST(PortSpeeds, ExtendedSpeedsGetWhereAdvertised) {
  EXPECT_FALSE(wants_extended_speeds_get(up_port()));
  EXPECT_TRUE(wants_extended_speeds_get(ndr_port()));
  PortInfo only2 = up_port();  // XDR fields without the older extended ones
  only2.capability_mask = kCapHasCapabilityMask2;
  only2.capability_mask2 = kCap2IsExtendedSpeeds2Supported;
  EXPECT_TRUE(wants_extended_speeds_get(only2));
  only2.capability_mask = 0;  // CapabilityMask2 not valid without its bit
  EXPECT_FALSE(wants_extended_speeds_get(only2));
  EXPECT_TRUE(has_width_2x(ndr_port()));
}

TEST(PortSpeeds, ConsistentAnswersPassUnchanged) {
  for (const PortInfo& p : {up_port(), ndr_port(), xdr_port()}) {
    const SpeedFieldCheck c = check_speed_fields(p, p);
    EXPECT_EQ(c.problems, "");
    EXPECT_EQ(c.cleaned.link_speed_ext_active, p.link_speed_ext_active);
    EXPECT_EQ(c.cleaned.link_speed_ext_active2, p.link_speed_ext_active2);
  }
}

// What a device shows an SM that did not set SMSupportsExtendedSpeeds (OpenSM issue 38).
TEST(PortSpeeds, AdvertisedButZeroFallsBackToClassicSpeeds) {
  PortInfo p = ndr_port();
  p.link_speed_ext_supported = 0;
  const SpeedFieldCheck c = check_speed_fields(p, p);
  EXPECT_NE(c.problems.find("IsExtendedSpeedsSupported but LinkSpeedExtSupported 0"),
            std::string::npos)
      << c.problems;
  EXPECT_EQ(c.cleaned.link_speed_ext_active, 0);
  EXPECT_EQ(c.cleaned.link_speed_ext_enabled, 0);
  EXPECT_EQ(active_lane_speed(c.cleaned, p), LaneSpeed::kQdr);
}

TEST(PortSpeeds, UnknownActiveCodesAreDropped) {
  PortInfo p = ndr_port();
  p.link_speed_ext_active = 3;  // two speeds at once
  SpeedFieldCheck c = check_speed_fields(p, p);
  EXPECT_NE(c.problems.find("LinkSpeedExtActive 3 with LinkSpeedExtSupported 14"),
            std::string::npos)
      << c.problems;
  EXPECT_EQ(active_lane_speed(c.cleaned, p), LaneSpeed::kQdr);

  p = ndr_port();
  p.link_speed_ext_active = kSpeedExtFdr;  // not among the supported ones
  c = check_speed_fields(p, p);
  EXPECT_NE(c.problems.find("LinkSpeedExtActive 1"), std::string::npos) << c.problems;

  PortInfo x = xdr_port();
  x.link_speed_ext_supported2 = 3;  // bit 1 is undefined
  x.link_speed_ext_active2 = 2;
  c = check_speed_fields(x, x);
  EXPECT_NE(c.problems.find("LinkSpeedExtSupported2 3 has undefined bits"), std::string::npos);
  EXPECT_NE(c.problems.find("LinkSpeedExtActive2 2"), std::string::npos) << c.problems;
  EXPECT_EQ(c.cleaned.link_speed_ext_supported2, kSpeedExt2Xdr);
  EXPECT_EQ(c.cleaned.link_speed_ext_active2, 0);

  PortInfo q = up_port();
  q.link_speed_active = 3;
  c = check_speed_fields(q, q);
  EXPECT_NE(c.problems.find("LinkSpeedActive 3 names no speed"), std::string::npos);
}

TEST(PortSpeeds, ActiveFieldsOfADownPortAreNotJudged) {
  PortInfo p = ndr_port();
  p.port_state = PortState::kDown;
  p.link_speed_ext_active = 3;
  p.link_speed_active = 0;
  EXPECT_EQ(check_speed_fields(p, p).problems, "");
}

// The decoder of readers that keep only LinkSpeedActive and LinkSpeedExtActive (the
// PerfMgr's counter rows, its infiniband_speed metric).
TEST(PortSpeeds, TheTwoActiveFieldsAloneNameALaneSpeed) {
  EXPECT_EQ(lane_speed_of(1, 0), LaneSpeed::kSdr);
  EXPECT_EQ(lane_speed_of(4, 0), LaneSpeed::kQdr);
  EXPECT_EQ(lane_speed_of(4, kSpeedExtEdr), LaneSpeed::kEdr);
  EXPECT_EQ(lane_speed_of(1, kSpeedExtNdr), LaneSpeed::kNdr);
  EXPECT_EQ(lane_speed_of(2, 3), LaneSpeed::kDdr);  // no single extended bit: classic
  EXPECT_EQ(lane_speed_of(3, 0), LaneSpeed::kUnknown);
  EXPECT_EQ(lane_signalling_gbps(lane_speed_of(2, 0)), 5.0);
  EXPECT_EQ(lane_signalling_gbps(lane_speed_of(0, kSpeedExtFdr)), 14.0625);
  EXPECT_EQ(lane_signalling_gbps(lane_speed_of(0, kSpeedExtHdr)), 53.125);
  EXPECT_EQ(lane_signalling_gbps(LaneSpeed::kXdr), 212.5);
  EXPECT_EQ(lane_signalling_gbps(LaneSpeed::kUnknown), 0.0);
}

}  // namespace
}  // namespace ibsm::mad
