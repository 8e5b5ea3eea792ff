// Binding a MAD answer to the request it claims to answer.
//
// A TID alone does not make an answer: any host that can send MADs to the SM's port
// (a root user on any node, or any process under umad2sim) can put a live TID on a
// forged GetResp. An answer is taken only when everything the responder has to copy
// from the request, and everything the fabric says about where it came from, agrees
// with what was sent:
//   - TID (IBA 13.4.6.4): the low 32 bits (the kernel's hi_tid and umad2sim's agent
//     and client IDs own the upper half, and a responder echoes the whole);
//   - management class, and Method GetResp for a Get or a Set (IBA 13.4.5, 13.4.6.2);
//   - AttributeID and AttributeModifier (IBA 13.4.6.2: a response carries the
//     request's), except the modifier bits a request uses as flags to the responder
//     (PortInfo's SMSupportsExtendedSpeeds, bit 31, IBA 14.2.5.6), which a device may
//     or may not echo;
//   - the source: for a LID-routed MAD the SLID of the answer must be the DLID of the
//     request (IBA 13.5.4: a responder answers from the port, and path bits, it was
//     asked at); for a directed-route SMP, which has no meaningful SLID, the DR fields
//     the responder returns (IBA 14.2.2): D bit set, the request's HopCount and
//     InitialPath, permissive DrSLID/DrDLID as sent, and a HopPointer back at 0
//     (C14-13; 0 or 1 for a hop count of 0, which never leaves the SM's node).
// PerfMgt and Congestion Control answers (IBA 16.1, A10) are GSI MADs and bound by the
// same rule without the DR part.
//
// Pure functions: no I/O, no logging; callers count and log (mad/errors.hpp IBSM-1016,
// perfmgr/errors.hpp IBSM-8512).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mad/types.hpp"

namespace ibsm::mad {

// What a request put on the wire, as far as its answer must show it.
struct SentMad {
  std::uint8_t mgmt_class = 0;
  std::uint8_t method = 0;  // Get (0x01) or Set (0x02)
  std::uint32_t tid_low = 0;
  std::uint16_t attr_id = 0;
  std::uint32_t attr_mod = 0;
  // Modifier bits the responder need not echo (flags of the request).
  std::uint32_t attr_mod_flags = 0;
  // LID-routed: the DLID the request went to.
  Lid dlid = 0;
  // Directed route (class 0x81): HopCount and InitialPath[1..hop_count].
  std::uint8_t hop_count = 0;
  std::array<std::uint8_t, 64> initial_path{};
};

// What arrived: the MAD's first bytes and the SLID the transport reports.
struct ReceivedMad {
  std::span<const std::uint8_t> bytes;  // at least the 24-byte common header
  Lid slid = 0;
};

enum class Mismatch : std::uint8_t {
  kNone,
  kTooShort,    // no whole header (or, for a DR SMP, no whole SMP)
  kTid,         // low 32 TID bits
  kClass,       // management class
  kMethod,      // not GetResp
  kAttribute,   // AttributeID
  kModifier,    // AttributeModifier
  kSource,      // SLID is not the request's DLID
  kPath,        // DR fields (D bit, HopCount, HopPointer, InitialPath, DrSLID/DrDLID)
  kPortSelect,  // PerfMgt: PortSelect of the data (checked by perfmgr/, IBA 16.1.3.5)
};
std::string_view mismatch_name(Mismatch m);

// The first field of `got` that does not fit `sent`, or kNone.
Mismatch match_answer(const SentMad& sent, const ReceivedMad& got);

// The modifier flag bits a request of this SMP attribute may carry (bit 31 of a
// PortInfo modifier).
std::uint32_t smp_modifier_flags(std::uint16_t attr_id);

// The TID's low 32 bits of a MAD (bytes 12-15), or 0 for one shorter than 16 bytes.
std::uint32_t tid_low_of(std::span<const std::uint8_t> bytes);

}  // namespace ibsm::mad
