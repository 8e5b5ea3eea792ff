// SwitchPortCongestionSetting (IBA Annex A10.4.3.4): 32 per-port elements of 4 bytes
// (ports 32*block .. 32*block+31, attribute modifier = block). Encoded and decoded
// here like the other attributes (sm/cc/cc_layouts.hpp), but not sent: OpenSM 3.3.23
// sends none, and no opensm.conf key describes per-port settings, so a switch keeps
// whatever per-port settings its vendor tools gave it.
#pragma once

#include <array>
#include <cstdint>

#include "sm/cc/cc_layouts.hpp"

namespace ibsm::sm::cc {

namespace swport {
inline constexpr std::size_t kElements = 32;
inline constexpr std::size_t kElementBytes = 4;
inline constexpr CcField kValid{"Valid", 0, 1};
inline constexpr CcField kControlType{"Control_Type", 1, 1};  // 0 congestion, 1 credit starvation
inline constexpr CcField kThreshold{"Threshold", 4, 4};
inline constexpr CcField kPacketSize{"Packet_Size", 8, 8};
inline constexpr CcField kCongParm{"Cong_Parm", 16, 16};  // marking rate, or shift:multiplier
static_assert(kCongParm.bit + kCongParm.bits == kElementBytes * 8);
static_assert(kElements * kElementBytes == 128 && kElements * kElementBytes <= kCcDataSize);
}  // namespace swport

struct SwitchPortCongestionElement {
  bool valid = false;
  bool credit_starvation = false;  // Control_Type
  std::uint8_t threshold = 0;
  std::uint8_t packet_size = 0;
  std::uint16_t cong_parm = 0;
  bool operator==(const SwitchPortCongestionElement&) const = default;
};
using SwitchPortCongestionBlock = std::array<SwitchPortCongestionElement, swport::kElements>;

CcData encode(const SwitchPortCongestionBlock& b);
SwitchPortCongestionBlock decode_switch_port_block(const CcData& d);

}  // namespace ibsm::sm::cc
