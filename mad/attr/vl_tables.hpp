// SLtoVLMappingTable (IBA 14.2.5.8) and VLArbitrationTable (IBA 14.2.5.9): the two
// per-port tables that decide which virtual lane a packet uses and how the lanes
// share the link.
//
// SLtoVLMappingTable: 16 four-bit VLs, SL0 in the high nibble of byte 0. A CA
// port has one table; a switch has one per (input port, output port) pair,
// attribute modifier bits 15-8 = input port, bits 7-0 = output port (bits 16-17,
// "all input/output ports", are only for Sets on switches with
// OptimizedSLtoVLMappingProgramming).
//
// VLArbitrationTable: 32 entries of (4 reserved bits, 4-bit VL, 8-bit weight) per
// block. Attribute modifier bits 31-16 = block: 1 low priority entries 0-31, 2 low
// 32-63, 3 high priority 0-31, 4 high 32-63; bits 15-0 = output port (switches).
//
// Both are header-only: the codecs are byte copies with the reserved bits cleared.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>

#include "mad/attribute_codec.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

// PortInfo.CapabilityMask bit 6, IsSLMappingSupported (IBA 14.2.5.6 table 156): the
// port implements SLtoVLMappingTable. For a switch, port 0's mask speaks for all ports.
inline constexpr std::uint32_t kCapIsSlMappingSupported = 1u << 6;

struct SlToVlTable {
  static constexpr AttrId kAttrId = AttrId::kSlToVlTable;
  static constexpr const char* kName = "SLtoVLMappingTable";
  static constexpr std::size_t kSls = 16;

  std::array<std::uint8_t, kSls> vl{};  // by SL, 0-15 (15: drop)

  // The 64-bit form records carry (IBA 15.2.5.4): SL0 in bits 63-60.
  std::uint64_t packed() const {
    std::uint64_t v = 0;
    for (std::uint8_t x : vl)
      v = (v << 4) | (x & 0xfu);
    return v;
  }
  static SlToVlTable from_packed(std::uint64_t v) {
    SlToVlTable t;
    for (std::size_t sl = 0; sl < kSls; ++sl)
      t.vl[sl] = static_cast<std::uint8_t>((v >> (4 * (kSls - 1 - sl))) & 0xfu);
    return t;
  }

  static void encode_payload(const SlToVlTable& t, Payload out) {
    for (std::size_t i = 0; i < kSls / 2; ++i)
      out[i] = static_cast<std::uint8_t>(((t.vl[2 * i] & 0xfu) << 4) | (t.vl[2 * i + 1] & 0xfu));
  }
  static SlToVlTable decode_payload(ConstPayload in) {
    SlToVlTable t;
    for (std::size_t i = 0; i < kSls / 2; ++i) {
      t.vl[2 * i] = static_cast<std::uint8_t>(in[i] >> 4);
      t.vl[2 * i + 1] = static_cast<std::uint8_t>(in[i] & 0xfu);
    }
    return t;
  }
  static std::string describe(const SlToVlTable& t) {
    std::string s = "SL->VL:";
    char buf[8];
    for (std::uint8_t x : t.vl) {
      std::snprintf(buf, sizeof buf, " %u", static_cast<unsigned>(x));
      s += buf;
    }
    return s;
  }
};

inline constexpr std::uint32_t sl2vl_attr_mod(PortNum in_port, PortNum out_port) {
  return (static_cast<std::uint32_t>(in_port) << 8) | out_port;
}

// Attribute modifier bits of an SLtoVLMappingTable Set on a switch advertising
// SwitchInfo.OptimizedSLtoVLMappingProgramming (IBA 14.2.5.8, as OpenSM's osm_qos.c
// uses them): bit 17, the table applies to every input port (the input field is
// ignored); bit 16, to every output port.
inline constexpr std::uint32_t kSl2VlAllInputPorts = 1u << 17;
inline constexpr std::uint32_t kSl2VlAllOutputPorts = 1u << 16;

// The modifier of one Set for every input port of `out_port`.
inline constexpr std::uint32_t sl2vl_all_inputs_attr_mod(PortNum out_port) {
  return kSl2VlAllInputPorts | out_port;
}

// SwitchInfo.OptimizedSLtoVLMappingProgramming bit 0 (the field's low bit, as OpenSM
// tests it): the switch takes the modifier bits above.
inline constexpr bool optimized_sl2vl_programming(std::uint8_t switch_info_field) {
  return (switch_info_field & 1u) != 0;
}

struct VlArbBlock {
  static constexpr AttrId kAttrId = AttrId::kVlArbitration;
  static constexpr const char* kName = "VLArbitrationTable";
  static constexpr std::size_t kEntries = 32;
  static constexpr unsigned kBlocks = 4;  // numbered 1..4

  struct Entry {
    std::uint8_t vl = 0;  // 4 bits
    std::uint8_t weight = 0;
    bool operator==(const Entry&) const = default;
  };
  std::array<Entry, kEntries> entries{};

  static void encode_payload(const VlArbBlock& b, Payload out) {
    for (std::size_t i = 0; i < kEntries; ++i) {
      out[2 * i] = static_cast<std::uint8_t>(b.entries[i].vl & 0xfu);
      out[2 * i + 1] = b.entries[i].weight;
    }
  }
  static VlArbBlock decode_payload(ConstPayload in) {
    VlArbBlock b;
    for (std::size_t i = 0; i < kEntries; ++i)
      b.entries[i] = {static_cast<std::uint8_t>(in[2 * i] & 0xfu), in[2 * i + 1]};
    return b;
  }
  static std::string describe(const VlArbBlock& b) {
    std::string s;
    char buf[16];
    for (std::size_t i = 0; i < kEntries; ++i) {
      std::snprintf(buf, sizeof buf, "%u:%u%c", static_cast<unsigned>(b.entries[i].vl),
                    static_cast<unsigned>(b.entries[i].weight), (i % 8 == 7) ? '\n' : ' ');
      s += buf;
    }
    return s;
  }
};

static_assert(VlArbBlock::kEntries * 2 == kSmpDataSize, "32 entries of 2 bytes fill the data area");

inline constexpr std::uint32_t vlarb_attr_mod(unsigned block, PortNum switch_port) {
  return (static_cast<std::uint32_t>(block) << 16) | switch_port;
}

// Whether a port holds VLArbitrationTable block 1-4, from its PortInfo (IBA 14.2.5.9,
// 14.2.5.6): the table exists only with more than one data VL (VLCap > 1), and each
// priority's entries fill block 1 or 3 first, the second block only beyond 32 entries.
inline bool vlarb_block_exists(std::uint8_t vl_cap, std::uint8_t low_cap, std::uint8_t high_cap,
                               unsigned block) {
  if (vl_cap <= 1 || block < 1 || block > VlArbBlock::kBlocks) return false;
  const unsigned cap = block <= 2 ? low_cap : high_cap;
  return block % 2 == 1 ? cap > 0 : cap > VlArbBlock::kEntries;
}

}  // namespace ibsm::mad
