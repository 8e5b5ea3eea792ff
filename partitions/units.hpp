// MTU and rate values of multicast groups. OpenSM only takes the IBA enums
// (mtu=5 is 4096 bytes, rate=7 is 40 Gb/s); ibsm also takes plain units
// (mtu=4096, rate=40Gb, rate=2.5Gb). Every enum keeps its OpenSM meaning: a bare
// number is always an enum, a unit needs its suffix (Gb, Gb/s, Gbps) for rates, and
// MTUs in bytes (256..4096) cannot be confused with the enums 1..5.
// Encodings: IBA 1.3 Vol 1 §15.2.5.16 (PathRecord Rate/MTU), opensm issue #31.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibsm::partitions {

struct ParsedEnum {
  std::uint8_t value = 0;         // IBA enum
  bool opensm_reads_same = true;  // false when OpenSM's strtoul would get another number
};

// "5", "4096" -> 5. nullopt if neither a valid enum nor a valid size.
std::optional<ParsedEnum> parse_mtu(std::string_view text);
// "7", "40Gb", "2.5 Gb/s", "100Gbps" -> enum. nullopt if invalid.
std::optional<ParsedEnum> parse_rate(std::string_view text);

// 4 -> 2048; 0 for unknown enums.
unsigned mtu_bytes(std::uint8_t mtu_enum);
// 2 -> "2.5 Gb/s"; "enum N" for unknown values.
std::string rate_text(std::uint8_t rate_enum);
// 5 -> "4096"; 7 -> "40Gb": the unit form ibsm-part writes.
std::string mtu_unit_form(std::uint8_t mtu_enum);
std::string rate_unit_form(std::uint8_t rate_enum);

}  // namespace ibsm::partitions
