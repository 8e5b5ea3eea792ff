// NodeInfo (IBA 14.2.5.3): what a node is and which port answered.
#pragma once

#include "mad/attribute_codec.hpp"
#include "mad/types.hpp"

namespace ibsm::mad {

struct NodeInfo {
  static constexpr AttrId kAttrId = AttrId::kNodeInfo;
  static constexpr const char* kName = "NodeInfo";

  std::uint8_t base_version = 1;
  std::uint8_t class_version = 1;
  NodeType node_type = NodeType::kUnknown;
  std::uint8_t num_ports = 0;
  Guid system_image_guid = 0;
  Guid node_guid = 0;
  Guid port_guid = 0;
  std::uint16_t partition_cap = 0;
  std::uint16_t device_id = 0;
  std::uint32_t revision = 0;
  PortNum local_port_num = 0;
  std::uint32_t vendor_id = 0;  // 24 bits

  template <class Self, class Visit>
  static void fields(Self& s, Visit&& v) {
    v(IB_NODE_BASE_VERS_F, s.base_version);
    v(IB_NODE_CLASS_VERS_F, s.class_version);
    v(IB_NODE_TYPE_F, s.node_type);
    v(IB_NODE_NPORTS_F, s.num_ports);
    v(IB_NODE_SYSTEM_GUID_F, s.system_image_guid);
    v(IB_NODE_GUID_F, s.node_guid);
    v(IB_NODE_PORT_GUID_F, s.port_guid);
    v(IB_NODE_PARTITION_CAP_F, s.partition_cap);
    v(IB_NODE_DEVID_F, s.device_id);
    v(IB_NODE_REVISION_F, s.revision);
    v(IB_NODE_LOCAL_PORT_F, s.local_port_num);
    v(IB_NODE_VENDORID_F, s.vendor_id);
  }

  // IBA 14.2.5.3: NodeType 1-3, at least one port, GUIDs are EUI-64 and never 0.
  // A switch answers on port 0; an end node's LocalPortNum is 1..NumPorts.
  static Status validate(const NodeInfo& n);
};

}  // namespace ibsm::mad
