// What PortInfo's speed and width fields mean (IBA 14.2.5.6, tables 155/156, with the
// HDR/NDR additions of IBA 1.4/1.5 and XDR of 1.7), and which answers contradict
// themselves, as pure functions.
//
// Per-lane speeds: LinkSpeed* (2.5, 5, 10 Gb/s), LinkSpeedExt* (bit 0 FDR 14.0625,
// 1 EDR 25.78125, 2 HDR 53.125, 3 NDR 106.25 Gb/s) valid where
// CapabilityMask.IsExtendedSpeedsSupported, LinkSpeedExt*2 (bit 0 XDR 212.5 Gb/s)
// valid where CapabilityMask2.IsExtendedSpeeds2Supported. A switch's external ports
// carry no CapabilityMask of their own: port 0's speaks for them.
#pragma once

#include <cstdint>
#include <string>

#include "mad/attr/port_info.hpp"
#include "wire/link_codes.hpp"

namespace ibsm::mad {

// PortInfo.CapabilityMask / CapabilityMask2 bits about speeds and widths.
inline constexpr std::uint32_t kCapHasCapabilityMask2 = 1u << 15;
inline constexpr std::uint16_t kCap2IsLinkWidth2xSupported = 1u << 4;
inline constexpr std::uint16_t kCap2IsLinkSpeedHdrSupported = 1u << 5;
inline constexpr std::uint16_t kCap2IsLinkSpeedNdrSupported = 1u << 10;
inline constexpr std::uint16_t kCap2IsExtendedSpeeds2Supported = 1u << 11;
inline constexpr std::uint16_t kCap2IsLinkSpeedXdrSupported = 1u << 12;

// PortInfo attribute modifier bit 31 (SMSupportsExtendedSpeeds): the SM reads and
// writes the extended-speed fields. Bits 0-7 are the port number.
inline constexpr std::uint32_t kSmSupportsExtendedSpeeds = 1u << 31;

// The codes themselves (LinkSpeedExt* bits, lane speeds) are wire/link_codes.hpp's.
using wire::kSpeedExt2Xdr;
using wire::kSpeedExtEdr;
using wire::kSpeedExtFdr;
using wire::kSpeedExtHdr;
using wire::kSpeedExtNdr;
using wire::LaneSpeed;
const char* lane_speed_name(LaneSpeed s);  // "SDR" ... "XDR"
const char* lane_speed_gbps(LaneSpeed s);  // "2.5" ... "200" (data rate per lane)

// Gb/s per lane as signalled (2.5 ... 212.5: FDR 14.0625, EDR 25.78125, HDR 53.125,
// NDR 106.25), the PerfMgr's infiniband_speed metric; 0 for kUnknown.
double lane_signalling_gbps(LaneSpeed s);

// The speed LinkSpeedActive names (1 SDR, 2 DDR, 4 QDR) and the one LinkSpeedExtActive
// names (1 FDR, 2 EDR, 4 HDR, 8 NDR); kUnknown for any other value.
using wire::classic_lane_speed;
using wire::extended_lane_speed;

// The active per-lane speed from the two fields alone (no capability masks, no XDR):
// LinkSpeedExtActive when it names a speed, else LinkSpeedActive. For readers that
// keep only these fields (the PerfMgr's counter rows).
LaneSpeed lane_speed_of(std::uint8_t link_speed_active, std::uint8_t link_speed_ext_active);

// Whether `caps` (the port's own PortInfo, a switch's port 0 for its external ports)
// advertises the extended speeds, and the XDR ones.
constexpr bool has_extended_speeds(const PortInfo& caps) {
  return (caps.capability_mask & kCapIsExtendedSpeedsSupported) != 0;
}
constexpr bool has_extended_speeds2(const PortInfo& caps) {
  return (caps.capability_mask & kCapHasCapabilityMask2) != 0 &&
         (caps.capability_mask2 & kCap2IsExtendedSpeeds2Supported) != 0;
}
// Whether a PortInfo Get should carry SMSupportsExtendedSpeeds: the port has
// extended-speed fields an SM that does not say so may not be shown.
constexpr bool wants_extended_speeds_get(const PortInfo& caps) {
  return has_extended_speeds(caps) || has_extended_speeds2(caps);
}
// Whether `caps` advertises 2x width (CapabilityMask2.IsLinkWidth2xSupported).
constexpr bool has_width_2x(const PortInfo& caps) {
  return (caps.capability_mask & kCapHasCapabilityMask2) != 0 &&
         (caps.capability_mask2 & kCap2IsLinkWidth2xSupported) != 0;
}

// The active per-lane speed of `pi`, whose capabilities `caps` gives: XDR over the
// extended speeds over the classic ones. kUnknown when no field names exactly one.
LaneSpeed active_lane_speed(const PortInfo& pi, const PortInfo& caps);

// The lane count of a LinkWidthActive code (1x 1, 4x 2, 8x 4, 12x 8, 2x 16), 0 for
// any other value.
unsigned active_lanes(std::uint8_t width_active);

// The speed fields of an answer checked against each other. `cleaned` is the answer
// with the contradictory extended-speed fields zeroed (so every reader falls back to
// what the port certainly runs: the classic speeds), `problems` names each field and
// its value ("" when the answer is consistent). Active fields are checked only on a
// port whose link is up.
struct SpeedFieldCheck {
  PortInfo cleaned;
  std::string problems;
};
SpeedFieldCheck check_speed_fields(const PortInfo& pi, const PortInfo& caps);

}  // namespace ibsm::mad
