// The wire layout of the topology records (IBA 15.2.5), field by field in record
// order, so field i is ComponentMask bit i. Sizes are pinned by static_assert.
#include <array>

#include "sa/record_layout.hpp"
#include "sa/sa_mad.hpp"

namespace ibsm::sa {

namespace {

// NodeRecord (15.2.5.2): LID, reserved, NodeInfo (14.2.5.3), NodeDescription.
constexpr std::array<Field, 15> kNodeRecord = {{
    {"LID", 0, 16},
    {"Reserved1", 16, 16},
    {"BaseVersion", 32, 8},
    {"ClassVersion", 40, 8},
    {"NodeType", 48, 8},
    {"NumPorts", 56, 8},
    {"SystemImageGUID", 64, 64},
    {"NodeGUID", 128, 64},
    {"PortGUID", 192, 64},
    {"PartitionCap", 256, 16},
    {"DeviceID", 272, 16},
    {"Revision", 288, 32},
    {"LocalPortNum", 320, 8},
    {"VendorID", 328, 24},
    {"NodeDescription", 352, 512},
}};
static_assert(kNodeRecord.back().bit_offset + kNodeRecord.back().bit_width == 108 * 8);

constexpr std::array kLayouts = {
    RecordLayout{attr::kNodeRecord, "NodeRecord", 108, kNodeRecord},
};

}  // namespace

std::span<const RecordLayout> topology_layouts() { return kLayouts; }

}  // namespace ibsm::sa
