#include "sm/fabric/fabric.hpp"

namespace ibsm::sm {

NodeIndex Fabric::add_node(const mad::NodeInfo& info, const mad::DrPath& path) {
  const auto idx = static_cast<NodeIndex>(nodes_.size());
  Node n;
  n.info = info;
  n.path = path;
  n.ports.resize(static_cast<std::size_t>(info.num_ports) + 1);
  for (std::size_t p = 0; p < n.ports.size(); ++p)
    n.ports[p].num = static_cast<PortNum>(p);
  nodes_.push_back(std::move(n));
  by_guid_.emplace(info.node_guid, idx);
  return idx;
}

NodeIndex Fabric::find(Guid node_guid) const {
  auto it = by_guid_.find(node_guid);
  return it == by_guid_.end() ? kNoNode : it->second;
}

void Fabric::link(NodeIndex a, PortNum pa, NodeIndex b, PortNum pb) {
  auto& x = nodes_[a].ports[pa];
  auto& y = nodes_[b].ports[pb];
  x.peer = b;
  x.peer_port = pb;
  x.peer_unreachable = false;
  y.peer = a;
  y.peer_port = pa;
  y.peer_unreachable = false;
}

std::vector<LidHolder> Fabric::lid_holders() const {
  std::vector<LidHolder> out;
  for (NodeIndex i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.is_switch()) {
      if (n.ports[0].present) out.push_back({i, 0});
    } else {
      for (const Port& p : n.ports)
        if (p.num != 0 && p.present) out.push_back({i, p.num});
    }
  }
  return out;
}

std::size_t Fabric::switch_count() const {
  std::size_t n = 0;
  for (const auto& node : nodes_)
    n += node.is_switch() ? 1 : 0;
  return n;
}

std::size_t Fabric::end_port_count() const {
  std::size_t n = 0;
  for (const auto& node : nodes_)
    if (!node.is_switch())
      for (const auto& p : node.ports)
        n += (p.num != 0 && p.present) ? 1 : 0;
  return n;
}

}  // namespace ibsm::sm
