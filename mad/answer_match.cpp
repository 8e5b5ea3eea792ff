#include "mad/answer_match.hpp"

namespace ibsm::mad {

namespace {

std::uint16_t answer_be16(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint16_t>(b[at] << 8 | b[at + 1]);
}
std::uint32_t answer_be32(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint32_t>(b[at]) << 24 | static_cast<std::uint32_t>(b[at + 1]) << 16 |
         static_cast<std::uint32_t>(b[at + 2]) << 8 | b[at + 3];
}

constexpr std::uint8_t kGetResp = 0x81;  // IBA 13.4.5: R bit and Get
constexpr std::size_t kHeader = 24;      // IBA 13.4.3 common MAD header
constexpr std::size_t kSmpSize = 256;    // IBA 14.2.1.2 directed-route SMP
constexpr std::size_t kInitialPathAt = 128;

// IBA 14.2.2 (table 138) directed-route fields of a returning SMP, against the request.
bool dr_fields_match(const SentMad& sent, std::span<const std::uint8_t> b) {
  const bool d_bit = (b[4] & 0x80) != 0;
  const std::uint8_t hop_pointer = b[6];
  const std::uint8_t hop_count = b[7];
  if (!d_bit || hop_count != sent.hop_count) return false;
  // C14-13: the SM's port takes a returning SMP at HopPointer 0; an SMP to the SM's own
  // node (HopCount 0) may come back without having been decremented.
  if (hop_pointer != 0 && !(sent.hop_count == 0 && hop_pointer == 1)) return false;
  // DrSLID (bytes 32-33) and DrDLID (34-35): sent permissive, echoed by the responder.
  if (answer_be16(b, 32) != kPermissiveLid || answer_be16(b, 34) != kPermissiveLid) return false;
  for (std::size_t i = 1; i <= sent.hop_count && i < sent.initial_path.size(); ++i)
    if (b[kInitialPathAt + i] != sent.initial_path[i]) return false;
  return true;
}

}  // namespace

std::string_view mismatch_name(Mismatch m) {
  switch (m) {
    case Mismatch::kNone:
      return "matches";
    case Mismatch::kTooShort:
      return "too short";
    case Mismatch::kTid:
      return "TID differs";
    case Mismatch::kClass:
      return "management class differs";
    case Mismatch::kMethod:
      return "method is not GetResp";
    case Mismatch::kAttribute:
      return "attribute ID differs";
    case Mismatch::kModifier:
      return "attribute modifier differs";
    case Mismatch::kSource:
      return "source LID is not the request's destination";
    case Mismatch::kPath:
      return "directed-route fields differ from the request's path";
    case Mismatch::kPortSelect:
      return "PortSelect differs";
  }
  return "?";
}

std::uint32_t tid_low_of(std::span<const std::uint8_t> bytes) {
  return bytes.size() < 16 ? 0 : answer_be32(bytes, 12);
}

std::uint32_t smp_modifier_flags(std::uint16_t attr_id) {
  // IBA 14.2.5.6: PortInfo's modifier bit 31 is SMSupportsExtendedSpeeds.
  return attr_id == static_cast<std::uint16_t>(AttrId::kPortInfo) ? 1u << 31 : 0u;
}

Mismatch match_answer(const SentMad& sent, const ReceivedMad& got) {
  const auto b = got.bytes;
  if (b.size() < kHeader) return Mismatch::kTooShort;
  if (answer_be32(b, 12) != sent.tid_low) return Mismatch::kTid;
  if (b[1] != sent.mgmt_class) return Mismatch::kClass;
  if (b[3] != kGetResp) return Mismatch::kMethod;
  if (answer_be16(b, 16) != sent.attr_id) return Mismatch::kAttribute;
  const std::uint32_t keep = ~sent.attr_mod_flags;
  if ((answer_be32(b, 20) & keep) != (sent.attr_mod & keep)) return Mismatch::kModifier;
  if (sent.mgmt_class == kClassSmiDirected) {
    if (b.size() < kSmpSize) return Mismatch::kTooShort;
    if (!dr_fields_match(sent, b)) return Mismatch::kPath;
  } else if (got.slid != sent.dlid) {
    return Mismatch::kSource;
  }
  return Mismatch::kNone;
}

}  // namespace ibsm::mad
