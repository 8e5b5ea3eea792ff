// The wire layout of the topology records (IBA 15.2.5), field by field in record
// order, so field i is ComponentMask bit i. Reserved fields are listed too: they
// take a bit each, and OpenSM's IB_*_COMPMASK_* numbering (ib_types.h) counts them,
// e.g. PortInfoRecord bit 19 is the 3 reserved bits before LMC. The embedded SMP
// attributes (PortInfo, SwitchInfo, SMInfo) follow libibmad's field offsets. Sizes
// are pinned by static_assert.
#include <array>

#include "sa/record_layout.hpp"
#include "sa/sa_mad.hpp"
#include "wire/sa_records.hpp"

namespace ibsm::sa {

namespace {

template <std::size_t N>
constexpr std::uint16_t end_bit(const std::array<Field, N>& f) {
  return static_cast<std::uint16_t>(f.back().bit_offset + f.back().bit_width);
}

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
static_assert(end_bit(kNodeRecord) == 108 * 8 && contiguous(kNodeRecord));

// PortInfoRecord (15.2.5.3): EndportLID, PortNum, Options, then PortInfo
// (14.2.5.6) at byte 4. Bits 0-57 as IB_PIR_COMPMASK_LID ... _LINKSPDEXTENAB. The
// fields the agent also reads take their place from wire/sa_records.hpp.
namespace pir = wire::port_info_record;
constexpr std::array<Field, 58> kPortInfoRecord = {{
    {"EndportLID", pir::kEndportLid * 8, 16},
    {"PortNum", 16, 8},
    {"Options", 24, 8},
    {"M_Key", 32, 64},
    {"GidPrefix", 96, 64},
    {"LID", 160, 16},
    {"MasterSMLID", 176, 16},
    {"CapabilityMask", 192, 32},
    {"DiagCode", 224, 16},
    {"M_KeyLeasePeriod", 240, 16},
    {"LocalPortNum", 256, 8},
    {"LinkWidthEnabled", 264, 8},
    {"LinkWidthSupported", 272, 8},
    {"LinkWidthActive", 280, 8},
    {"LinkSpeedSupported", 288, 4},
    {"PortState", 292, 4},
    {"PortPhysicalState", 296, 4},
    {"LinkDownDefaultState", 300, 4},
    {"M_KeyProtectBits", 304, 2},
    {"Reserved19", 306, 3},
    {"LMC", 309, 3},
    {"LinkSpeedActive", 312, 4},
    {"LinkSpeedEnabled", 316, 4},
    {"NeighborMTU", pir::kNeighborMtu * 8, 4},
    {"MasterSMSL", 324, 4},
    {"VLCap", 328, 4},
    {"InitType", 332, 4},
    {"VLHighLimit", 336, 8},
    {"VLArbitrationHighCap", 344, 8},
    {"VLArbitrationLowCap", 352, 8},
    {"InitTypeReply", 360, 4},
    {"MTUCap", 364, 4},
    {"VLStallCount", 368, 3},
    {"HOQLife", 371, 5},
    {"OperationalVLs", 376, 4},
    {"PartitionEnforcementInbound", 380, 1},
    {"PartitionEnforcementOutbound", 381, 1},
    {"FilterRawInbound", 382, 1},
    {"FilterRawOutbound", 383, 1},
    {"M_KeyViolations", 384, 16},
    {"P_KeyViolations", 400, 16},
    {"Q_KeyViolations", 416, 16},
    {"GUIDCap", 432, 8},
    {"ClientReregister", 440, 1},
    {"MulticastPKeyTrapSuppressionEnabled", 441, 2},
    {"SubnetTimeOut", 443, 5},
    {"Reserved46", 448, 3},
    {"RespTimeValue", 451, 5},
    {"LocalPhyErrors", 456, 4},
    {"OverrunErrors", 460, 4},
    {"MaxCreditHint", 464, 16},
    {"Reserved51", 480, 8},
    {"LinkRoundTripLatency", 488, 24},
    {"CapabilityMask2", 512, 16},
    {"LinkSpeedExtActive", 528, 4},
    {"LinkSpeedExtSupported", 532, 4},
    {"Reserved56", 536, 3},
    {"LinkSpeedExtEnabled", 539, 5},
}};
static_assert(end_bit(kPortInfoRecord) == pir::kSize * 8 && contiguous(kPortInfoRecord));

// SwitchInfoRecord (15.2.5.5): LID, reserved, SwitchInfo (14.2.5.4) at byte 4.
// OpenSM names bits 0 (LID) and 1 (reserved); the rest follow the attribute.
constexpr std::array<Field, 21> kSwitchInfoRecord = {{
    {"LID", 0, 16},
    {"Reserved1", 16, 16},
    {"LinearFDBCap", 32, 16},
    {"RandomFDBCap", 48, 16},
    {"MulticastFDBCap", 64, 16},
    {"LinearFDBTop", 80, 16},
    {"DefaultPort", 96, 8},
    {"DefaultMulticastPrimaryPort", 104, 8},
    {"DefaultMulticastNotPrimaryPort", 112, 8},
    {"LifeTimeValue", 120, 5},
    {"PortStateChange", 125, 1},
    {"OptimizedSLtoVLMappingProgramming", 126, 2},
    {"LIDsPerPort", 128, 16},
    {"PartitionEnforcementCap", 144, 16},
    {"InboundEnforcementCap", 160, 1},
    {"OutboundEnforcementCap", 161, 1},
    {"FilterRawInboundCap", 162, 1},
    {"FilterRawOutboundCap", 163, 1},
    {"EnhancedPort0", 164, 1},
    {"Reserved19", 165, 11},
    {"MulticastFDBTop", 176, 16},
}};
static_assert(end_bit(kSwitchInfoRecord) == 24 * 8 && contiguous(kSwitchInfoRecord));

// LinearForwardingTableRecord (15.2.5.6): LID, BlockNum, reserved, 64 entries.
constexpr std::array<Field, 4> kLftRecord = {{
    {"LID", 0, 16},
    {"BlockNum", 16, 16},
    {"Reserved2", 32, 32},
    {"LinearForwardingTable", 64, 512},
}};
static_assert(end_bit(kLftRecord) == 72 * 8 && contiguous(kLftRecord));

// MulticastForwardingTableRecord (15.2.5.8): LID, Position (4 bits), reserved,
// BlockNum (9 bits), reserved, 32 port masks of 16 bits. Bits as IB_MFTR_COMPMASK_*.
constexpr std::array<Field, 6> kMftRecord = {{
    {"LID", 0, 16},
    {"Position", 16, 4},
    {"Reserved1", 20, 3},
    {"BlockNum", 23, 9},
    {"Reserved2", 32, 32},
    {"MulticastForwardingTable", 64, 512},
}};
static_assert(end_bit(kMftRecord) == 72 * 8 && contiguous(kMftRecord));

// SMInfoRecord (15.2.5.9): LID, reserved, SMInfo (14.2.5.13) at byte 4.
constexpr std::array<Field, 7> kSmInfoRecord = {{
    {"LID", 0, 16},
    {"Reserved0", 16, 16},
    {"GUID", 32, 64},
    {"SM_Key", 96, 64},
    {"ActCount", 160, 32},
    {"Priority", 192, 4},
    {"SMState", 196, 4},
}};
static_assert(end_bit(kSmInfoRecord) == 25 * 8 && contiguous(kSmInfoRecord));

// LinkRecord (15.2.5.13): one direction of a link.
constexpr std::array<Field, 4> kLinkRecord = {{
    {"FromLID", 0, 16},
    {"FromPort", 16, 8},
    {"ToPort", 24, 8},
    {"ToLID", 32, 16},
}};
static_assert(end_bit(kLinkRecord) == 6 * 8 && contiguous(kLinkRecord));

// GUIDInfoRecord (15.2.5.18): LID, BlockNum, two reserved fields, 8 GUIDs.
constexpr std::array<Field, 12> kGuidInfoRecord = {{
    {"LID", 0, 16},
    {"BlockNum", 16, 8},
    {"Reserved1", 24, 8},
    {"Reserved2", 32, 32},
    {"GUID0", 64, 64},
    {"GUID1", 128, 64},
    {"GUID2", 192, 64},
    {"GUID3", 256, 64},
    {"GUID4", 320, 64},
    {"GUID5", 384, 64},
    {"GUID6", 448, 64},
    {"GUID7", 512, 64},
}};
static_assert(end_bit(kGuidInfoRecord) == 72 * 8 && contiguous(kGuidInfoRecord));

constexpr std::array kTopologyLayouts = {
    RecordLayout{attr::kNodeRecord, "NodeRecord", 108, kNodeRecord},
    RecordLayout{attr::kPortInfoRecord, "PortInfoRecord", pir::kSize, kPortInfoRecord},
    RecordLayout{attr::kSwitchInfoRecord, "SwitchInfoRecord", 24, kSwitchInfoRecord},
    RecordLayout{attr::kLftRecord, "LinearForwardingTableRecord", 72, kLftRecord},
    RecordLayout{attr::kMftRecord, "MulticastForwardingTableRecord", 72, kMftRecord},
    RecordLayout{attr::kSmInfoRecord, "SMInfoRecord", 25, kSmInfoRecord},
    RecordLayout{attr::kLinkRecord, "LinkRecord", 6, kLinkRecord},
    RecordLayout{attr::kGuidInfoRecord, "GUIDInfoRecord", 72, kGuidInfoRecord},
};

// Record sizes as OpenSM pads them (sa.md 3.1): AttributeOffset in 8-byte words.
constexpr std::uint16_t padded_words(std::size_t i) {
  return static_cast<std::uint16_t>((kTopologyLayouts[i].size + 7) / 8);
}
static_assert(padded_words(1) == 9 && padded_words(2) == 3 && padded_words(3) == 9 &&
              padded_words(4) == 9 && padded_words(5) == 4 && padded_words(6) == 1 &&
              padded_words(7) == 9);

}  // namespace

std::span<const RecordLayout> topology_layouts() {
  return kTopologyLayouts;
}

}  // namespace ibsm::sa
