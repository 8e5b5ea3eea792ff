// Lookups over a DiscoveredFabric: node by GUID, port by node and number, and each
// cable once (from its lower GUID/port end; a cable only one end reports is still
// visited once).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "cabling/discovered.hpp"

namespace ibsm::cabling {

class FabricIndex {
 public:
  explicit FabricIndex(const DiscoveredFabric& fabric);

  const DiscoveredFabric& fabric() const { return fabric_; }
  std::optional<std::uint32_t> node_of(std::uint64_t guid) const;
  std::optional<std::uint32_t> node_of_port_guid(std::uint64_t port_guid) const;
  const DiscoveredPort* port(std::uint32_t node, std::uint8_t num) const;

  // f(node_a, port_a, node_b, port_b) once per cable between two nodes of the fabric.
  template <class F>
  void for_each_link(F&& f) const {
    for (std::uint32_t a = 0; a < fabric_.nodes.size(); ++a) {
      const auto& na = fabric_.nodes[a];
      for (const auto& pa : na.ports) {
        if (pa.peer_guid == 0 || pa.num == 0) continue;
        const auto b = node_of(pa.peer_guid);
        if (!b) continue;
        const bool lower = std::pair(na.guid, pa.num) < std::pair(pa.peer_guid, pa.peer_port);
        if (!lower) {
          // The higher end visits only when the lower end does not point back.
          const auto* pb = port(*b, pa.peer_port);
          if (pb && pb->peer_guid == na.guid && pb->peer_port == pa.num) continue;
        } else if (pa.peer_guid == na.guid && pa.peer_port == pa.num) {
          continue;
        }
        f(a, pa.num, *b, pa.peer_port);
      }
    }
  }

 private:
  static std::uint64_t key(std::uint32_t node, std::uint8_t num) {
    return (static_cast<std::uint64_t>(node) << 8) | num;
  }
  const DiscoveredFabric& fabric_;
  std::unordered_map<std::uint64_t, std::uint32_t> by_guid_;
  std::unordered_map<std::uint64_t, std::uint32_t> by_port_guid_;
  std::unordered_map<std::uint64_t, const DiscoveredPort*> ports_;
};

}  // namespace ibsm::cabling
