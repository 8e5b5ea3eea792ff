// The wire layout of the table records (IBA 15.2.5.4, 15.2.5.9, 15.2.5.11), field by
// field in record order, so field i is ComponentMask bit i: OpenSM's
// IB_SLVL_COMPMASK_*, IB_PKEY_COMPMASK_* and IB_VLA_COMPMASK_* number them the same
// way. Sizes are pinned by static_assert.
#include <array>

#include "sa/record_layout.hpp"
#include "sa/sa_mad.hpp"

namespace ibsm::sa {

namespace {

// SLtoVLMappingTableRecord (15.2.5.4): for a CA the ports read 0.
constexpr std::array<Field, 5> kSl2VlRecord = {{
    {"LID", 0, 16},
    {"InputPortNum", 16, 8},
    {"OutputPortNum", 24, 8},
    {"Reserved", 32, 32},
    {"SLtoVLMappingTable", 64, 64},
}};
static_assert(kSl2VlRecord.back().bit_offset + kSl2VlRecord.back().bit_width == 16 * 8);

// P_KeyTableRecord (15.2.5.11): PortNum is the switch port (a CA's own port number).
constexpr std::array<Field, 5> kPKeyTableRecord = {{
    {"LID", 0, 16},
    {"BlockNum", 16, 16},
    {"PortNum", 32, 8},
    {"Reserved", 40, 24},
    {"P_KeyTable", 64, 512},
}};
static_assert(kPKeyTableRecord.back().bit_offset + kPKeyTableRecord.back().bit_width == 72 * 8);

// VLArbitrationTableRecord (15.2.5.9): BlockNum 1-4 as in the SMP's attribute modifier.
constexpr std::array<Field, 5> kVlArbRecord = {{
    {"LID", 0, 16},
    {"OutputPortNum", 16, 8},
    {"BlockNum", 24, 8},
    {"Reserved", 32, 32},
    {"VLArbitrationTable", 64, 512},
}};
static_assert(kVlArbRecord.back().bit_offset + kVlArbRecord.back().bit_width == 72 * 8);

constexpr std::array kTableLayouts = {
    RecordLayout{attr::kSlToVlTableRecord, "SLtoVLMappingTableRecord", 16, kSl2VlRecord},
    RecordLayout{attr::kPKeyTableRecord, "P_KeyTableRecord", 72, kPKeyTableRecord},
    RecordLayout{attr::kVlArbTableRecord, "VLArbitrationTableRecord", 72, kVlArbRecord},
};

}  // namespace

std::span<const RecordLayout> table_layouts() {
  return kTableLayouts;
}

}  // namespace ibsm::sa
