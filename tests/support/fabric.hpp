// A neutral description of a simulated fabric: nodes, their GUIDs and cables, exactly
// what an ibsim net file describes. Independent of routing and of the SM's model, so the
// same fixture can feed the routing tests, an in-process fake fabric and ibsim itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::testsupport {

enum class NodeType : std::uint8_t { kSwitch, kCa, kRouter };

struct Node {
  NodeType type = NodeType::kCa;
  std::string id;              // unique node id of the net file ("sw0_0")
  std::string description;     // NodeDescription; ibsim defaults it to the id
  std::uint8_t num_ports = 0;  // external ports (a switch's port 0 not counted)
  std::uint64_t node_guid = 0;
  std::uint64_t system_guid = 0;
  // Only set when the net file pins them (ibnetdiscover output does).
  std::optional<std::uint16_t> lid;
  std::optional<std::uint8_t> lmc;

  // ibsim: a switch has one GUID for the node and all ports; a CA or router port p
  // has node GUID + p (ibsim-0.10 sim_net.c init_ports).
  std::uint64_t port_guid(std::uint8_t port) const {
    return type == NodeType::kSwitch ? node_guid : node_guid + port;
  }
};

struct PortRef {
  std::uint32_t node = 0;  // index into Fabric::nodes
  std::uint8_t port = 0;
  bool operator==(const PortRef&) const = default;
};

// One cable; listed once (a.node <= b.node in parsed files).
struct Cable {
  PortRef a;
  PortRef b;
};

struct Fabric {
  std::vector<Node> nodes;
  std::vector<Cable> cables;

  // Index of the node with this id, or nullopt.
  std::optional<std::uint32_t> find(const std::string& id) const;
  // The port at the other end of the cable on `p`, or nullopt if nothing is plugged in.
  std::optional<PortRef> peer(PortRef p) const;
};

// GUIDs as ibsim assigns them when the file sets none (routing.md 5.1): switches
// from 0x200000 counting by one in file order; CAs (and, in our model, routers) from
// 0x100000, each reserving num_ports + 1 GUIDs (node GUID = base, port p = base + p).
inline constexpr std::uint64_t kIbsimFirstSwitchGuid = 0x200000;
inline constexpr std::uint64_t kIbsimFirstCaGuid = 0x100000;

// Renumbers every node's GUIDs in node order with ibsim's defaults (for built fabrics).
void assign_ibsim_guids(Fabric& fabric);

// Unplugs every cable between the nodes named `a` and `b` (a failed link); returns how
// many it removed.
std::size_t remove_cables_between(Fabric& fabric, const std::string& a, const std::string& b);

}  // namespace ibsm::testsupport
