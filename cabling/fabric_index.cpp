#include "cabling/fabric_index.hpp"

namespace ibsm::cabling {

FabricIndex::FabricIndex(const DiscoveredFabric& fabric) : fabric_(fabric) {
  by_guid_.reserve(fabric.nodes.size());
  std::size_t ports = 0;
  for (const auto& n : fabric.nodes)
    ports += n.ports.size();
  ports_.reserve(ports);
  for (std::uint32_t i = 0; i < fabric.nodes.size(); ++i) {
    const auto& n = fabric.nodes[i];
    by_guid_.try_emplace(n.guid, i);
    for (const auto& p : n.ports) {
      ports_.try_emplace(key(i, p.num), &p);
      if (p.port_guid != 0 && p.port_guid != n.guid) by_port_guid_.try_emplace(p.port_guid, i);
    }
  }
}

std::optional<std::uint32_t> FabricIndex::node_of(std::uint64_t guid) const {
  const auto it = by_guid_.find(guid);
  if (it == by_guid_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::uint32_t> FabricIndex::node_of_port_guid(std::uint64_t port_guid) const {
  const auto it = by_port_guid_.find(port_guid);
  if (it == by_port_guid_.end()) return std::nullopt;
  return it->second;
}

const DiscoveredPort* FabricIndex::port(std::uint32_t node, std::uint8_t num) const {
  const auto it = ports_.find(key(node, num));
  return it == ports_.end() ? nullptr : it->second;
}

}  // namespace ibsm::cabling
