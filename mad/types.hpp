// Basic InfiniBand identifiers and enumerations used on the wire (IBA vol. 1, ch. 14).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "wire/mad_header.hpp"

namespace ibsm::mad {

using Guid = std::uint64_t;
using Lid = std::uint16_t;
using PortNum = std::uint8_t;

inline constexpr Lid kPermissiveLid = 0xFFFF;  // IBA 14.2.2: DR SMPs leave the SM with DLID 0xFFFF
inline constexpr Lid kMaxUnicastLid = 0xBFFF;  // IBA 4.1.3: 0x0001-0xBFFF are unicast
inline constexpr Lid kFirstMulticastLid = 0xC000;

// Management classes (IBA 13.4.4; wire/mad_header.hpp).
inline constexpr std::uint8_t kClassSmiLid = wire::mgmt_class::kSmiLid;
inline constexpr std::uint8_t kClassSmiDirected = wire::mgmt_class::kSmiDirected;
inline constexpr std::uint8_t kClassSubnAdm = wire::mgmt_class::kSubnAdm;
inline constexpr std::uint8_t kClassPerfMgt = wire::mgmt_class::kPerfMgt;

// The methods of SMPs (IBA 13.4.5; values from wire/mad_header.hpp).
enum class Method : std::uint8_t {
  kGet = wire::method::kGet,
  kSet = wire::method::kSet,
  kGetResp = wire::method::kGetResp,
  kTrap = wire::method::kTrap,
  kTrapRepress = wire::method::kTrapRepress,
};

// SMP attribute IDs (IBA 14.2.5, table 145).
enum class AttrId : std::uint16_t {
  kNotice = 0x0002,
  kNodeDescription = 0x0010,
  kNodeInfo = 0x0011,
  kSwitchInfo = 0x0012,
  kGuidInfo = 0x0014,
  kPortInfo = 0x0015,
  kPKeyTable = 0x0016,
  kSlToVlTable = 0x0017,
  kVlArbitration = 0x0018,
  kLinearForwardingTable = 0x0019,
  kMulticastForwardingTable = 0x001B,
  kSmInfo = 0x0020,
  kMlnxExtendedPortInfo = 0xFF90,  // vendor-specific (mad/attr/mlnx_ext_port_info.hpp)
};

std::string_view attr_name(AttrId id);

enum class NodeType : std::uint8_t { kUnknown = 0, kCa = 1, kSwitch = 2, kRouter = 3 };
std::string_view node_type_name(NodeType t);

// PortInfo.PortState (IBA 14.2.5.6, table 155).
enum class PortState : std::uint8_t {
  kNoChange = 0,
  kDown = 1,
  kInit = 2,
  kArmed = 3,
  kActive = 4
};
std::string_view port_state_name(PortState s);

// PortInfo.PortPhysicalState.
enum class PhysState : std::uint8_t {
  kNoChange = 0,
  kSleep = 1,
  kPolling = 2,
  kDisabled = 3,
  kTraining = 4,
  kLinkUp = 5,
  kErrorRecovery = 6,
  kPhyTest = 7,
};

// SMInfo.SMState (IBA 14.2.5.13).
enum class SmState : std::uint8_t { kNotActive = 0, kDiscovering = 1, kStandby = 2, kMaster = 3 };
std::string_view sm_state_name(SmState s);

// PortInfo.CapabilityMask bits used by the SM (IBA 14.2.5.6, table 156).
inline constexpr std::uint32_t kCapIsSm = 1u << 1;
inline constexpr std::uint32_t kCapIsClientReregSupported = 1u << 25;
inline constexpr std::uint32_t kCapIsExtendedSpeedsSupported = 1u << 14;

std::string format_guid(Guid g);  // "0x0002c90300001234"

}  // namespace ibsm::mad
