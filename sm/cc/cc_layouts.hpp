// The Congestion Control class (0x21, class version 2; IBA vol. 1 Annex A10) as it
// goes on the wire: the MAD (common header, CC_Key, CongestionLogData, 192 data
// bytes; A10.4.1) and the four attributes the SM Sets, as OpenSM's
// osm_congestion_control.c sends them.
//
// Every field is one row of a descriptor (bit offset and width within the data
// area, big-endian as IBA draws them), pinned below by static_assert to Annex A10's
// tables. encode_* walk the rows; decode_* read them back. The tests decode what
// encode_* wrote with libibmad's IB_CC_* field tables, a decoder written by others.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "common/result.hpp"
#include "conf/cc_values.hpp"

namespace ibsm::sm::cc {

inline constexpr std::uint8_t kClassCongestionControl = 0x21;
inline constexpr std::uint8_t kCcClassVersion = 2;
inline constexpr std::size_t kCcMadSize = 256;
inline constexpr std::size_t kCcKeyOffset = 24;      // A10.4.1: after the 24-byte common header
inline constexpr std::size_t kCcLogDataOffset = 32;  // CongestionLogData, 32 bytes (zero in Sets)
inline constexpr std::size_t kCcDataOffset = 64;
inline constexpr std::size_t kCcDataSize = kCcMadSize - kCcDataOffset;  // 192

enum class CcAttr : std::uint16_t {
  kSwitchCongestionSetting = 0x14,      // A10.4.3.3
  kSwitchPortCongestionSetting = 0x15,  // A10.4.3.4
  kCaCongestionSetting = 0x16,          // A10.4.3.5
  kCongestionControlTable = 0x17,       // A10.4.3.9
};
std::string_view cc_attr_name(CcAttr a);

using CcData = std::array<std::uint8_t, kCcDataSize>;

// One field: where it lives in the data area (or within one element of a table).
struct CcField {
  std::string_view name;
  std::uint16_t bit;   // offset from the start of the data area (element), MSB first
  std::uint16_t bits;  // width
};

// SwitchCongestionSetting (A10.4.3.3), 76 bytes.
namespace sw {
inline constexpr CcField kControlMap{"Control_Map", 0, 32};
inline constexpr CcField kVictimMask{"Victim_Mask", 32, 256};
inline constexpr CcField kCreditMask{"Credit_Mask", 288, 256};
inline constexpr CcField kThreshold{"Threshold", 544, 4};
inline constexpr CcField kPacketSize{"Packet_Size", 552, 8};
inline constexpr CcField kCsThreshold{"CS_Threshold", 560, 4};
inline constexpr CcField kCsReturnDelay{"CS_ReturnDelay", 576, 16};  // shift 2 | multiplier 14
inline constexpr CcField kMarkingRate{"Marking_Rate", 592, 16};
inline constexpr std::size_t kBytes = 76;
static_assert(kCreditMask.bit == kVictimMask.bit + kVictimMask.bits);
static_assert(kThreshold.bit == 68 * 8 && kPacketSize.bit == 69 * 8 && kCsThreshold.bit == 70 * 8);
static_assert(kCsReturnDelay.bit == 72 * 8 && (kMarkingRate.bit + kMarkingRate.bits) / 8 == kBytes);
}  // namespace sw

// CACongestionSetting (A10.4.3.5): Port_Control, Control_Map, then 16 entries of
// 8 bytes (one per SL) from byte 4; 132 bytes.
namespace ca {
inline constexpr CcField kPortControl{"Port_Control", 0, 16};
inline constexpr CcField kControlMap{"Control_Map", 16, 16};
inline constexpr std::size_t kEntryOffset = 4;
inline constexpr std::size_t kEntryBytes = 8;
inline constexpr CcField kCctiTimer{"CCTI_Timer", 0, 16};  // within an entry
inline constexpr CcField kCctiIncrease{"CCTI_Increase", 16, 8};
inline constexpr CcField kTriggerThreshold{"Trigger_Threshold", 24, 8};
inline constexpr CcField kCctiMin{"CCTI_Min", 32, 8};
inline constexpr std::size_t kBytes = kEntryOffset + conf::kCcSls * kEntryBytes;
static_assert(kBytes == 132 && kBytes <= kCcDataSize);
static_assert(kCctiMin.bit + kCctiMin.bits + 24 == kEntryBytes * 8,
              "24 reserved bits close an entry");
}  // namespace ca

// CongestionControlTable (A10.4.3.9): CCTI_Limit, 16 reserved bits, 64 entries of
// shift (2) | multiplier (14); attribute modifier = block (entries 64*block..).
namespace cct {
inline constexpr CcField kCctiLimit{"CCTI_Limit", 0, 16};
inline constexpr std::size_t kEntryOffset = 4;
inline constexpr std::size_t kEntriesPerBlock = 64;
inline constexpr std::size_t kBytes = kEntryOffset + kEntriesPerBlock * 2;
static_assert(kBytes == 132 && kBytes <= kCcDataSize);
static_assert(conf::kMaxCctEntries % kEntriesPerBlock == 0);
}  // namespace cct

struct SwitchCongestionSetting {
  std::uint32_t control_map = 0;
  std::array<std::uint8_t, 32> victim_mask{};  // most significant byte first
  std::array<std::uint8_t, 32> credit_mask{};
  std::uint8_t threshold = 0;
  std::uint8_t packet_size = 0;
  std::uint8_t cs_threshold = 0;
  conf::ShiftMultiplier cs_return_delay;
  std::uint16_t marking_rate = 0;
  bool operator==(const SwitchCongestionSetting&) const = default;
};

struct CaCongestionEntry {
  std::uint16_t ccti_timer = 0;
  std::uint8_t ccti_increase = 0;
  std::uint8_t trigger_threshold = 0;
  std::uint8_t ccti_min = 0;
  bool operator==(const CaCongestionEntry&) const = default;
};

struct CaCongestionSetting {
  std::uint16_t port_control = 0;
  std::uint16_t control_map = 0;
  std::array<CaCongestionEntry, conf::kCcSls> entries{};
  bool operator==(const CaCongestionSetting&) const = default;
};

struct CctBlock {
  std::uint16_t ccti_limit = 0;
  std::array<conf::ShiftMultiplier, cct::kEntriesPerBlock> entries{};
  bool operator==(const CctBlock&) const = default;
};

CcData encode(const SwitchCongestionSetting& s);
CcData encode(const CaCongestionSetting& s);
CcData encode(const CctBlock& b);
SwitchCongestionSetting decode_switch_setting(const CcData& d);
CaCongestionSetting decode_ca_setting(const CcData& d);
CctBlock decode_cct_block(const CcData& d);

// A whole Set MAD (method 0x02, base version 1, class 0x21 version 2).
struct CcRequest {
  CcAttr attr = CcAttr::kSwitchCongestionSetting;
  std::uint32_t attr_mod = 0;
  std::uint64_t cc_key = 0;
  std::uint64_t tid = 0;
  CcData data{};
};
std::array<std::uint8_t, kCcMadSize> build_cc_set(const CcRequest& r);

// What a node answered: checked as a CC GetResp to a Set (A10.4.1), else an error
// naming what is wrong (the wrong layout of the brief: short, another class or
// version, not a response).
struct CcAnswer {
  std::uint16_t status = 0;  // MAD status (13.4.7); bits 2-4: unsupported class/method/attr
  CcAttr attr = CcAttr::kSwitchCongestionSetting;
  std::uint16_t raw_attr = 0;
  std::uint32_t attr_mod = 0;
  std::uint32_t tid_low = 0;
  std::uint64_t cc_key = 0;
  CcData data{};
};
Result<CcAnswer> parse_cc_answer(std::span<const std::uint8_t> mad);

}  // namespace ibsm::sm::cc
