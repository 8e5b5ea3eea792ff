// The fabric as the P_Key planner sees it: plain values the SM fills in after a
// sweep (or that a fabric snapshot file holds). No I/O, no SM types.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace ibsm::partitions {

enum class NodeType : std::uint8_t { kCa = 1, kSwitch = 2, kRouter = 3 };

// PortInfo PartitionEnforcementInbound/Outbound (IBA 14.2.5.6).
struct Enforcement {
  bool inbound = false;
  bool outbound = false;
  bool operator==(const Enforcement&) const = default;
};

struct FabricPort {
  std::uint64_t port_guid = 0;  // switch external ports: the switch's port 0 GUID
  std::uint64_t node_guid = 0;
  NodeType node_type = NodeType::kCa;
  std::uint8_t port_num = 0;  // 0 for a switch's management port
  bool is_sm_port = false;
  // P_Key entries the port has: NodeInfo.PartitionCap for end ports (CA, router,
  // switch port 0), SwitchInfo.PartitionEnforcementCap for switch external ports.
  std::uint16_t pkey_capacity = 0;
  std::vector<std::uint16_t> pkeys;  // current table, index order; may be shorter
  // Switch external ports only: what the link leads to.
  enum class Peer : std::uint8_t { kNothing, kEndPort, kSwitch } peer = Peer::kNothing;
  std::uint64_t peer_port_guid = 0;  // kEndPort: the end port's GUID
  Enforcement enforcement;           // switch external ports: current bits

  bool is_end_port() const { return node_type != NodeType::kSwitch || port_num == 0; }
};

struct Fabric {
  std::vector<FabricPort> ports;
};

}  // namespace ibsm::partitions
