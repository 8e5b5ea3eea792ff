// What PortInfo's link width and lane speed codes mean (IBA 14.2.5.6, tables 155/156,
// with HDR/NDR of IBA 1.4/1.5 and XDR of 1.7): the one decoding of these codes, which
// mad/attr/port_speeds (the SM, the PerfMgr, ibsm-ctl) and cabling/ share.
#pragma once

#include <cstdint>

namespace ibsm::wire {

// LinkWidthActive, and each bit of LinkWidthSupported/Enabled: 1 1x, 2 4x, 4 8x,
// 8 12x, 16 2x. The lane count, or 0 for any other value.
constexpr unsigned lanes_of_width_code(std::uint8_t code) {
  switch (code) {
    case 1:
      return 1;
    case 2:
      return 4;
    case 4:
      return 8;
    case 8:
      return 12;
    case 16:
      return 2;
    default:
      return 0;
  }
}

// LinkSpeedExt* bits (FDR, EDR, HDR, NDR), and LinkSpeedExt*2's (XDR).
inline constexpr std::uint8_t kSpeedExtFdr = 1, kSpeedExtEdr = 2, kSpeedExtHdr = 4,
                              kSpeedExtNdr = 8;
inline constexpr std::uint8_t kSpeedExt2Xdr = 1;

// One lane's signalling as the IBA codes name it, slowest first (FDR10, a vendor speed,
// is not among them: sm/links/fdr10.hpp).
enum class LaneSpeed : std::uint8_t { kUnknown, kSdr, kDdr, kQdr, kFdr, kEdr, kHdr, kNdr, kXdr };

// LinkSpeedActive, and each bit of LinkSpeedSupported/Enabled: 1 SDR, 2 DDR, 4 QDR.
constexpr LaneSpeed classic_lane_speed(std::uint8_t code) {
  switch (code) {
    case 1:
      return LaneSpeed::kSdr;
    case 2:
      return LaneSpeed::kDdr;
    case 4:
      return LaneSpeed::kQdr;
    default:
      return LaneSpeed::kUnknown;
  }
}

// LinkSpeedExtActive, and each bit of LinkSpeedExtSupported/Enabled.
constexpr LaneSpeed extended_lane_speed(std::uint8_t code) {
  switch (code) {
    case kSpeedExtFdr:
      return LaneSpeed::kFdr;
    case kSpeedExtEdr:
      return LaneSpeed::kEdr;
    case kSpeedExtHdr:
      return LaneSpeed::kHdr;
    case kSpeedExtNdr:
      return LaneSpeed::kNdr;
    default:
      return LaneSpeed::kUnknown;
  }
}

// LinkSpeedExtActive2, and each bit of LinkSpeedExtSupported2/Enabled2.
constexpr LaneSpeed extended2_lane_speed(std::uint8_t code) {
  return code == kSpeedExt2Xdr ? LaneSpeed::kXdr : LaneSpeed::kUnknown;
}

}  // namespace ibsm::wire
