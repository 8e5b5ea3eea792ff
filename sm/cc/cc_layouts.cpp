#include "sm/cc/cc_layouts.hpp"

#include <algorithm>
#include <cstdio>

#include "sm/cc/errors.hpp"

namespace ibsm::sm::cc {
namespace {

// Big-endian bit fields, as IBA draws them: bit 0 is the MSB of byte 0.
void put(std::span<std::uint8_t> d, std::size_t bit, std::size_t bits, std::uint64_t v) {
  for (std::size_t i = 0; i < bits; ++i) {
    const std::size_t at = bit + i;
    const auto mask = static_cast<std::uint8_t>(0x80u >> (at % 8));
    if ((v >> (bits - 1 - i)) & 1u)
      d[at / 8] |= mask;
    else
      d[at / 8] &= static_cast<std::uint8_t>(~mask);
  }
}

std::uint64_t get(std::span<const std::uint8_t> d, std::size_t bit, std::size_t bits) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < bits; ++i) {
    const std::size_t at = bit + i;
    v = (v << 1) | ((d[at / 8] >> (7 - at % 8)) & 1u);
  }
  return v;
}

void put(std::span<std::uint8_t> d, const CcField& f, std::uint64_t v, std::size_t base = 0) {
  put(d, base * 8 + f.bit, f.bits, v);
}
std::uint64_t get(std::span<const std::uint8_t> d, const CcField& f, std::size_t base = 0) {
  return get(d, base * 8 + f.bit, f.bits);
}

std::uint16_t shift_mult(const conf::ShiftMultiplier& s) {
  return static_cast<std::uint16_t>((s.shift & 0x3u) << 14 | (s.multiplier & 0x3fffu));
}
conf::ShiftMultiplier shift_mult(std::uint64_t v) {
  return {static_cast<std::uint8_t>(v >> 14 & 0x3u), static_cast<std::uint16_t>(v & 0x3fffu)};
}

void put_bytes(std::span<std::uint8_t> d, const CcField& f, const std::array<std::uint8_t, 32>& b) {
  std::copy(b.begin(), b.end(), d.begin() + f.bit / 8);
}
std::array<std::uint8_t, 32> get_bytes(std::span<const std::uint8_t> d, const CcField& f) {
  std::array<std::uint8_t, 32> out{};
  std::copy_n(d.begin() + f.bit / 8, out.size(), out.begin());
  return out;
}
static_assert(sw::kVictimMask.bit % 8 == 0 && sw::kVictimMask.bits == 32 * 8);

void put_be(std::span<std::uint8_t> d, std::size_t offset, std::size_t bytes, std::uint64_t v) {
  put(d, offset * 8, bytes * 8, v);
}

}  // namespace

std::string_view cc_attr_name(CcAttr a) {
  switch (a) {
    case CcAttr::kSwitchCongestionSetting:
      return "SwitchCongestionSetting";
    case CcAttr::kSwitchPortCongestionSetting:
      return "SwitchPortCongestionSetting";
    case CcAttr::kCaCongestionSetting:
      return "CACongestionSetting";
    case CcAttr::kCongestionControlTable:
      return "CongestionControlTable";
  }
  return "?";
}

CcData encode(const SwitchCongestionSetting& s) {
  CcData d{};
  put(d, sw::kControlMap, s.control_map);
  put_bytes(d, sw::kVictimMask, s.victim_mask);
  put_bytes(d, sw::kCreditMask, s.credit_mask);
  put(d, sw::kThreshold, s.threshold);
  put(d, sw::kPacketSize, s.packet_size);
  put(d, sw::kCsThreshold, s.cs_threshold);
  put(d, sw::kCsReturnDelay, shift_mult(s.cs_return_delay));
  put(d, sw::kMarkingRate, s.marking_rate);
  return d;
}

SwitchCongestionSetting decode_switch_setting(const CcData& d) {
  SwitchCongestionSetting s;
  s.control_map = static_cast<std::uint32_t>(get(d, sw::kControlMap));
  s.victim_mask = get_bytes(d, sw::kVictimMask);
  s.credit_mask = get_bytes(d, sw::kCreditMask);
  s.threshold = static_cast<std::uint8_t>(get(d, sw::kThreshold));
  s.packet_size = static_cast<std::uint8_t>(get(d, sw::kPacketSize));
  s.cs_threshold = static_cast<std::uint8_t>(get(d, sw::kCsThreshold));
  s.cs_return_delay = shift_mult(get(d, sw::kCsReturnDelay));
  s.marking_rate = static_cast<std::uint16_t>(get(d, sw::kMarkingRate));
  return s;
}

