// One description per PerfMgt wire attribute: each attribute struct lists its
// fields once (name as in IBA, bit offset, width, member), and encode, decode and
// dump walk that list. The layouts are pinned at compile time by static_assert
// (fields in wire order, no overlap, inside the attribute's size), so an edited
// offset fails the build rather than the fabric. tests/unit/perfmgr checks them
// against libibmad's independent IB_PC_* / IB_CPI_* field tables.
//
// Bits are numbered as in IBA 16.1.1: bit 0 is the most significant bit of byte 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "perfmgr/errors.hpp"

namespace ibsm::perfmgr {

template <class A>
struct WireField {
  std::string_view name;  // IBA's name (what the dumps print)
  std::uint16_t bit = 0;  // offset from the start of the attribute
  std::uint8_t width = 0;
  std::uint64_t A::*member = nullptr;
};

// The layout rule every table must keep; checked by static_assert next to each table.
template <class A, std::size_t N>
constexpr bool layout_is_sound(const WireField<A> (&fields)[N], std::size_t bytes) {
  unsigned end = 0;
  for (const auto& f : fields) {
    if (f.width == 0 || f.width > 64 || f.bit < end) return false;
    // A field wider than 8 bits starts on a byte boundary (IBA never splits them otherwise).
    if (f.width > 8 && f.bit % 8 != 0 && f.width % 8 == 0) return false;
    end = f.bit + f.width;
  }
  return end <= bytes * 8;
}

// Big-endian bit access (IBA bit order).
std::uint64_t get_bits(std::span<const std::uint8_t> data, unsigned bit, unsigned width);
void set_bits(std::span<std::uint8_t> data, unsigned bit, unsigned width, std::uint64_t value);

template <class A>
Result<A> decode_attribute(std::span<const std::uint8_t> data) {
  if (data.size() < A::kBytes) {
    return fail(kErrPmMalformed, std::string(A::kName) + ": " + std::to_string(data.size()) +
                                     " bytes, needs " + std::to_string(A::kBytes));
  }
  A a{};
  for (const auto& f : A::kFields)
    a.*f.member = get_bits(data, f.bit, f.width);
  return a;
}

// Writes `a` over the first A::kBytes of `out` (the rest is left alone).
template <class A>
void encode_attribute(const A& a, std::span<std::uint8_t> out) {
  for (std::size_t i = 0; i < A::kBytes && i < out.size(); ++i)
    out[i] = 0;
  for (const auto& f : A::kFields)
    set_bits(out, f.bit, f.width, a.*f.member);
}

// "Name:....value" lines, one per field, as perfquery prints them.
template <class A>
std::string dump_attribute(const A& a) {
  std::string out;
  for (const auto& f : A::kFields) {
    std::string line(f.name);
    line += ':';
    while (line.size() < 33)
      line += '.';
    out += line + std::to_string(a.*f.member) + '\n';
  }
  return out;
}

}  // namespace ibsm::perfmgr
