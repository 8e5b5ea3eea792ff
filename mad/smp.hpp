// A Subnet Management Packet (IBA 14.2.1): 256 bytes, 24-byte common MAD header,
// SMP fields, 64 bytes of attribute data at offset 64, DR paths at 128 and 192.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <variant>

#include "common/result.hpp"
#include "mad/attribute_codec.hpp"
#include "mad/dr_path.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

inline constexpr std::size_t kMadSize = IB_MAD_SIZE;
inline constexpr std::size_t kSmpDataOffset = IB_SMP_DATA_OFFS;
static_assert(kMadSize == 256 && kSmpDataOffset == 64 && kSmpDataSize == 64,
              "IBA 14.2.1.1 SMP layout");

// Where an SMP goes: along a directed route from the SM, or to a LID.
using SmpTarget = std::variant<DrPath, Lid>;
std::string target_to_string(const SmpTarget& t);

// MAD status bits (IBA 13.4.7, table 111); bit 15 of a DR SMP's status word is D.
inline constexpr std::uint16_t kStatusBusy = 0x0001;
inline constexpr std::uint16_t kStatusRedirect = 0x0002;
inline constexpr std::uint16_t kStatusBadVersion = 0x0004;
inline constexpr std::uint16_t kStatusMethodUnsupported = 0x0008;
inline constexpr std::uint16_t kStatusAttrUnsupported = 0x000C;
inline constexpr std::uint16_t kStatusInvalidValue = 0x001C;

class Smp {
 public:
  using Bytes = std::array<std::uint8_t, kMadSize>;

  // A request from the SM (hop pointer 0, D bit clear, permissive DR LIDs).
  static Smp request(Method method, AttrId attr, std::uint32_t attr_mod, const SmpTarget& target,
                     std::uint32_t tid, std::uint64_t m_key = 0);

  // Parses received bytes: base version 1, SMI class (0x01 or 0x81), class version 1.
  static Result<Smp> parse(std::span<const std::uint8_t> bytes);

  // The GetResp answering this request, carrying `data`. For a DR request the
  // D bit is set and the path kept, so the kernel's SMI returns it along the
  // reverse path (IBA 14.2.2.2).
  // `method` is GetResp for Get/Set and TrapRepress for a Trap (IBA 13.4.8.3).
  Smp response(ConstPayload data, Method method = Method::kGetResp) const;

  Method method() const;
  bool is_response() const;
  bool directed() const;
  std::uint16_t status() const;  // MAD status without the D bit
  // Sets the MAD status of a response (a DR SMP keeps its D bit).
  void set_status(std::uint16_t status);
  std::uint64_t tid() const;
  std::uint32_t tid_low() const { return static_cast<std::uint32_t>(tid() & 0xffffffffu); }
  AttrId attr_id() const;
  std::uint32_t attr_mod() const;
  std::uint8_t hop_count() const;
  // The M_Key of the SMP header (bytes 24-31): the key a request presents to the
  // port it addresses (IBA 14.2.4).
  std::uint64_t m_key() const;

  Payload data() { return Payload(bytes_.data() + kSmpDataOffset, kSmpDataSize); }
  ConstPayload data() const { return ConstPayload(bytes_.data() + kSmpDataOffset, kSmpDataSize); }
  const Bytes& bytes() const { return bytes_; }

  template <class A>
  void set_attribute(const A& a) {
    encode(a, data());
  }

 private:
  Bytes bytes_{};
};

}  // namespace ibsm::mad
