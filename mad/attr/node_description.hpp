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
  // The text as display text (common/display_text.hpp): up to the first NUL, valid
  // UTF-8 (a bad byte as U+FFFD), no control character, at most 64 bytes. A hostile
  // description can neither inject control characters into logs or dumps nor break
  // the UTF-8 of /metrics, JSON or the SA's NodeRecords.
  static NodeDescription decode_payload(ConstPayload in);
  static std::string describe(const NodeDescription& d) { return "NodeDesc:" + d.text + "\n"; }
};

}  // namespace ibsm::mad
