#include "sm/mkey/target_port.hpp"

namespace ibsm::sm::mkey {

std::optional<Guid> cache_port_guid(const Fabric& f, NodeIndex node, PortNum port) {
  const Node& n = f.node(node);
  if (n.is_switch()) return n.guid();
  if (port >= n.ports.size() || n.ports[port].guid == 0) return std::nullopt;
  return n.ports[port].guid;
}

std::optional<Guid> dr_target_port(const Fabric& f, const mad::DrPath& path,
                                   const Neighbors* neighbors) {
  if (f.sm_node == kNoNode || f.sm_node >= f.size()) return std::nullopt;
  NodeIndex cur = f.sm_node;
  PortNum entry = f.sm_port;
  // Hop i leaves the node reached at hop i-1 through InitialPath[i] (IBA 14.2.2.1).
  for (std::size_t hop = 1; hop <= path.hops(); ++hop) {
    const Node& n = f.node(cur);
    const PortNum out = path.port_at(hop);
    if (out == 0 || out >= n.ports.size()) return std::nullopt;
    const Port& p = n.ports[out];
    if (p.peer == kNoNode) {
      if (neighbors == nullptr || hop != path.hops()) return std::nullopt;
      const auto here = cache_port_guid(f, cur, out);
      if (!here) return std::nullopt;
      auto it = neighbors->find(PortEnd{*here, out});
      if (it == neighbors->end()) return std::nullopt;
      return it->second.first;  // a switch's GUID (its port 0) or the CA port entered
    }
    cur = p.peer;
    entry = p.peer_port;
  }
  const Node& n = f.node(cur);
  if (n.is_switch()) return n.guid();
  if (entry >= n.ports.size() || n.ports[entry].guid == 0) return std::nullopt;
  return n.ports[entry].guid;
}

LidIndex index_lids(const Fabric& f) {
  LidIndex out;
  for (const LidHolder& h : f.lid_holders()) {
    const Port& p = f.node(h.node).ports[h.port];
    if (p.lid == 0 || p.guid == 0) continue;
    for (unsigned l = p.lid; l < p.lid + (1u << p.lmc); ++l)
      out[static_cast<Lid>(l)] = p.guid;
  }
  return out;
}

std::optional<Guid> target_port(const mad::SmpTarget& t, const Fabric* building, const Fabric& last,
                                const LidIndex& lids, const Neighbors& neighbors) {
  if (const auto* lid = std::get_if<Lid>(&t)) {
    auto it = lids.find(*lid);
    if (it == lids.end()) return std::nullopt;
    return it->second;
  }
  const auto& path = std::get<mad::DrPath>(t);
  if (building != nullptr) {
    if (auto g = dr_target_port(*building, path)) return g;
  }
  if (auto g = dr_target_port(last, path)) return g;
  return dr_target_port(building != nullptr ? *building : last, path, &neighbors);
}

}  // namespace ibsm::sm::mkey
