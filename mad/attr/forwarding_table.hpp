// LinearForwardingTable (IBA 14.2.5.10): 64 one-byte port entries per block;
// the attribute modifier is the block number (LIDs 64*block .. 64*block+63).
#pragma once

#include <array>

#include "mad/attribute_codec.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

struct LftBlock {
  static constexpr AttrId kAttrId = AttrId::kLinearForwardingTable;
  static constexpr const char* kName = "LinearForwardingTable";
  static constexpr std::size_t kEntries = 64;

  std::array<PortNum, kEntries> ports{};

  static void encode_payload(const LftBlock& b, Payload out);
  static LftBlock decode_payload(ConstPayload in);
  static std::string describe(const LftBlock& b);
};

static_assert(LftBlock::kEntries == kSmpDataSize, "one byte per LID fills the SMP data area");

}  // namespace ibsm::mad
