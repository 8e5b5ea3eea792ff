// The fabric model: one source of truth for what the SM knows about the subnet.
// Discovery fills it, LID assignment and routing read it, programming diffs
// against it. One Fabric is built per heavy sweep; what the SM has programmed
// into devices (ProgrammedState) outlives it and is keyed by GUID.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mad/attr/mlnx_ext_port_info.hpp"
#include "mad/attr/node_info.hpp"
#include "mad/attr/port_info.hpp"
#include "mad/attr/switch_info.hpp"
#include "mad/dr_path.hpp"
#include "mad/types.hpp"
#include "partitions/fabric.hpp"

namespace ibsm::sm {

using mad::Guid;
using mad::Lid;
using mad::PortNum;

using NodeIndex = std::uint32_t;
inline constexpr NodeIndex kNoNode = UINT32_MAX;

struct Port {
  PortNum num = 0;
  bool present = false;      // seen in this sweep (PortInfo read)
  mad::PortInfo info;        // last PortInfo read
  Guid guid = 0;             // port GUID (switches: the node GUID, port 0)
  NodeIndex peer = kNoNode;  // node at the other end of the link
  PortNum peer_port = 0;
  bool peer_unreachable = false;  // link up but the peer did not answer
  // Vendor speeds (FDR10) as the port last answered, where the SM reads them (sm/links/fdr10.hpp).
  std::optional<mad::MlnxExtPortInfo> mlnx_ext;

  // Partitions: the P_Key table as read (or as programmed since), and the
  // PartitionEnforcement bits the PortInfo Set must carry (switch external ports).
  std::vector<std::uint16_t> pkeys;
  std::optional<partitions::Enforcement> want_enforcement;

  // Assigned by the LID manager (end ports and switch port 0).
  Lid lid = 0;
  std::uint8_t lmc = 0;

  bool link_up() const {
    return present && num != 0 && info.port_state != mad::PortState::kDown &&
           info.port_state != mad::PortState::kNoChange;
  }
};

struct Node {
  mad::NodeInfo info;  // as read through the first port we reached
  // NodeDescription as read, as display text (mad::NodeDescription's decoder: valid
  // UTF-8, no control character); the SA answers with it.
  std::string description;
  // The name people see in logs, dumps, ctl, the PerfMgr and /metrics: the node name
  // map's, else the description cut at 63 bytes (text::display_name); empty until
  // either is known.
  std::string name;
  mad::DrPath path;         // DR path we reach the node by
  std::vector<Port> ports;  // index = port number, 0..NumPorts
  std::optional<mad::SwitchInfo> switch_info;

  Guid guid() const { return info.node_guid; }
  mad::NodeType type() const { return info.node_type; }
  bool is_switch() const { return info.node_type == mad::NodeType::kSwitch; }
  std::uint8_t num_ports() const { return info.num_ports; }
  const std::string& display_name() const { return name.empty() ? description : name; }
};

// An end port or switch port 0: something that has a LID.
struct LidHolder {
  NodeIndex node = kNoNode;
  PortNum port = 0;
};

class Fabric {
 public:
  // Adds a node (first time its GUID is seen). The index stays valid for this Fabric.
  NodeIndex add_node(const mad::NodeInfo& info, const mad::DrPath& path);
  NodeIndex find(Guid node_guid) const;

  Node& node(NodeIndex i) { return nodes_[i]; }
  const Node& node(NodeIndex i) const { return nodes_[i]; }
  // The node at `i` if it is still the one with GUID `guid`: for SMP callbacks, whose
  // answer may arrive after a later sweep rebuilt this Fabric (an aborted sweep's
  // SMPs are answered during the next one's).
  Node* node_if(NodeIndex i, Guid guid) {
    return i < nodes_.size() && nodes_[i].guid() == guid ? &nodes_[i] : nullptr;
  }
  std::size_t size() const { return nodes_.size(); }
  const std::vector<Node>& nodes() const { return nodes_; }

  // Records a link seen from both ends.
  void link(NodeIndex a, PortNum pa, NodeIndex b, PortNum pb);

  // The SM's own node and port.
  NodeIndex sm_node = kNoNode;
  PortNum sm_port = 0;

  // Ports that carry LIDs: every present end port and every switch's port 0.
  std::vector<LidHolder> lid_holders() const;

  std::size_t switch_count() const;
  std::size_t end_port_count() const;

 private:
  std::vector<Node> nodes_;
  std::unordered_map<Guid, NodeIndex> by_guid_;
};

}  // namespace ibsm::sm
