#include "sm/routes/routing_input.hpp"

#include <unordered_map>

#include "common/atomic_file.hpp"
#include "mad/attr/port_speeds.hpp"
#include "routing/errors.hpp"
#include "sm/links/link_rules.hpp"

namespace ibsm::sm {

namespace {

// What link_throttled reads of one end. A switch's port 0 holds its CapabilityMask;
// the FDR10 bits count where the SM read them (fdr10 set, sm/links/fdr10.hpp), as OpenSM
// counts them only with FDR10 enabled in the subnet.
LinkEndSpeeds link_end(const Node& node, const Port& port) {
  const mad::PortInfo& pi = port.info;
  LinkEndSpeeds e;
  e.speed_enabled = pi.link_speed_enabled;
  e.speed_active = pi.link_speed_active;
  e.speed_ext_enabled = pi.link_speed_ext_enabled;
  e.speed_ext_active = pi.link_speed_ext_active;
  const mad::PortInfo& caps = node.is_switch() ? node.ports[0].info : pi;
  e.extended = mad::has_extended_speeds(caps);
  e.extended2 = mad::has_extended_speeds2(caps);
  e.speed_ext2_enabled = pi.link_speed_ext_enabled2;
  e.speed_ext2_active = pi.link_speed_ext_active2;
  if (port.mlnx_ext) {
    e.fdr10_enabled = (port.mlnx_ext->link_speed_enabled & mad::kMlnxSpeedFdr10) != 0;
    e.fdr10_active = (port.mlnx_ext->link_speed_active & mad::kMlnxSpeedFdr10) != 0;
  }
  e.width_enabled = pi.link_width_enabled;
  e.width_active = pi.link_width_active;
  return e;
}

}  // namespace

RoutingInput make_routing_input(const Fabric& fabric, const LinkExclusions* excluded) {
  const auto left_out = [&](const Node& n, PortNum p, const Node& peer, PortNum pp) {
    return excluded && !excluded->empty() &&
           (excluded->contains({n.guid(), p}) || excluded->contains({peer.guid(), pp}));
  };
  RoutingInput in;
  std::unordered_map<NodeIndex, std::uint32_t> sw_index;
  for (NodeIndex i = 0; i < fabric.size(); ++i) {
    const Node& n = fabric.node(i);
    if (!n.is_switch() || !n.ports[0].present) continue;
    sw_index[i] = static_cast<std::uint32_t>(in.topology.switches.size());
    routing::Switch s;
    s.guid = n.guid();
    s.description = n.display_name();
    s.lid = n.ports[0].lid;
    s.lmc = n.ports[0].lmc;
    s.num_ports = n.num_ports();
    s.lft_cap = n.switch_info ? n.switch_info->linear_fdb_cap : 0;
    in.topology.switches.push_back(std::move(s));
    in.switch_nodes.push_back(i);
  }
  std::unordered_map<std::uint64_t, std::uint32_t> end_index;  // (node << 8 | port)
  for (NodeIndex i = 0; i < fabric.size(); ++i) {
    const Node& n = fabric.node(i);
    if (n.is_switch()) continue;
    for (const Port& p : n.ports) {
      if (p.num == 0 || !p.present || p.lid == 0) continue;
      routing::EndPort e;
      e.port_guid = p.guid;
      e.node_guid = n.guid();
      e.description = n.display_name();
      e.is_router = n.type() == mad::NodeType::kRouter;
      e.base_lid = p.lid;
      e.lmc = p.lmc;
      e.port_num = p.num;
      if (p.link_up() && p.peer != kNoNode) {
        auto it = sw_index.find(p.peer);
        if (it != sw_index.end()) {
          e.sw = it->second;
          e.sw_port = p.peer_port;
        }
      }
      end_index[(static_cast<std::uint64_t>(i) << 8) | p.num] =
          static_cast<std::uint32_t>(in.topology.end_ports.size());
      in.topology.end_ports.push_back(std::move(e));
    }
  }
  for (std::uint32_t s = 0; s < in.switch_nodes.size(); ++s) {
    const Node& n = fabric.node(in.switch_nodes[s]);
    for (const Port& p : n.ports) {
      if (p.num == 0 || !p.link_up() || p.peer == kNoNode) continue;
      const Node& peer = fabric.node(p.peer);
      const Port& pp = peer.ports[p.peer_port];
      if (!pp.link_up()) continue;
      routing::Link l;
      l.port = p.num;
      l.peer_port = p.peer_port;
      if (peer.is_switch()) {
        auto it = sw_index.find(p.peer);
        if (it == sw_index.end() || left_out(n, p.num, peer, p.peer_port)) continue;
        l.kind = routing::Link::Kind::kSwitch;
        l.peer = it->second;
        l.throttled = link_throttled(link_end(n, p), link_end(peer, pp));
      } else {
        auto it = end_index.find((static_cast<std::uint64_t>(p.peer) << 8) | p.peer_port);
        if (it == end_index.end()) continue;
        l.kind = routing::Link::Kind::kEndPort;
        l.peer = it->second;
      }
      in.topology.switches[s].links.push_back(l);
    }
  }
  return in;
}

}  // namespace ibsm::sm
