// The wire layout of the service family (IBA 15.2.5.14 ServiceRecord, 13.4.8.3
// InformInfo, 15.2.5.12 InformInfoRecord), field by field in record order, so
// field i is ComponentMask bit i (OpenSM's IB_SR_COMPMASK_* / IB_IIR_COMPMASK_*
// numbering: the 16/8/4/2 ServiceData fields are one bit per element). Sizes are
// pinned by static_assert.
#include <array>

#include "sa/record_layout.hpp"
#include "sa/sa_mad.hpp"

namespace ibsm::sa {

namespace {

// ServiceRecord (15.2.5.14, 176 bytes): ID, GID, P_Key, reserved, lease, key,
// name, then 16 x 8-bit, 8 x 16-bit, 4 x 32-bit and 2 x 64-bit data.
// One field a line, so a field's place in the list reads as its mask bit.
// clang-format off
constexpr std::array<Field, 37> kServiceRecord = {{
    {"ServiceID", 0, 64},
    {"ServiceGID", 64, 128},
    {"ServiceP_Key", 192, 16},
    {"Reserved", 208, 16},
    {"ServiceLease", 224, 32},
    {"ServiceKey", 256, 128},
    {"ServiceName", 384, 512},
    {"ServiceData8.0", 896, 8},
    {"ServiceData8.1", 904, 8},
    {"ServiceData8.2", 912, 8},
    {"ServiceData8.3", 920, 8},
    {"ServiceData8.4", 928, 8},
    {"ServiceData8.5", 936, 8},
    {"ServiceData8.6", 944, 8},
    {"ServiceData8.7", 952, 8},
    {"ServiceData8.8", 960, 8},
    {"ServiceData8.9", 968, 8},
    {"ServiceData8.10", 976, 8},
    {"ServiceData8.11", 984, 8},
    {"ServiceData8.12", 992, 8},
    {"ServiceData8.13", 1000, 8},
    {"ServiceData8.14", 1008, 8},
    {"ServiceData8.15", 1016, 8},
    {"ServiceData16.0", 1024, 16},
    {"ServiceData16.1", 1040, 16},
    {"ServiceData16.2", 1056, 16},
    {"ServiceData16.3", 1072, 16},
    {"ServiceData16.4", 1088, 16},
    {"ServiceData16.5", 1104, 16},
    {"ServiceData16.6", 1120, 16},
    {"ServiceData16.7", 1136, 16},
    {"ServiceData32.0", 1152, 32},
    {"ServiceData32.1", 1184, 32},
    {"ServiceData32.2", 1216, 32},
    {"ServiceData32.3", 1248, 32},
    {"ServiceData64.0", 1280, 64},
    {"ServiceData64.1", 1344, 64},
}};
// clang-format on
static_assert(contiguous(kServiceRecord));
static_assert(kServiceRecord.back().bit_offset + kServiceRecord.back().bit_width == 176 * 8);

// InformInfo (13.4.8.3, 36 bytes). Generic and vendor forms share the layout:
// TrapNumber/DeviceID and ProducerType/VendorID occupy the same bits.
constexpr std::array<Field, 13> kInformInfo = {{
    {"GID", 0, 128},
    {"LIDRangeBegin", 128, 16},
    {"LIDRangeEnd", 144, 16},
    {"Reserved1", 160, 16},
    {"IsGeneric", 176, 8},
    {"Subscribe", 184, 8},
    {"Type", 192, 16},
    {"TrapNumber", 208, 16},
    {"QPN", 224, 24},
    {"Reserved2", 248, 3},
    {"RespTimeValue", 251, 5},
    {"Reserved3", 256, 8},
    {"ProducerType", 264, 24},
}};
static_assert(contiguous(kInformInfo));
static_assert(kInformInfo.back().bit_offset + kInformInfo.back().bit_width == 36 * 8);

// InformInfoRecord (15.2.5.12, 60 bytes): SubscriberGID, Enum, 6 reserved bytes,
// then the InformInfo with one bit per field.
constexpr std::array<Field, 16> kInformInfoRecord = {{
    {"SubscriberGID", 0, 128},
    {"Enum", 128, 16},
    {"Reserved0", 144, 48},
    {"GID", 192, 128},
    {"LIDRangeBegin", 320, 16},
    {"LIDRangeEnd", 336, 16},
    {"Reserved1", 352, 16},
    {"IsGeneric", 368, 8},
    {"Subscribe", 376, 8},
    {"Type", 384, 16},
    {"TrapNumber", 400, 16},
    {"QPN", 416, 24},
    {"Reserved2", 440, 3},
    {"RespTimeValue", 443, 5},
    {"Reserved3", 448, 8},
    {"ProducerType", 456, 24},
}};
static_assert(contiguous(kInformInfoRecord));
static_assert(kInformInfoRecord.back().bit_offset + kInformInfoRecord.back().bit_width == 60 * 8);

constexpr std::array kServiceLayouts = {
    RecordLayout{attr::kServiceRecord, "ServiceRecord", 176, kServiceRecord},
    RecordLayout{attr::kInformInfo, "InformInfo", 36, kInformInfo},
    RecordLayout{attr::kInformInfoRecord, "InformInfoRecord", 60, kInformInfoRecord},
};
static_assert(kServiceLayouts[0].size == 176 && kServiceLayouts[1].size == 36 &&
              kServiceLayouts[2].size == 60);

}  // namespace

std::span<const RecordLayout> service_layouts() {
  return kServiceLayouts;
}

}  // namespace ibsm::sa
