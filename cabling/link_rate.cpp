#include "cabling/link_rate.hpp"

#include <array>
#include <charconv>

#include "wire/link_codes.hpp"

namespace ibsm::cabling {
namespace {

constexpr std::array<std::string_view, 10> kSpeedNames = {"?",   "SDR", "DDR", "QDR", "FDR10",
                                                          "FDR", "EDR", "HDR", "NDR", "XDR"};
constexpr std::array<std::uint8_t, 5> kWidthsWidestFirst = {12, 8, 4, 2, 1};

// The IBA codes' lane speeds among ours (which add Mellanox's FDR10 between QDR and FDR).
Speed from_lane_speed(wire::LaneSpeed s) {
  switch (s) {
    case wire::LaneSpeed::kSdr:
      return Speed::kSdr;
    case wire::LaneSpeed::kDdr:
      return Speed::kDdr;
    case wire::LaneSpeed::kQdr:
      return Speed::kQdr;
    case wire::LaneSpeed::kFdr:
      return Speed::kFdr;
    case wire::LaneSpeed::kEdr:
      return Speed::kEdr;
    case wire::LaneSpeed::kHdr:
      return Speed::kHdr;
    case wire::LaneSpeed::kNdr:
      return Speed::kNdr;
    case wire::LaneSpeed::kXdr:
      return Speed::kXdr;
    default:
      return Speed::kUnknown;
  }
}

}  // namespace

std::uint8_t best_width(WidthSet set) {
  for (auto w : kWidthsWidestFirst)
    if (set & width_bit(w)) return w;
  return 0;
}

Speed best_speed(SpeedSet set) {
  for (auto s = static_cast<unsigned>(Speed::kXdr); s > 0; --s)
    if (set & (1u << s)) return static_cast<Speed>(s);
  return Speed::kUnknown;
}

std::string width_name(std::uint8_t lanes) {
  return width_bit(lanes) ? std::to_string(lanes) + "x" : "?";
}

std::string_view speed_name(Speed s) {
  const auto i = static_cast<std::size_t>(s);
  return i < kSpeedNames.size() ? kSpeedNames[i] : "?";
}

std::uint8_t width_from_iba(std::uint8_t code) {
  return static_cast<std::uint8_t>(wire::lanes_of_width_code(code));
}

WidthSet widths_from_iba(std::uint8_t mask) {
  WidthSet set = 0;
  for (unsigned bit = 0; bit < 5; ++bit)
    if (mask & (1u << bit)) set |= width_bit(width_from_iba(static_cast<std::uint8_t>(1u << bit)));
  return set;
}

Speed speed_from_iba(std::uint8_t active, std::uint8_t ext_active, std::uint8_t ext2_active) {
  if (wire::extended2_lane_speed(ext2_active) != wire::LaneSpeed::kUnknown) return Speed::kXdr;
  if (const Speed ext = from_lane_speed(wire::extended_lane_speed(ext_active));
      ext != Speed::kUnknown)
    return ext;
  return from_lane_speed(wire::classic_lane_speed(active));
}

SpeedSet speeds_from_iba(std::uint8_t mask, std::uint8_t ext_mask, std::uint8_t ext2_mask) {
  SpeedSet set = 0;
  for (unsigned bit = 0; bit < 8; ++bit) {
    const auto code = static_cast<std::uint8_t>(1u << bit);
    if (mask & code) set |= speed_bit(from_lane_speed(wire::classic_lane_speed(code)));
    if (ext_mask & code) set |= speed_bit(from_lane_speed(wire::extended_lane_speed(code)));
    if (ext2_mask & code) set |= speed_bit(from_lane_speed(wire::extended2_lane_speed(code)));
  }
  return set;
}

bool looks_like_rate(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9')
    ++i;
  return i > 0 && i < t.size() && (t[i] == 'x' || t[i] == 'X');
}

std::optional<Rate> parse_rate(std::string_view t) {
  if (!looks_like_rate(t)) return std::nullopt;
  unsigned lanes = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), lanes);
  if (ec != std::errc{} || lanes > 12 || !width_bit(static_cast<std::uint8_t>(lanes)))
    return std::nullopt;
  const std::string_view speed = t.substr(static_cast<std::size_t>(end - t.data()) + 1);
  for (std::size_t i = 1; i < kSpeedNames.size(); ++i)
    if (speed == kSpeedNames[i])
      return Rate{static_cast<std::uint8_t>(lanes), static_cast<Speed>(i)};
  return std::nullopt;
}

}  // namespace ibsm::cabling
