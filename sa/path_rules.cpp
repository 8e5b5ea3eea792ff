// PathRecord protocol rules (path_resolver.hpp, "Protocol rules"): the rate
// enumeration's order by bandwidth, a port's rate from its PortInfo, the rate fix-ups
// and limits OpenSM applies, the Tavor MTU quirk, and the MTU/rate/lifetime selectors
// (IBA 15.2.5.16). Pure functions of their arguments.
#include "sa/path_resolver.hpp"

#include <algorithm>
#include <array>

namespace ibsm::sa {

namespace {

// Rank of each rate enum by bandwidth (IBA 15.2.5.16 table 206 and its 1.3/1.5/1.7
// additions; the effective data rate after encoding decides: 14 Gb/s FDR 1x sits
// between 10 and 20 Gb/s SDR/DDR). Index = enum; 0 = not a rate.
constexpr std::array<std::uint8_t, kRateMax + 1> kRankOfRate = {
    0,  0,  // 0, 1: reserved
    1,      // 2: 2.5
    3,      // 3: 10
    6,      // 4: 30
    2,      // 5: 5
    5,      // 6: 20
    9,      // 7: 40
    10,     // 8: 60
    13,     // 9: 80
    14,     // 10: 120
    4,      // 11: 14 (FDR 1x)
    12,     // 12: 56
    16,     // 13: 112
    17,     // 14: 168
    7,      // 15: 25 (EDR 1x)
    15,     // 16: 100
    18,     // 17: 200
    19,     // 18: 300
    8,      // 19: 28 (FDR 2x)
    11,     // 20: 50
    20,     // 21: 400
    21,     // 22: 600
    22,     // 23: 800
    23,     // 24: 1200
    24,     // 25: 1600 (XDR 8x)
};

constexpr std::array<std::uint8_t, kRateMax> make_rate_of_rank() {
  std::array<std::uint8_t, kRateMax> r{};
  for (std::uint8_t e = kRateMin; e <= kRateMax; ++e)
    r[kRankOfRate[e]] = e;
  return r;
}
constexpr std::array<std::uint8_t, kRateMax> kRateOfRank = make_rate_of_rank();
static_assert(kRateOfRank[1] == kRateMin && kRateOfRank[kRateMax - 1] == kRateMax);

// PortInfo.LinkWidthActive bits (IBA 14.2.5.6): 1x, 4x, 8x, 12x, 2x.
enum WidthIndex : std::uint8_t { k1x, k4x, k8x, k12x, k2x };
WidthIndex width_index(std::uint8_t active) {
  switch (active) {
    case 2:
      return k4x;
    case 4:
      return k8x;
    case 8:
      return k12x;
    case 16:
      return k2x;
    default:
      return k1x;  // 1, or a value no table knows: counted as 1x
  }
}

// Rate enum by speed and width index (1x, 4x, 8x, 12x, 2x).
constexpr std::uint8_t kSdr[] = {2, 3, 6, 4, 5};       // 2.5 Gb/s lanes
constexpr std::uint8_t kDdr[] = {5, 6, 7, 8, 3};       // 5
constexpr std::uint8_t kQdr[] = {3, 7, 9, 10, 6};      // 10
constexpr std::uint8_t kFdr[] = {11, 12, 13, 14, 19};  // 14 (LinkSpeedExtActive 1)
constexpr std::uint8_t kEdr[] = {15, 16, 17, 18, 20};  // 25 (2)
constexpr std::uint8_t kHdr[] = {20, 17, 21, 22, 16};  // 50 (4)
constexpr std::uint8_t kNdr[] = {16, 21, 23, 24, 17};  // 100 (8)
constexpr std::uint8_t kXdr[] = {17, 23, 25, 25, 21};  // 200 (LinkSpeedExtActive2 1); 12x: 1600

}  // namespace

std::uint8_t rate_rank(std::uint8_t rate) {
  return rate <= kRateMax ? kRankOfRate[rate] : 0;
}

std::uint8_t rate_of_rank(std::uint8_t rank) {
  return rank < kRateOfRank.size() ? kRateOfRank[rank] : 0;
}

std::uint8_t rate_below(std::uint8_t rate) {
  const std::uint8_t rank = rate_rank(rate);
  return rank <= 1 ? 0 : kRateOfRank[rank - 1];
}

std::uint8_t port_rate(const mad::PortInfo& pi, bool extended, bool extended2) {
  const WidthIndex w = width_index(pi.link_width_active);
  if (extended2 && pi.link_speed_ext_active2 == 1) return kXdr[w];
  if (extended) {
    switch (pi.link_speed_ext_active) {
      case 1:
        return kFdr[w];
      case 2:
        return kEdr[w];
      case 4:
        return kHdr[w];
      case 8:
        return kNdr[w];
      default:
        break;  // none active: the classic speeds decide
    }
  }
  switch (pi.link_speed_active) {
    case 1:
      return kSdr[w];
    case 2:
      return kDdr[w];
    case 4:
      return kQdr[w];
    default:
      return kSdr[k1x];  // OpenSM: an unknown speed is 2.5 Gb/s whatever the width
  }
}

std::uint8_t limit_rate(std::uint8_t rate, std::uint8_t limit) {
  if (!rate_valid(rate) || limit >= rate) return rate;
  // Step down until neither the bandwidth nor the enum value is above the limit
  // (older clients index tables by the enum, so a larger enum must not come back).
  std::uint8_t r = rate_below(rate);
  while (r > kRateMin && (rate_rank(r) > rate_rank(limit) || r > limit))
    r = rate_below(r);
  return r != 0 ? r : kRateMin;
}

std::uint8_t rate_2x_hdr_fixup(const mad::PortInfo& pi, std::uint8_t rate) {
  const bool cm2 = (pi.capability_mask & kCapHasCapMask2) != 0;
  const bool w2x = cm2 && (pi.capability_mask2 & kCap2Width2x) != 0;
  const bool hdr = cm2 && (pi.capability_mask2 & kCap2SpeedHdr) != 0;
  const bool ndr = cm2 && (pi.capability_mask2 & kCap2SpeedNdr) != 0;
  const bool xdr = cm2 && (pi.capability_mask2 & kCap2SpeedXdr) != 0;
  switch (rate) {
    case 19:  // 28 Gb/s exists only as FDR 2x
      if (!w2x) return (pi.capability_mask & kCapExtendedSpeeds) != 0 ? 15 : 6;
      return rate;
    case 20:  // 50 Gb/s: EDR 2x or HDR 1x
      return (!w2x && !hdr) ? 7 : rate;
    case 21:  // 400, 600 Gb/s: HDR, NDR (or XDR 2x) only
    case 22:
      return (!hdr && !ndr && !xdr) ? kRate300 : rate;
    case 23:  // 800 Gb/s: NDR 8x or XDR 4x
      if (ndr || xdr) return rate;
      return (cm2 && !hdr) ? kRate300 : 22;
    case 24:  // 1200 Gb/s: NDR 12x only
      if (ndr) return rate;
      return (cm2 && !hdr) ? kRate300 : 22;
    case 25:  // 1600 Gb/s: XDR only
      return xdr ? rate : rate_2x_hdr_fixup(pi, ndr ? kRate1200 : 23);
    default:
      return rate;
  }
}

bool is_tavor(const mad::NodeInfo& node) {
  constexpr std::uint16_t kTavorDeviceId = 23108;
  // Mellanox, Topspin, SilverStorm and Voltaire sold it under their own vendor IDs.
  constexpr std::uint32_t kVendors[] = {0x0002c9, 0x0005ad, 0x00066a, 0x0008f1};
  return node.device_id == kTavorDeviceId &&
         std::find(std::begin(kVendors), std::end(kVendors), node.vendor_id) != std::end(kVendors);
}

bool tavor_mtu_limit_applies(const mad::NodeInfo& src, const mad::NodeInfo& dst,
                             const PathQuery::Selected& mtu) {
  if (!is_tavor(src) && !is_tavor(dst)) return false;
  if (!mtu.set) return true;
  switch (mtu.sel) {
    case 0:  // greater than
    case 2:  // exactly
      return mtu.value <= kTavorMtuLimit;
    case 1:  // less than: 1K never disqualifies it
      return true;
    default:  // 3: the largest there is, asked for on purpose
      return false;
  }
}

std::optional<std::uint8_t> select_mtu(std::uint8_t have, std::uint8_t sel, std::uint8_t want) {
  switch (sel) {
    case selector::kGreater:
      if (have <= want) return std::nullopt;
      return have;
    case selector::kLess:
      if (have < want) return have;
      if (want > 1) return static_cast<std::uint8_t>(want - 1);
      return std::nullopt;
    case selector::kExactly:
      if (have < want) return std::nullopt;
      return want;
    default:
      return have;
  }
}

std::optional<std::uint8_t> select_rate(std::uint8_t have, std::uint8_t sel, std::uint8_t want) {
  switch (sel) {
    case selector::kGreater:
      if (rate_rank(have) <= rate_rank(want)) return std::nullopt;
      return have;
    case selector::kLess: {
      if (rate_rank(have) < rate_rank(want)) return have;
      const std::uint8_t below = rate_below(want);
      if (below == 0) return std::nullopt;
      return below;
    }
    case selector::kExactly:
      // OpenSM asks the path for exactly this rate, not for at least it.
      if (rate_rank(have) != rate_rank(want)) return std::nullopt;
      return want;
    default:
      return have;
  }
}

std::optional<std::uint8_t> select_life(std::uint8_t have, std::uint8_t sel, std::uint8_t want) {
  // Same reading as the MTU; "best" is the smallest lifetime, which is what the path has.
  return select_mtu(have, sel, want);
}

}  // namespace ibsm::sa
