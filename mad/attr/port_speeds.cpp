#include "mad/attr/port_speeds.hpp"

#include <cstdio>

namespace ibsm::mad {

namespace {

// libibmad's texts for the XDR fields (mad_dump_linkspeedext2 and its siblings).
const char* active2_text(std::uint32_t v, char* buf, std::size_t size) {
  if (v == 0) return "No Extended Speed 2";
  if (v == 1) return "212.5 Gbps";
  std::snprintf(buf, size, "undefined (%u)", v);
  return buf;
}
const char* set2_text(std::uint32_t v, char* buf, std::size_t size) {
  if (v == 0) return "0";
  if (v == 1) return "212.5 Gbps";
  std::snprintf(buf, size, "%sundefined (%u)", (v & 1u) != 0 ? "212.5 Gbps " : "", v);
  return buf;
}

bool one_bit(unsigned v) {
  return v != 0 && (v & (v - 1)) == 0;
}

}  // namespace

const LocalField PortInfo::kLinkSpeedExtActive2{449, 2, "LinkSpeedExtActive2", active2_text};
const LocalField PortInfo::kLinkSpeedExtSupported2{451, 2, "LinkSpeedExtSupported2", set2_text};
const LocalField PortInfo::kLinkSpeedExtEnabled2{453, 3, "LinkSpeedExtEnabled2", set2_text};

const char* lane_speed_name(LaneSpeed s) {
  switch (s) {
    case LaneSpeed::kSdr:
      return "SDR";
    case LaneSpeed::kDdr:
      return "DDR";
    case LaneSpeed::kQdr:
      return "QDR";
    case LaneSpeed::kFdr:
      return "FDR";
    case LaneSpeed::kEdr:
      return "EDR";
    case LaneSpeed::kHdr:
      return "HDR";
    case LaneSpeed::kNdr:
      return "NDR";
    case LaneSpeed::kXdr:
      return "XDR";
    default:
      return "??";
  }
}

const char* lane_speed_gbps(LaneSpeed s) {
  switch (s) {
    case LaneSpeed::kSdr:
      return "2.5";
    case LaneSpeed::kDdr:
      return "5";
    case LaneSpeed::kQdr:
      return "10";
    case LaneSpeed::kFdr:
      return "14";
    case LaneSpeed::kEdr:
      return "25";
    case LaneSpeed::kHdr:
      return "50";
    case LaneSpeed::kNdr:
      return "100";
    case LaneSpeed::kXdr:
      return "200";
    default:
      return "??";
  }
}

double lane_signalling_gbps(LaneSpeed s) {
  switch (s) {
    case LaneSpeed::kSdr:
      return 2.5;
    case LaneSpeed::kDdr:
      return 5.0;
    case LaneSpeed::kQdr:
      return 10.0;
    case LaneSpeed::kFdr:
      return 14.0625;
    case LaneSpeed::kEdr:
      return 25.78125;
    case LaneSpeed::kHdr:
      return 53.125;
    case LaneSpeed::kNdr:
      return 106.25;
    case LaneSpeed::kXdr:
      return 212.5;
    default:
      return 0;
  }
}

LaneSpeed lane_speed_of(std::uint8_t link_speed_active, std::uint8_t link_speed_ext_active) {
  const LaneSpeed ext = extended_lane_speed(link_speed_ext_active);
  return ext != LaneSpeed::kUnknown ? ext : classic_lane_speed(link_speed_active);
}

LaneSpeed active_lane_speed(const PortInfo& pi, const PortInfo& caps) {
  if (has_extended_speeds2(caps) && pi.link_speed_ext_active2 == kSpeedExt2Xdr)
    return LaneSpeed::kXdr;
  if (has_extended_speeds(caps))  // none active: the classic speed decides
    return lane_speed_of(pi.link_speed_active, pi.link_speed_ext_active);
  return classic_lane_speed(pi.link_speed_active);
}

unsigned active_lanes(std::uint8_t width_active) {
  return wire::lanes_of_width_code(width_active);
}

SpeedFieldCheck check_speed_fields(const PortInfo& pi, const PortInfo& caps) {
  SpeedFieldCheck c{pi, {}};
  PortInfo& out = c.cleaned;
  const auto note = [&](const std::string& what) {
    if (!c.problems.empty()) c.problems += "; ";
    c.problems += what;
  };
  const auto n = [](unsigned v) { return std::to_string(v); };
  const bool link_up = pi.port_state != PortState::kDown && pi.port_state != PortState::kNoChange;
  const bool ext = has_extended_speeds(caps);
  const bool ext2 = has_extended_speeds2(caps);

  if (ext2) {
    if ((out.link_speed_ext_supported2 & ~kSpeedExt2Xdr) != 0) {
      note("LinkSpeedExtSupported2 " + n(out.link_speed_ext_supported2) + " has undefined bits");
      out.link_speed_ext_supported2 &= kSpeedExt2Xdr;
    }
    if (link_up && out.link_speed_ext_active2 != 0 &&
        (out.link_speed_ext_active2 != kSpeedExt2Xdr ||
         (out.link_speed_ext_supported2 & kSpeedExt2Xdr) == 0)) {
      note("LinkSpeedExtActive2 " + n(pi.link_speed_ext_active2) + " with LinkSpeedExtSupported2 " +
           n(pi.link_speed_ext_supported2));
      out.link_speed_ext_active2 = 0;
    }
  }
  const bool xdr_supported = ext2 && out.link_speed_ext_supported2 != 0;
  if (ext && out.link_speed_ext_supported == 0 && !xdr_supported) {
    // What a device shows an SM that did not set SMSupportsExtendedSpeeds (OpenSM
    // issue 38); after the Get with bit 31 it is a device fault. Nothing extended is
    // certain: the port counts with its classic speeds.
    note("CapabilityMask.IsExtendedSpeedsSupported but LinkSpeedExtSupported 0");
    out.link_speed_ext_active = 0;
    out.link_speed_ext_enabled = 0;
  } else if (ext && link_up && out.link_speed_ext_active != 0 &&
             (!one_bit(out.link_speed_ext_active) ||
              (out.link_speed_ext_active & out.link_speed_ext_supported) == 0)) {
    note("LinkSpeedExtActive " + n(pi.link_speed_ext_active) + " with LinkSpeedExtSupported " +
         n(pi.link_speed_ext_supported));
    out.link_speed_ext_active = 0;
  }
  const bool ext_active =
      (ext && out.link_speed_ext_active != 0) || (ext2 && out.link_speed_ext_active2 != 0);
  if (link_up && !ext_active && pi.link_speed_active != 1 && pi.link_speed_active != 2 &&
      pi.link_speed_active != 4) {
    // Not repairable: SDR (2.5 Gb/s) is all the port certainly runs; readers count it so.
    note("LinkSpeedActive " + n(pi.link_speed_active) + " names no speed");
  }
  return c;
}

}  // namespace ibsm::mad
