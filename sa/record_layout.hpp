// One description per SA record drives matching, building and dumping.
//
// A RecordLayout lists a record's fields in wire order, reserved fields included,
// so that field i is exactly ComponentMask bit i (IBA 15.2.5: "the component mask
// bit of a field is its position in the record"). Matching a query against a
// candidate record is then one generic loop: every field whose bit is set must be
// equal in both. Records are kept as their wire bytes; typed values go in and out
// through get_field/set_field.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ibsm::sa {

struct Field {
  std::string_view name;
  std::uint16_t bit_offset = 0;  // from the record's first byte, most significant bit first
  std::uint16_t bit_width = 0;   // fields wider than 64 bits are byte-aligned (GIDs, names)
};

// Fields are contiguous: every field starts where the previous one ended, so no bit of
// the record is left without a component-mask bit. Layouts static_assert it.
template <std::size_t N>
constexpr bool contiguous(const std::array<Field, N>& f) {
  for (std::size_t i = 1; i < N; ++i)
    if (f[i].bit_offset != f[i - 1].bit_offset + f[i - 1].bit_width) return false;
  return f[0].bit_offset == 0;
}

struct RecordLayout {
  std::uint16_t attr_id = 0;
  std::string_view name;
  std::uint16_t size = 0;  // bytes on the wire before padding to 8
  std::span<const Field> fields;

  std::uint16_t words() const { return static_cast<std::uint16_t>((size + 7) / 8); }
  std::size_t padded_size() const { return std::size_t{words()} * 8; }
};

// The layout of an SA attribute, or nullptr for one without records here.
const RecordLayout* find_layout(std::uint16_t attr_id);

// The layouts, by record family (one file each: sa/layouts_<family>.cpp).
std::span<const RecordLayout> topology_layouts();   // node, port, switch, link, table records
std::span<const RecordLayout> path_layouts();       // PathRecord, MultiPathRecord, TraceRecord
std::span<const RecordLayout> service_layouts();    // ServiceRecord, InformInfo(Record)
std::span<const RecordLayout> multicast_layouts();  // MCMemberRecord
std::span<const RecordLayout> table_layouts();      // P_KeyTable, SL2VL, VLArbitration records

// Reads/writes a field of at most 64 bits (big-endian, IBA bit order).
std::uint64_t get_field(std::span<const std::uint8_t> record, const Field& f);
void set_field(std::span<std::uint8_t> record, const Field& f, std::uint64_t value);
// Equality of one field of any width in two records.
bool field_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, const Field& f);

// True when every field selected by comp_mask is equal in query and candidate.
// Bits beyond the layout's fields select nothing (a client's stray bits never
// make a record disappear, as with OpenSM, which tests only the bits it knows).
bool matches(const RecordLayout& layout, std::span<const std::uint8_t> query,
             std::span<const std::uint8_t> candidate, std::uint64_t comp_mask);

// "name: value" lines, one per non-reserved field (hex), for logs and tests.
std::string dump_record(const RecordLayout& layout, std::span<const std::uint8_t> record);

}  // namespace ibsm::sa
