#include "sm/cc/switch_port_setting.hpp"

namespace ibsm::sm::cc {
namespace {

// Big-endian bit fields within one element (bit 0 = MSB of its first byte).
void put(CcData& d, std::size_t element, const CcField& f, std::uint32_t v) {
  for (std::size_t i = 0; i < f.bits; ++i) {
    const std::size_t at = element * swport::kElementBytes * 8 + f.bit + i;
    const auto mask = static_cast<std::uint8_t>(0x80u >> (at % 8));
    if ((v >> (f.bits - 1 - i)) & 1u)
      d[at / 8] |= mask;
    else
      d[at / 8] &= static_cast<std::uint8_t>(~mask);
  }
}

std::uint32_t get(const CcData& d, std::size_t element, const CcField& f) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < f.bits; ++i) {
    const std::size_t at = element * swport::kElementBytes * 8 + f.bit + i;
    v = (v << 1) | ((d[at / 8] >> (7 - at % 8)) & 1u);
  }
  return v;
}

}  // namespace

CcData encode(const SwitchPortCongestionBlock& b) {
  CcData d{};
  for (std::size_t e = 0; e < b.size(); ++e) {
    put(d, e, swport::kValid, b[e].valid ? 1 : 0);
    put(d, e, swport::kControlType, b[e].credit_starvation ? 1 : 0);
    put(d, e, swport::kThreshold, b[e].threshold);
    put(d, e, swport::kPacketSize, b[e].packet_size);
    put(d, e, swport::kCongParm, b[e].cong_parm);
  }
  return d;
}

SwitchPortCongestionBlock decode_switch_port_block(const CcData& d) {
  SwitchPortCongestionBlock b;
  for (std::size_t e = 0; e < b.size(); ++e) {
    b[e].valid = get(d, e, swport::kValid) != 0;
    b[e].credit_starvation = get(d, e, swport::kControlType) != 0;
    b[e].threshold = static_cast<std::uint8_t>(get(d, e, swport::kThreshold));
    b[e].packet_size = static_cast<std::uint8_t>(get(d, e, swport::kPacketSize));
    b[e].cong_parm = static_cast<std::uint16_t>(get(d, e, swport::kCongParm));
  }
  return b;
}

}  // namespace ibsm::sm::cc
