// Link widths and lane speeds as plain values, and their conversion from the PortInfo
// codes (IBA 14.2.5.6, tables 155/156: wire/link_codes.hpp, the one decoding of them).
//   width:  the lane count, 1, 2, 4, 8 or 12 (0: unknown);
//   speed:  one lane's signalling, slowest first (FDR10 is Mellanox's vendor speed,
//           between QDR and FDR as iblinkinfo orders it);
//   sets:   a bit per width (1 << lanes) or per speed (1 << Speed), what a port
//           supports or has enabled.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibsm::cabling {

enum class Speed : std::uint8_t {
  kUnknown,
  kSdr,
  kDdr,
  kQdr,
  kFdr10,
  kFdr,
  kEdr,
  kHdr,
  kNdr,
  kXdr
};
using WidthSet = std::uint16_t;
using SpeedSet = std::uint16_t;

// 0 for a lane count no port has (0, 3, 5, ...).
constexpr WidthSet width_bit(std::uint8_t lanes) {
  const bool valid = lanes == 1 || lanes == 2 || lanes == 4 || lanes == 8 || lanes == 12;
  return valid ? static_cast<WidthSet>(1u << lanes) : 0;
}
constexpr SpeedSet speed_bit(Speed s) {
  return s == Speed::kUnknown ? 0 : static_cast<SpeedSet>(1u << static_cast<unsigned>(s));
}
inline constexpr WidthSet kAllWidths =
    width_bit(1) | width_bit(2) | width_bit(4) | width_bit(8) | width_bit(12);

// The widest width / fastest speed in a set; 0 / kUnknown for an empty set.
std::uint8_t best_width(WidthSet set);
Speed best_speed(SpeedSet set);

// "4x", "EDR"; "?" for unknown values.
std::string width_name(std::uint8_t lanes);
std::string_view speed_name(Speed s);

// From PortInfo: LinkWidthActive (1 1x, 2 4x, 4 8x, 8 12x, 16 2x) and the
// LinkWidthSupported/Enabled masks of the same bits.
std::uint8_t width_from_iba(std::uint8_t link_width_active);
WidthSet widths_from_iba(std::uint8_t link_width_mask);
// LinkSpeedActive (1 SDR, 2 DDR, 4 QDR), LinkSpeedExtActive (1 FDR, 2 EDR, 4 HDR, 8 NDR),
// LinkSpeedExtActive2 (1 XDR): the extended ones win when they name a speed. Pass 0 for
// extended fields the port does not have.
Speed speed_from_iba(std::uint8_t active, std::uint8_t ext_active = 0,
                     std::uint8_t ext2_active = 0);
// The Supported/Enabled masks of the same three fields (LinkSpeedSupported 1/2/4 as
// above; an Enabled value of 15 means "all supported" in LinkSpeedEnabled, pass the
// Supported mask then).
SpeedSet speeds_from_iba(std::uint8_t mask, std::uint8_t ext_mask = 0, std::uint8_t ext2_mask = 0);

// ibnetdiscover's rate token: "4xSDR", "12xEDR", "4xFDR10". nullopt when `token` does
// not have the form <lanes>x<speed>.
struct Rate {
  std::uint8_t width = 0;
  Speed speed = Speed::kUnknown;
};
std::optional<Rate> parse_rate(std::string_view token);
// A token that starts like a rate (digits then 'x'): a malformed rate, not free text.
bool looks_like_rate(std::string_view token);

}  // namespace ibsm::cabling
