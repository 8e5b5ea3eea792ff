#include "mad/types.hpp"

#include <cstdio>

namespace ibsm::mad {

std::string_view attr_name(AttrId id) {
  switch (id) {
    case AttrId::kNotice:
      return "Notice";
    case AttrId::kNodeDescription:
      return "NodeDescription";
    case AttrId::kNodeInfo:
      return "NodeInfo";
    case AttrId::kSwitchInfo:
      return "SwitchInfo";
    case AttrId::kGuidInfo:
      return "GUIDInfo";
    case AttrId::kPortInfo:
      return "PortInfo";
    case AttrId::kPKeyTable:
      return "P_KeyTable";
    case AttrId::kSlToVlTable:
      return "SLtoVLMappingTable";
    case AttrId::kVlArbitration:
      return "VLArbitrationTable";
    case AttrId::kLinearForwardingTable:
      return "LinearForwardingTable";
    case AttrId::kMulticastForwardingTable:
      return "MulticastForwardingTable";
    case AttrId::kSmInfo:
      return "SMInfo";
    case AttrId::kMlnxExtendedPortInfo:
      return "MLNXExtendedPortInfo";
  }
  return "UnknownAttribute";
}

std::string_view node_type_name(NodeType t) {
  switch (t) {
    case NodeType::kCa:
      return "CA";
    case NodeType::kSwitch:
      return "Switch";
    case NodeType::kRouter:
      return "Router";
    case NodeType::kUnknown:
      break;
  }
  return "Unknown";
}

std::string_view port_state_name(PortState s) {
  switch (s) {
    case PortState::kNoChange:
      return "NoChange";
    case PortState::kDown:
      return "Down";
    case PortState::kInit:
      return "Init";
    case PortState::kArmed:
      return "Armed";
    case PortState::kActive:
      return "Active";
  }
  return "Invalid";
}

std::string_view sm_state_name(SmState s) {
  switch (s) {
    case SmState::kNotActive:
      return "NOTACTIVE";
    case SmState::kDiscovering:
      return "DISCOVERING";
    case SmState::kStandby:
      return "STANDBY";
    case SmState::kMaster:
      return "MASTER";
  }
  return "INVALID";
}

std::string format_guid(Guid g) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(g));
  return buf;
}

}  // namespace ibsm::mad
