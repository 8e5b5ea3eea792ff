// The Fabric into cabling's DiscoveredFabric (sm/cabling_check/discovered_fabric.hpp).
#include "sm/cabling_check/discovered_fabric.hpp"

#include "mad/attr/port_speeds.hpp"

namespace ibsm::sm::cabling_check {

namespace {

cabling::NodeType node_type(mad::NodeType t) {
  switch (t) {
    case mad::NodeType::kSwitch:
      return cabling::NodeType::kSwitch;
    case mad::NodeType::kCa:
      return cabling::NodeType::kCa;
    case mad::NodeType::kRouter:
      return cabling::NodeType::kRouter;
    case mad::NodeType::kUnknown:
      break;
  }
  return cabling::NodeType::kUnknown;
}

// LinkSpeedEnabled 15 and LinkSpeedExtEnabled 31 mean "what is supported"; 30 turns
// the extended speeds off (IBA 14.2.5.6).
std::uint8_t enabled_mask(std::uint8_t enabled, std::uint8_t supported, std::uint8_t all) {
  if (enabled == all) return supported;
  return enabled;
}

}  // namespace

cabling::DiscoveredPort discovered_port(const Port& port, const mad::PortInfo& caps) {
  const mad::PortInfo& pi = port.info;
  const bool ext = mad::has_extended_speeds(caps);
  const bool ext2 = mad::has_extended_speeds2(caps);
  cabling::DiscoveredPort d;
  d.num = port.num;
  d.width_active = cabling::width_from_iba(pi.link_width_active);
  d.width_supported = cabling::widths_from_iba(pi.link_width_supported);
  d.width_enabled =
      cabling::widths_from_iba(enabled_mask(pi.link_width_enabled, pi.link_width_supported, 255));
  d.speed_active = cabling::speed_from_iba(pi.link_speed_active, ext ? pi.link_speed_ext_active : 0,
                                           ext2 ? pi.link_speed_ext_active2 : 0);
  d.speed_supported =
      cabling::speeds_from_iba(pi.link_speed_supported, ext ? pi.link_speed_ext_supported : 0,
                               ext2 ? pi.link_speed_ext_supported2 : 0);
  const std::uint8_t ext_enabled =
      pi.link_speed_ext_enabled == 30
          ? 0
          : enabled_mask(pi.link_speed_ext_enabled, pi.link_speed_ext_supported, 31);
  d.speed_enabled =
      cabling::speeds_from_iba(enabled_mask(pi.link_speed_enabled, pi.link_speed_supported, 15),
                               ext ? ext_enabled : 0, ext2 ? pi.link_speed_ext_enabled2 : 0);
  // FDR10 lives in the vendor attribute only (sm/links/fdr10.hpp); an extended speed
  // named by PortInfo wins over it.
  if (port.mlnx_ext) {
    const auto& m = *port.mlnx_ext;
    const auto fdr10 = cabling::speed_bit(cabling::Speed::kFdr10);
    if (m.link_speed_supported & mad::kMlnxSpeedFdr10) d.speed_supported |= fdr10;
    if (m.link_speed_enabled & mad::kMlnxSpeedFdr10) d.speed_enabled |= fdr10;
    const bool named_ext = d.speed_active > cabling::Speed::kQdr;
    if ((m.link_speed_active & mad::kMlnxSpeedFdr10) && !named_ext)
      d.speed_active = cabling::Speed::kFdr10;
  }
  return d;
}

cabling::DiscoveredFabric discovered_fabric(const Fabric& fabric) {
  cabling::DiscoveredFabric out;
  out.nodes.reserve(fabric.size());
  for (const Node& n : fabric.nodes()) {
    cabling::DiscoveredNode d;
    d.guid = n.guid();
    d.type = node_type(n.type());
    d.name = n.display_name();
    const mad::PortInfo* sw_caps =
        n.is_switch() && !n.ports.empty() && n.ports[0].present ? &n.ports[0].info : nullptr;
    d.ports.reserve(n.ports.size());
    for (const Port& p : n.ports) {
      if (p.num == 0 || !p.present) continue;
      cabling::DiscoveredPort dp = discovered_port(p, sw_caps ? *sw_caps : p.info);
      if (!n.is_switch()) dp.port_guid = p.guid;
      if (p.link_up() && p.peer != kNoNode && p.peer < fabric.size()) {
        dp.peer_guid = fabric.node(p.peer).guid();
        dp.peer_port = p.peer_port;
      }
      d.ports.push_back(dp);
    }
    out.nodes.push_back(std::move(d));
  }
  return out;
}

}  // namespace ibsm::sm::cabling_check
