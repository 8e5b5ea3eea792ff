#include "cabling/link_rate.hpp"

#include <array>
#include <charconv>

namespace ibsm::cabling {
namespace {

constexpr std::array<std::string_view, 10> kSpeedNames = {"?",   "SDR", "DDR", "QDR", "FDR10",
                                                          "FDR", "EDR", "HDR", "NDR", "XDR"};
constexpr std::array<std::uint8_t, 5> kWidthsWidestFirst = {12, 8, 4, 2, 1};

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

WidthSet widths_from_iba(std::uint8_t mask) {
  WidthSet set = 0;
  for (unsigned bit = 0; bit < 5; ++bit)
    if (mask & (1u << bit)) set |= width_bit(width_from_iba(static_cast<std::uint8_t>(1u << bit)));
  return set;
}

Speed speed_from_iba(std::uint8_t active, std::uint8_t ext_active, std::uint8_t ext2_active) {
  if (ext2_active & 1) return Speed::kXdr;
  switch (ext_active) {
    case 1:
      return Speed::kFdr;
    case 2:
      return Speed::kEdr;
    case 4:
      return Speed::kHdr;
    case 8:
      return Speed::kNdr;
    default:
      break;
  }
  switch (active) {
    case 1:
      return Speed::kSdr;
    case 2:
      return Speed::kDdr;
    case 4:
      return Speed::kQdr;
    default:
      return Speed::kUnknown;
  }
}

SpeedSet speeds_from_iba(std::uint8_t mask, std::uint8_t ext_mask, std::uint8_t ext2_mask) {
  SpeedSet set = 0;
  constexpr std::array<Speed, 3> kClassic = {Speed::kSdr, Speed::kDdr, Speed::kQdr};
  constexpr std::array<Speed, 4> kExt = {Speed::kFdr, Speed::kEdr, Speed::kHdr, Speed::kNdr};
  for (unsigned i = 0; i < kClassic.size(); ++i)
    if (mask & (1u << i)) set |= speed_bit(kClassic[i]);
  for (unsigned i = 0; i < kExt.size(); ++i)
    if (ext_mask & (1u << i)) set |= speed_bit(kExt[i]);
  if (ext2_mask & 1) set |= speed_bit(Speed::kXdr);
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
