// GUIDInfo (IBA 14.2.5.5): a port's GUID table, eight 64-bit GUIDs per block,
// big-endian. Attribute modifier: the block number (0-31). PortInfo.GUIDCap says
// how many entries the port has; index 0 of block 0 is the port GUID itself and
// is read-only, the other entries are the alias GUIDs the SM assigns (the SA's
// GUIDInfoRecord Set/Delete, IBA 15.2.5.18). Switch external ports have no GUID
// table: a switch's is port 0's.
//
// Header-only: the codec is eight big-endian copies.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>

#include "mad/attribute_codec.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

struct GuidInfoBlock {
  static constexpr AttrId kAttrId = AttrId::kGuidInfo;
  static constexpr const char* kName = "GUIDInfo";
  static constexpr std::size_t kEntries = 8;
  static constexpr std::uint32_t kMaxBlocks = 32;  // GUIDCap is 8 bits: 256 entries at most

  std::array<Guid, kEntries> guids{};

  bool operator==(const GuidInfoBlock&) const = default;

  static void encode_payload(const GuidInfoBlock& b, Payload out) {
    for (std::size_t i = 0; i < kEntries; ++i)
      for (std::size_t byte = 0; byte < 8; ++byte)
        out[8 * i + byte] = static_cast<std::uint8_t>(b.guids[i] >> (8 * (7 - byte)));
  }
  static GuidInfoBlock decode_payload(ConstPayload in) {
    GuidInfoBlock b;
    for (std::size_t i = 0; i < kEntries; ++i) {
      Guid g = 0;
      for (std::size_t byte = 0; byte < 8; ++byte)
        g = (g << 8) | in[8 * i + byte];
      b.guids[i] = g;
    }
    return b;
  }
  static std::string describe(const GuidInfoBlock& b) {
    std::string s;
    char buf[40];
    for (std::size_t i = 0; i < kEntries; ++i) {
      std::snprintf(buf, sizeof buf, "Guid%zu: 0x%016llx\n", i,
                    static_cast<unsigned long long>(b.guids[i]));
      s += buf;
    }
    return s;
  }
};

static_assert(GuidInfoBlock::kEntries * 8 == kSmpDataSize, "8 GUIDs of 8 bytes fill the data area");

// How many GUIDInfo blocks a port with `guid_cap` entries answers (IBA 14.2.5.5).
inline constexpr std::uint32_t guid_info_blocks(std::uint8_t guid_cap) {
  return (std::uint32_t{guid_cap} + GuidInfoBlock::kEntries - 1) / GuidInfoBlock::kEntries;
}

}  // namespace ibsm::mad
