// The fabric as a sweep found it, in plain values: what the comparison and the degraded
// link check take from the SM. The SM fills it from its NodeInfo, NodeDescription and
// PortInfo (link_rate.hpp converts the PortInfo codes); cabling/ never sees mad/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cabling/link_rate.hpp"
#include "cabling/topology.hpp"

namespace ibsm::cabling {

struct DiscoveredPort {
  std::uint8_t num = 0;
  std::uint64_t port_guid = 0;  // 0 when unknown (a switch's external port)
  std::uint64_t peer_guid = 0;  // the peer's node GUID; 0: no link
  std::uint8_t peer_port = 0;
  std::uint8_t width_active = 0;  // lanes
  WidthSet width_supported = 0;
  WidthSet width_enabled = 0;
  Speed speed_active = Speed::kUnknown;
  SpeedSet speed_supported = 0;
  SpeedSet speed_enabled = 0;
};

struct DiscoveredNode {
  std::uint64_t guid = 0;
  NodeType type = NodeType::kUnknown;
  std::string name;                   // NodeDescription (or the node_name_map's name)
  std::vector<DiscoveredPort> ports;  // the linked ports at least, any order
};

struct DiscoveredFabric {
  std::vector<DiscoveredNode> nodes;
};

}  // namespace ibsm::cabling
