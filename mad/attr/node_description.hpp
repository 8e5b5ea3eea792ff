// NodeDescription (IBA 14.2.5.2): 64 bytes of UTF-8 text, NUL-padded.
#pragma once

#include <string>

#include "mad/attribute_codec.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

struct NodeDescription {
  static constexpr AttrId kAttrId = AttrId::kNodeDescription;
  static constexpr const char* kName = "NodeDescription";

  std::string text;

  static void encode_payload(const NodeDescription& d, Payload out);
  // Stops at the first NUL; bytes that are not printable are replaced by '?' so a
  // hostile description can never inject control characters into logs or dumps.
  static NodeDescription decode_payload(ConstPayload in);
  static std::string describe(const NodeDescription& d) { return "NodeDesc:" + d.text + "\n"; }
};

}  // namespace ibsm::mad