CcData encode(const CaCongestionSetting& s) {
  CcData d{};
  put(d, ca::kPortControl, s.port_control);
  put(d, ca::kControlMap, s.control_map);
  for (std::size_t i = 0; i < s.entries.size(); ++i) {
    const std::size_t base = ca::kEntryOffset + i * ca::kEntryBytes;
    const CaCongestionEntry& e = s.entries[i];
    put(d, ca::kCctiTimer, e.ccti_timer, base);
    put(d, ca::kCctiIncrease, e.ccti_increase, base);
    put(d, ca::kTriggerThreshold, e.trigger_threshold, base);
    put(d, ca::kCctiMin, e.ccti_min, base);
  }
  return d;
}

CaCongestionSetting decode_ca_setting(const CcData& d) {
  CaCongestionSetting s;
  s.port_control = static_cast<std::uint16_t>(get(d, ca::kPortControl));
  s.control_map = static_cast<std::uint16_t>(get(d, ca::kControlMap));
  for (std::size_t i = 0; i < s.entries.size(); ++i) {
    const std::size_t base = ca::kEntryOffset + i * ca::kEntryBytes;
    CaCongestionEntry& e = s.entries[i];
    e.ccti_timer = static_cast<std::uint16_t>(get(d, ca::kCctiTimer, base));
    e.ccti_increase = static_cast<std::uint8_t>(get(d, ca::kCctiIncrease, base));
    e.trigger_threshold = static_cast<std::uint8_t>(get(d, ca::kTriggerThreshold, base));
    e.ccti_min = static_cast<std::uint8_t>(get(d, ca::kCctiMin, base));
  }
  return s;
}

CcData encode(const CctBlock& b) {
  CcData d{};
  put(d, cct::kCctiLimit, b.ccti_limit);
  for (std::size_t i = 0; i < b.entries.size(); ++i)
    put_be(d, cct::kEntryOffset + 2 * i, 2, shift_mult(b.entries[i]));
  return d;
}

CctBlock decode_cct_block(const CcData& d) {
  CctBlock b;
  b.ccti_limit = static_cast<std::uint16_t>(get(d, cct::kCctiLimit));
  for (std::size_t i = 0; i < b.entries.size(); ++i)
    b.entries[i] = shift_mult(get(d, (cct::kEntryOffset + 2 * i) * 8, 16));
  return b;
}

std::array<std::uint8_t, kCcMadSize> build_cc_set(const CcRequest& r) {
  std::array<std::uint8_t, kCcMadSize> m{};
  m[0] = 1;  // BaseVersion
  m[1] = kClassCongestionControl;
  m[2] = kCcClassVersion;
  m[3] = 0x02;  // Set
  put_be(m, 8, 8, r.tid);
  put_be(m, 16, 2, static_cast<std::uint16_t>(r.attr));
  put_be(m, 20, 4, r.attr_mod);
  put_be(m, kCcKeyOffset, 8, r.cc_key);
  std::copy(r.data.begin(), r.data.end(), m.begin() + kCcDataOffset);
  return m;
}

Result<CcAnswer> parse_cc_answer(std::span<const std::uint8_t> mad) {
  if (mad.size() < kCcMadSize)
    return fail(kErrCcBadAnswer, "answer of " + std::to_string(mad.size()) + " bytes, not 256");
  if (mad[0] != 1 || mad[1] != kClassCongestionControl || mad[2] != kCcClassVersion) {
    char what[96];
    std::snprintf(what, sizeof what, "answer is base version %u class 0x%02x version %u", mad[0],
                  mad[1], mad[2]);
    return fail(kErrCcBadAnswer, std::string(what) + ", not a CC (0x21 version 2) MAD");
  }
  if (mad[3] != 0x81)
    return fail(kErrCcBadAnswer, "answer has method " + std::to_string(mad[3]) + ", not GetResp");
  CcAnswer a;
  a.status = static_cast<std::uint16_t>(get(mad, 4 * 8, 16));
  a.tid_low = static_cast<std::uint32_t>(get(mad, 12 * 8, 32));
  a.raw_attr = static_cast<std::uint16_t>(get(mad, 16 * 8, 16));
  a.attr = static_cast<CcAttr>(a.raw_attr);
  a.attr_mod = static_cast<std::uint32_t>(get(mad, 20 * 8, 32));
  a.cc_key = get(mad, kCcKeyOffset * 8, 64);
  std::copy_n(mad.begin() + kCcDataOffset, kCcDataSize, a.data.begin());
  return a;
}

}  // namespace ibsm::sm::cc
