// The wire layout of the path family (IBA 15.2.5.16 PathRecord, 15.2.5.20
// TraceRecord, 15.2.5.21 MultiPathRecord), field by field in record order so that
// field i is ComponentMask bit i — the numbering of OpenSM's IB_PR_COMPMASK_* and
// IB_MPR_COMPMASK_* (ib_types.h) and of the kernel's sa_query.c tables.
#include <array>

#include "sa/record_layout.hpp"
#include "sa/sa_mad.hpp"

namespace ibsm::sa {

namespace {

// True when the fields follow each other without gap or overlap and end at `bytes`.
template <std::size_t N>
constexpr bool tiles(const std::array<Field, N>& fields, unsigned bytes) {
  unsigned at = 0;
  for (const Field& f : fields) {
    if (f.bit_offset != at) return false;
    at += f.bit_width;
  }
  return at == bytes * 8;
}

// PathRecord: 64 bytes (8 words). ServiceID takes two mask bits (IBA 1.2: the
// former reserved words), split 8/56 like MultiPathRecord's.
constexpr std::array<Field, 24> kPathRecord = {{
    {"ServiceID8MSB", 0, 8},             // 0
    {"ServiceID56LSB", 8, 56},           // 1
    {"DGID", 64, 128},                   // 2
    {"SGID", 192, 128},                  // 3
    {"DLID", 320, 16},                   // 4
    {"SLID", 336, 16},                   // 5
    {"RawTraffic", 352, 1},              // 6
    {"Reserved1", 353, 3},               // 7
    {"FlowLabel", 356, 20},              // 8
    {"HopLimit", 376, 8},                // 9
    {"TClass", 384, 8},                  // 10
    {"Reversible", 392, 1},              // 11
    {"NumbPath", 393, 7},                // 12
    {"P_Key", 400, 16},                  // 13
    {"QoSClass", 416, 12},               // 14
    {"SL", 428, 4},                      // 15
    {"MTUSelector", 432, 2},             // 16
    {"MTU", 434, 6},                     // 17
    {"RateSelector", 440, 2},            // 18
    {"Rate", 442, 6},                    // 19
    {"PacketLifeTimeSelector", 448, 2},  // 20
    {"PacketLifeTime", 450, 6},          // 21
    {"Preference", 456, 8},              // 22
    {"Reserved2", 464, 48},              // 23
}};
static_assert(tiles(kPathRecord, 64));

// MultiPathRecord: 24 bytes of constraints, then SGIDCount source GIDs followed by
// DGIDCount destination GIDs. OpenSM reads at most 11 GIDs (what fits one MAD), so
// the layout stops at 200 bytes.
constexpr std::array<Field, 23> kMultiPathRecord = {{
    {"RawTraffic", 0, 1},               // 0
    {"Reserved1", 1, 3},                // 1
    {"FlowLabel", 4, 20},               // 2
    {"HopLimit", 24, 8},                // 3
    {"TClass", 32, 8},                  // 4
    {"Reversible", 40, 1},              // 5
    {"NumbPath", 41, 7},                // 6
    {"P_Key", 48, 16},                  // 7
    {"QoSClass", 64, 12},               // 8
    {"SL", 76, 4},                      // 9
    {"MTUSelector", 80, 2},             // 10
    {"MTU", 82, 6},                     // 11
    {"RateSelector", 88, 2},            // 12
    {"Rate", 90, 6},                    // 13
    {"PacketLifeTimeSelector", 96, 2},  // 14
    {"PacketLifeTime", 98, 6},          // 15
    {"ServiceID8MSB", 104, 8},          // 16
    {"IndependenceSelector", 112, 2},   // 17
    {"Reserved2", 114, 6},              // 18
    {"SGIDCount", 120, 8},              // 19
    {"DGIDCount", 128, 8},              // 20
    {"ServiceID56LSB", 136, 56},        // 21
    {"SDGID", 192, 11 * 128},           // 22: the GID list
}};
static_assert(tiles(kMultiPathRecord, 200));

// TraceRecord: one per node on a path (IBA 15.2.5.20). 46 bytes of fields, padded
// to 48 on the wire (6 words).
constexpr std::array<Field, 10> kTraceRecord = {{
    {"GIDPrefix", 0, 64},      // 0
    {"IDGeneration", 64, 16},  // 1
    {"Reserved", 80, 8},       // 2
    {"NodeType", 88, 8},       // 3
    {"NodeID", 96, 64},        // 4
    {"ChassisID", 160, 64},    // 5
    {"EntryPortID", 224, 64},  // 6
    {"ExitPortID", 288, 64},   // 7
    {"EntryPort", 352, 8},     // 8
    {"ExitPort", 360, 8},      // 9
}};
static_assert(tiles(kTraceRecord, 46));

constexpr std::array kPathLayouts = {
    RecordLayout{attr::kPathRecord, "PathRecord", 64, kPathRecord},
    RecordLayout{attr::kMultiPathRecord, "MultiPathRecord", 200, kMultiPathRecord},
    RecordLayout{attr::kTraceRecord, "TraceRecord", 46, kTraceRecord},
};
static_assert((kPathLayouts[0].size + 7) / 8 == 8 && (kPathLayouts[2].size + 7) / 8 == 6);

}  // namespace

std::span<const RecordLayout> path_layouts() {
  return kPathLayouts;
}

}  // namespace ibsm::sa
