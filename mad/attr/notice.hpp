// Notice (IBA 14.2.5.1 / 13.4.8.2): traps sent to the SM, in the 64-byte SMP form
// (the IssuerGID of the GMP form does not fit in an SMP).
#pragma once

#include <array>

#include "mad/attribute_codec.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

struct Notice {
  static constexpr AttrId kAttrId = AttrId::kNotice;
  static constexpr const char* kName = "Notice";
  static constexpr std::size_t kDetailsOffset = 10;
  static constexpr std::size_t kDetailsSize = 54;

  bool is_generic = false;
  std::uint8_t type = 0;
  std::uint32_t producer_type = 0;  // VendorID when not generic
  std::uint16_t trap_number = 0;    // DeviceID when not generic
  Lid issuer_lid = 0;
  bool toggle = false;
  std::uint16_t count = 0;
  std::array<std::uint8_t, kDetailsSize> details{};

  static void encode_payload(const Notice& n, Payload out);
  static Notice decode_payload(ConstPayload in);
  static std::string describe(const Notice& n);

  // The LID a trap is about (IBA 14.2.5.1, table 148): trap 128 (link state change)
  // carries it in the first two bytes of the details, traps 129-131, 144 and 145
  // after two reserved bytes.
  Lid details_lid() const {
    const std::size_t at = trap_number == 128 ? 0 : 2;
    return static_cast<Lid>((details[at] << 8) | details[at + 1]);
  }
};

}  // namespace ibsm::mad
