// P_KeyTable (IBA 14.2.5.7): 32 big-endian 16-bit P_Keys per block. Attribute
// modifier: block number in bits 0-15; for switches, the port in bits 16-23.
#pragma once

#include <array>

#include "mad/attribute_codec.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

struct PKeyBlock {
  static constexpr AttrId kAttrId = AttrId::kPKeyTable;
  static constexpr const char* kName = "P_KeyTable";
  static constexpr std::size_t kEntries = 32;

  std::array<std::uint16_t, kEntries> pkeys{};

  static void encode_payload(const PKeyBlock& b, Payload out);
  static PKeyBlock decode_payload(ConstPayload in);
  static std::string describe(const PKeyBlock& b);
};

static_assert(PKeyBlock::kEntries * 2 == kSmpDataSize, "32 P_Keys of 2 bytes fill the data area");

inline constexpr std::uint32_t pkey_attr_mod(std::uint16_t block, PortNum switch_port) {
  return (static_cast<std::uint32_t>(switch_port) << 16) | block;
}

}  // namespace ibsm::mad
