// MulticastForwardingTable (IBA 14.2.5.12): one block holds 32 MLIDs, each a 16-bit
// port mask (big-endian) for 16 ports; bit i of the mask at position p stands for port
// 16*p + i (port 0 included: it delivers to the switch itself).
//
// The attribute modifier carries the block in bits 0-8 (MLIDs 0xC000 + 32*block ..
// +31) and the position in bits 28-31 (ports 16*position .. 16*position+15).
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>

#include "mad/attribute_codec.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

struct MftBlock {
  static constexpr AttrId kAttrId = AttrId::kMulticastForwardingTable;
  static constexpr const char* kName = "MulticastForwardingTable";
  static constexpr std::size_t kEntries = 32;        // MLIDs per block
  static constexpr std::size_t kPortsPerMask = 16;   // ports per position
  static constexpr std::uint32_t kMaxBlock = 0x1FF;  // 9 bits of block number
  static constexpr std::uint32_t kMaxPosition = 0xF;

  std::array<std::uint16_t, kEntries> masks{};

  static void encode_payload(const MftBlock& b, Payload out) {
    for (std::size_t i = 0; i < kEntries; ++i) {
      out[2 * i] = static_cast<std::uint8_t>(b.masks[i] >> 8);
      out[2 * i + 1] = static_cast<std::uint8_t>(b.masks[i] & 0xff);
    }
  }
  static MftBlock decode_payload(ConstPayload in) {
    MftBlock b;
    for (std::size_t i = 0; i < kEntries; ++i)
      b.masks[i] = static_cast<std::uint16_t>((in[2 * i] << 8) | in[2 * i + 1]);
    return b;
  }
  static std::string describe(const MftBlock& b) {
    std::string s;
    char buf[8];
    for (std::size_t i = 0; i < kEntries; ++i) {
      std::snprintf(buf, sizeof buf, "%04x%c", b.masks[i], (i % 8 == 7) ? '\n' : ' ');
      s += buf;
    }
    return s;
  }
};

static_assert(MftBlock::kEntries * 2 == kSmpDataSize, "32 masks of 16 bits fill the data area");

// Attribute modifier of an MFT block (IBA 14.2.5.12): block in bits 0-8, position in 28-31.
constexpr std::uint32_t mft_attr_mod(std::uint32_t block, std::uint32_t position) {
  return (block & MftBlock::kMaxBlock) | ((position & MftBlock::kMaxPosition) << 28);
}
constexpr std::uint32_t mft_block_of(std::uint32_t attr_mod) {
  return attr_mod & MftBlock::kMaxBlock;
}
constexpr std::uint32_t mft_position_of(std::uint32_t attr_mod) {
  return (attr_mod >> 28) & MftBlock::kMaxPosition;
}

// PortInfo.CapabilityMask bit 30 of switch port 0: the switch honours
// SwitchInfo.MulticastFDBTop (IBA 14.2.5.6; OpenSM's IB_PORT_CAP_HAS_MCAST_FDB_TOP).
inline constexpr std::uint32_t kCapHasMulticastFdbTop = 1u << 30;

}  // namespace ibsm::mad
