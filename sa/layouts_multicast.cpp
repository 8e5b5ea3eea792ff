// The wire layout of the multicast family (IBA 15.2.5.17), field by field in record
// order, so field i is ComponentMask bit i (OpenSM's IB_MCR_COMPMASK_* numbering:
// 0 MGID ... 4 MTUSelector, 5 MTU ... 16 JoinState, 17 ProxyJoin). Sizes are pinned
// by static_assert.
#include <array>

#include "sa/record_layout.hpp"
#include "sa/sa_mad.hpp"
#include "wire/sa_records.hpp"

namespace ibsm::sa {

namespace {

// The fields the agent also reads take their place from wire/sa_records.hpp.
namespace mcm = wire::mcmember;
constexpr std::uint16_t bit_of(std::size_t byte) {
  return static_cast<std::uint16_t>(byte * 8);
}

// MCMemberRecord: 52 bytes on the wire, 56 with padding (AttributeOffset 7).
constexpr std::array<Field, 19> kMcMemberRecord = {{
    {"MGID", bit_of(mcm::kMgid), 128},
    {"PortGID", 128, 128},
    {"Q_Key", 256, 32},
    {"MLID", 288, 16},
    {"MTUSelector", bit_of(mcm::kMtu), 2},
    {"MTU", bit_of(mcm::kMtu) + 2, 6},
    {"TClass", 312, 8},
    {"P_Key", 320, 16},
    {"RateSelector", bit_of(mcm::kRate), 2},
    {"Rate", bit_of(mcm::kRate) + 2, 6},
    {"PacketLifeTimeSelector", 344, 2},
    {"PacketLifeTime", 346, 6},
    {"SL", 352, 4},
    {"FlowLabel", 356, 20},
    {"HopLimit", 376, 8},
    {"Scope", 384, 4},
    {"JoinState", 388, 4},
    // IBA puts ProxyJoin in the top bit of byte 49 (bit 392). OpenSM and
    // infiniband-diags (saquery -X, osmtest) declare it as a C bit-field, which on the
    // little-endian hosts they run on is the low bit of byte 49; they are the only
    // clients that ever set it (the kernel never does), so ibsm reads and writes it
    // where they do. The seven bits before it stay reserved, unnamed.
    {"ProxyJoin", 399, 1},
    {"Reserved", 400, 16},
}};
static_assert(kMcMemberRecord.back().bit_offset + kMcMemberRecord.back().bit_width ==
              bit_of(mcm::kSize));

constexpr std::array kMulticastLayouts = {
    RecordLayout{attr::kMcMemberRecord, "MCMemberRecord", mcm::kSize, kMcMemberRecord},
};

}  // namespace

std::span<const RecordLayout> multicast_layouts() {
  return kMulticastLayouts;
}

}  // namespace ibsm::sa
