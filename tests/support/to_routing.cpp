#include "tests/support/to_routing.hpp"

#include <map>

namespace ibsm::testsupport {

RoutingFixture to_routing(const Fabric& fabric, std::uint8_t lmc) {
  RoutingFixture fx;
  routing::Topology& t = fx.topo;
  const std::size_t n = fabric.nodes.size();
  std::vector<std::map<std::uint8_t, PortRef>> peers(n);
  for (const Cable& c : fabric.cables) {
    peers[c.a.node][c.a.port] = c.b;
    peers[c.b.node][c.b.port] = c.a;
  }

  // Indices first: links refer to switches and end ports by index.
  fx.switch_of_node.assign(n, UINT32_MAX);
  std::map<std::pair<std::uint32_t, std::uint8_t>, std::uint32_t> end_port_of;
  std::uint32_t switches = 0;
  std::uint32_t ends = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (fabric.nodes[i].type == NodeType::kSwitch) {
      fx.switch_of_node[i] = switches++;
    } else {
      for (const auto& entry : peers[i])
        end_port_of[{i, entry.first}] = ends++;
    }
  }
  t.switches.resize(switches);
  t.end_ports.resize(ends);

  unsigned next_lid = 1;
  const unsigned block = 1U << lmc;
  for (std::uint32_t i = 0; i < n; ++i) {
    const Node& node = fabric.nodes[i];
    if (node.type == NodeType::kSwitch) {
      routing::Switch& s = t.switches[fx.switch_of_node[i]];
      s.guid = node.node_guid;
      s.description = node.description;
      s.lid = static_cast<routing::Lid>(next_lid++);
      s.num_ports = node.num_ports;
      s.lft_cap = 0xC000;
      for (const auto& [port, peer] : peers[i]) {
        routing::Link l;
        l.port = port;
        l.peer_port = peer.port;
        if (fabric.nodes[peer.node].type == NodeType::kSwitch) {
          l.kind = routing::Link::Kind::kSwitch;
          l.peer = fx.switch_of_node[peer.node];
        } else {
          l.kind = routing::Link::Kind::kEndPort;
          l.peer = end_port_of.at({peer.node, peer.port});
        }
        s.links.push_back(l);
      }
      continue;
    }
    for (const auto& [port, peer] : peers[i]) {
      routing::EndPort& e = t.end_ports[end_port_of.at({i, port})];
      e.port_guid = node.port_guid(port);
      e.node_guid = node.node_guid;
      e.description = node.description;
      e.is_router = node.type == NodeType::kRouter;
      next_lid = (next_lid + block - 1) / block * block;  // LMC ranges are aligned
      e.base_lid = static_cast<routing::Lid>(next_lid);
      next_lid += block;
      e.lmc = lmc;
      e.port_num = port;
      if (fabric.nodes[peer.node].type == NodeType::kSwitch) {
        e.sw = fx.switch_of_node[peer.node];
        e.sw_port = peer.port;
      }
    }
  }
  return fx;
}

}  // namespace ibsm::testsupport
