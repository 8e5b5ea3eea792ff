// The intended topology: the nodes and cables an admin's file describes (an
// ibnetdiscover output, an ibsim net file or NVIDIA's topoconfig CSV). Readers build it
// through TopologyBuilder, which refuses what no fabric can be: a port cabled twice,
// port 0 or above 254, a cable to itself. Every node and link keeps the line that
// declared it, for messages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cabling/link_rate.hpp"
#include "common/result.hpp"

namespace ibsm::cabling {

enum class NodeType : std::uint8_t { kUnknown, kSwitch, kCa, kRouter };
std::string_view node_type_name(NodeType t);  // "switch", "ca", "router", "node"

// How the file wants a cable used (topoconfig's LinkState). Only kActive cables are
// expected to be there; the others are known cables the comparison neither expects nor
// reports.
enum class LinkState : std::uint8_t { kActive, kNoDiscover, kDisabled };

struct IntendedNode {
  std::uint64_t guid = 0;  // 0: the file names the node only (an ibsim net file)
  std::string name;        // NodeDescription from the file, "" if none
  NodeType type = NodeType::kUnknown;
  std::uint8_t num_ports = 0;  // 0: not declared
  int line = 0;
};

struct IntendedEnd {
  std::uint32_t node = 0;  // index into IntendedTopology::nodes
  std::uint8_t port = 0;
};

struct IntendedLink {
  IntendedEnd a, b;
  std::uint8_t width = 0;         // 0: the file does not say
  Speed speed = Speed::kUnknown;  // kUnknown: the file does not say
  LinkState state = LinkState::kActive;
  int line = 0;
};

struct IntendedTopology {
  std::string file;
  std::vector<IntendedNode> nodes;
  std::vector<IntendedLink> links;
};

// Where an error is: "file:line".
std::string where(std::string_view file, int line);

class TopologyBuilder {
 public:
  explicit TopologyBuilder(std::string file) { topo_.file = std::move(file); }

  // The node with this GUID (guid != 0) or this name (guid == 0), created on first use.
  // Attributes given later fill in unknown ones; a different known type or port count
  // contradicts the first declaration.
  Result<std::uint32_t> node(std::uint64_t guid, std::string_view name, NodeType type,
                             std::uint8_t num_ports, int line);
  // The first node declared with this name, if any.
  const std::uint32_t* find_name(std::string_view name) const;
  // Records a cable; the same cable again (from its other end, say) is merged, and
  // rates the first line left unsaid are taken from the second.
  Status link(IntendedEnd a, IntendedEnd b, Rate rate, LinkState state, int line);

  IntendedTopology take() && { return std::move(topo_); }
  const IntendedTopology& topology() const { return topo_; }

 private:
  static std::uint64_t end_key(IntendedEnd e) {
    return (static_cast<std::uint64_t>(e.node) << 8) | e.port;
  }
  Status check_port(IntendedEnd e, int line) const;

  IntendedTopology topo_;
  std::unordered_map<std::uint64_t, std::uint32_t> by_guid_;
  std::unordered_map<std::string, std::uint32_t> by_name_;
  std::unordered_map<std::uint64_t, std::uint32_t> link_at_;  // end_key -> link index
};

}  // namespace ibsm::cabling
