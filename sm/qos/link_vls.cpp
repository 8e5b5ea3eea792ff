#include "sm/qos/link_vls.hpp"

#include <algorithm>

#include "sm/links/link_rules.hpp"

namespace ibsm::sm::qos {

std::uint8_t max_op_vls_of_link(const QosConfig* qos, const Fabric& f, NodeIndex node,
                                PortNum port) {
  if (qos == nullptr || !qos->enabled) return 5;
  const Node& n = f.node(node);
  std::uint8_t cap = max_vls_code(qos->of(port_class(n, port)).max_vls);
  const Port& p = n.ports[port];
  if (port != 0 && p.peer != kNoNode) {
    const Node& peer = f.node(p.peer);
    cap = std::min(cap, max_vls_code(qos->of(port_class(peer, p.peer_port)).max_vls));
  }
  return cap;
}

std::uint8_t port_operational_vls(const QosConfig* qos, const Fabric& f, NodeIndex node,
                                  PortNum port, std::uint8_t max_op_vls) {
  const Port& p = f.node(node).ports[port];
  const Port* peer = p.peer != kNoNode && port != 0 ? &f.node(p.peer).ports[p.peer_port] : nullptr;
  const std::uint8_t peer_cap =
      peer != nullptr && peer->present ? peer->info.vl_cap : p.info.vl_cap;
  return operational_vls(p.info.vl_cap, peer_cap,
                         std::min(max_op_vls, max_op_vls_of_link(qos, f, node, port)));
}

std::uint8_t max_op_vls_of_fabric(const QosConfig* qos) {
  if (qos == nullptr || !qos->enabled) return 5;
  return std::min({max_vls_code(qos->of(PortClass::kCa).max_vls),
                   max_vls_code(qos->of(PortClass::kRouter).max_vls),
                   max_vls_code(qos->of(PortClass::kSwitchExternal).max_vls)});
}

}  // namespace ibsm::sm::qos
