// Link-parameter rules the SM applies to both ends of a link, as pure functions.
#pragma once

#include <algorithm>
#include <cstdint>

#include "mad/types.hpp"

namespace ibsm::sm {

// IBA 14.2.5.6 NeighborMTU: at most the smaller MTUCap of the two ends
// (MTU enum: 1=256 ... 5=4096, so the smaller code is the smaller MTU).
constexpr std::uint8_t neighbor_mtu(std::uint8_t local_cap, std::uint8_t peer_cap) {
  return std::min(local_cap, peer_cap);
}

// IBA 14.2.5.6 OperationalVLs: at most the VLCap of both ends; OpenSM further
// caps it with max_op_vls. Codes: 1=VL0, 2=VL0-1, 3=VL0-3, 4=VL0-7, 5=VL0-14.
constexpr std::uint8_t operational_vls(std::uint8_t local_cap, std::uint8_t peer_cap,
                                       std::uint8_t max_op_vls) {
  const std::uint8_t v = std::min({local_cap, peer_cap, max_op_vls});
  return v == 0 ? 1 : v;
}

// IBA 7.2: the SM raises a port one state at a time (Init -> Armed -> Active);
// a port already at or beyond the target is left alone (X -> X is an error).
constexpr mad::PortState next_state(mad::PortState current, mad::PortState target) {
  if (current == mad::PortState::kDown || current == mad::PortState::kNoChange)
    return mad::PortState::kNoChange;
  const auto c = static_cast<unsigned>(current);
  const auto t = static_cast<unsigned>(target);
  if (c >= t || current == mad::PortState::kActive) return mad::PortState::kNoChange;
  return static_cast<mad::PortState>(c + 1 > t ? t : c + 1);
}

// IBA 14.2.5.6 link enables in a PortInfo Set. 0 means "no change" in all three;
// these codes ask the port to take everything it supports, or (extended speeds)
// none of them.
inline constexpr std::uint8_t kSpeedAsSupported = 15;     // LinkSpeedEnabled
inline constexpr std::uint8_t kSpeedExtDisable = 30;      // LinkSpeedExtEnabled
inline constexpr std::uint8_t kSpeedExtAsSupported = 31;  // LinkSpeedExtEnabled
inline constexpr std::uint8_t kWidthAsSupported = 255;    // LinkWidthEnabled
inline constexpr std::uint8_t kWidth2x = 16;              // LinkWidthEnabled bit 4 (2x)
inline constexpr std::uint16_t kCap2IsLinkWidth2xSupported = 1u << 4;  // CapabilityMask2

// The opensm.conf force_link_* values OpenSM accepts; any other (a reserved code)
// runs as the key's default, as OpenSM does. LinkSpeedEnabled: 1-7 (bits 2.5, 5,
// 10 Gbps) or 15; LinkSpeedExtEnabled: 1-15 (bits 14, 25, 50, 100 Gbps), 30 or 31;
// LinkWidthEnabled: 1-31 (bits 1x, 4x, 8x, 12x, 2x) or 255. 0 is "no change".
constexpr std::uint8_t valid_force_link_speed(std::uint8_t v) {
  return v <= 7 || v == kSpeedAsSupported ? v : kSpeedAsSupported;
}
constexpr std::uint8_t valid_force_link_speed_ext(std::uint8_t v) {
  return v <= 15 || v == kSpeedExtDisable || v == kSpeedExtAsSupported ? v : kSpeedExtAsSupported;
}
constexpr std::uint8_t valid_force_link_width(std::uint8_t v) {
  return v <= 31 || v == kWidthAsSupported ? v : kWidthAsSupported;
}

// The enable code a Set carries for a (valid) force_link_* value `force`, given what
// the port reports: 0 (no change) when the key is 0 or the port already holds it;
// the "as supported" code only while Enabled differs from Supported (so a port that
// took it is not asked again). An explicit set is cut to what the port supports
// (nothing left: no change): a port may refuse a Set naming a speed or width it
// lacks, and with it the LID and state the same Set carries.
constexpr std::uint8_t enable_to_set(std::uint8_t force, std::uint8_t as_supported,
                                     std::uint8_t enabled, std::uint8_t supported) {
  if (force == 0) return 0;
  if (force == as_supported) return enabled != supported ? force : 0;
  const auto want = static_cast<std::uint8_t>(force & supported);
  return want != 0 && enabled != want ? want : 0;
}

// LinkSpeedEnabled (IBA 14.2.5.6) for force_link_speed.
constexpr std::uint8_t link_speed_enabled_to_set(std::uint8_t force, std::uint8_t enabled,
                                                 std::uint8_t supported) {
  return enable_to_set(force, kSpeedAsSupported, enabled, supported);
}

// LinkSpeedExtEnabled (IBA 14.2.5.6) for force_link_speed_ext: only on a link whose
// two ends advertise CapabilityMask.IsExtendedSpeedsSupported (as OpenSM). A port
// with extended speeds disabled has none enabled (0): 30 is not sent to it again
// (OpenSM resends it every sweep).
constexpr std::uint8_t link_speed_ext_enabled_to_set(std::uint8_t force, std::uint8_t enabled,
                                                     std::uint8_t supported,
                                                     bool both_ends_extended) {
  if (!both_ends_extended) return 0;
  if (force == kSpeedExtDisable) return enabled != 0 && enabled != force ? force : 0;
  return enable_to_set(force, kSpeedExtAsSupported, enabled, supported);
}

// LinkWidthEnabled (IBA 14.2.5.6) for force_link_width: a width set naming 2x only
// on a port advertising CapabilityMask2.IsLinkWidth2xSupported (as OpenSM). 255
// asks for what the port supports, 2x or not, on every port (OpenSM 3.3.21 and later
// send it only to 2x-capable ports, which leaves the others as they are).
constexpr std::uint8_t link_width_enabled_to_set(std::uint8_t force, std::uint8_t enabled,
                                                 std::uint8_t supported, bool width_2x_supported) {
  if (force != kWidthAsSupported && (force & kWidth2x) != 0 && !width_2x_supported) return 0;
  return enable_to_set(force, kWidthAsSupported, enabled, supported);
}

// One end of a link as the throttled-link rule reads it (IBA 14.2.5.6 PortInfo, and
// MLNXExtendedPortInfo's FDR10 bit where the SM reads it).
struct LinkEndSpeeds {
  std::uint8_t speed_enabled = 0, speed_active = 0;          // LinkSpeedEnabled/Active
  std::uint8_t speed_ext_enabled = 0, speed_ext_active = 0;  // LinkSpeedExt*
  bool extended = false;  // CapabilityMask.IsExtendedSpeedsSupported (a switch: port 0's)
  std::uint8_t speed_ext2_enabled = 0, speed_ext2_active = 0;  // LinkSpeedExt*2 (XDR)
  bool extended2 = false;  // CapabilityMask2.IsExtendedSpeeds2Supported (a switch: port 0's)
  bool fdr10_enabled = false, fdr10_active = false;
  std::uint8_t width_enabled = 0, width_active = 0;  // LinkWidthEnabled/Active
};

// The fastest speed in a set, as one comparable bit: XDR (200 Gb/s per lane) above
// the extended speeds (FDR 14, EDR 25, HDR 50, NDR 100) above FDR10 above QDR, DDR, SDR.
constexpr std::uint16_t fastest_speed(std::uint8_t speeds, std::uint8_t ext, bool fdr10,
                                      std::uint8_t ext2 = 0) {
  if ((ext2 & 1u) != 0) return 0x100;
  for (int b = 3; b >= 0; --b)
    if ((ext >> b & 1u) != 0) return static_cast<std::uint16_t>(0x10u << b);
  if (fdr10) return 0x08;
  for (int b = 2; b >= 0; --b)
    if ((speeds >> b & 1u) != 0) return static_cast<std::uint16_t>(1u << b);
  return 0;
}

// The widest width in a LinkWidth set (bit 0 1x, 1 4x, 2 8x, 3 12x, 4 2x), as a lane count.
constexpr unsigned widest_width(std::uint8_t widths) {
  if ((widths & 8u) != 0) return 12;
  if ((widths & 4u) != 0) return 8;
  if ((widths & 2u) != 0) return 4;
  if ((widths & 16u) != 0) return 2;
  return (widths & 1u) != 0 ? 1 : 0;
}

// A throttled link (OpenSM's osm_link_is_throttled, which avoid_throttled_links reads):
// its two ends run different speeds or widths, or not the fastest speed and widest
// width both ends enable, whether an admin or link training brought it down.
constexpr bool link_throttled(const LinkEndSpeeds& a, const LinkEndSpeeds& b) {
  // Extended speeds count only on ports that have them; Enabled 30 turns them off
  // (OpenSM reads its low bits as EDR/HDR/NDR enabled and calls such links throttled).
  const auto ext = [](const LinkEndSpeeds& e, std::uint8_t v) {
    return e.extended && v != kSpeedExtDisable ? static_cast<std::uint8_t>(v & 0x0f)
                                               : std::uint8_t{0};
  };
  const auto ext2 = [](const LinkEndSpeeds& e, std::uint8_t v) {
    return e.extended2 ? static_cast<std::uint8_t>(v & 1u) : std::uint8_t{0};
  };
  const std::uint16_t best = fastest_speed(
      a.speed_enabled & b.speed_enabled, ext(a, a.speed_ext_enabled) & ext(b, b.speed_ext_enabled),
      a.fdr10_enabled && b.fdr10_enabled,
      ext2(a, a.speed_ext2_enabled) & ext2(b, b.speed_ext2_enabled));
  const unsigned widest = widest_width(a.width_enabled & b.width_enabled);
  const std::uint16_t sa = fastest_speed(a.speed_active, ext(a, a.speed_ext_active), a.fdr10_active,
                                         ext2(a, a.speed_ext2_active));
  const std::uint16_t sb = fastest_speed(b.speed_active, ext(b, b.speed_ext_active), b.fdr10_active,
                                         ext2(b, b.speed_ext2_active));
  const unsigned wa = widest_width(a.width_active), wb = widest_width(b.width_active);
  return sa != sb || sa != best || wa != wb || wa != widest;
}

}  // namespace ibsm::sm
