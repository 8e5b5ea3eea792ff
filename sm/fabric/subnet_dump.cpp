#include "sm/fabric/subnet_dump.hpp"

#include <cstdio>

#include "mad/attr/port_speeds.hpp"

namespace ibsm::sm {

namespace {

const char* width_text(std::uint8_t w) {
  switch (w) {
    case 1:
      return "1x";
    case 2:
      return "4x";
    case 4:
      return "8x";
    case 8:
      return "12x";
    case 16:
      return "2x";
    default:
      return "??";
  }
}

// IBA 14.2.5.6: the per-lane data rate in Gb/s (2.5/5/10 from LinkSpeedActive, or
// when the port has them and one is active, 14/25/50/100 from LinkSpeedExtActive and
// 200 from LinkSpeedExtActive2). A switch's port 0 says whether its ports have them.
const char* speed_text(const Node& n, const Port& p) {
  return mad::lane_speed_gbps(
      mad::active_lane_speed(p.info, n.is_switch() ? n.ports[0].info : p.info));
}

const char* state_text(mad::PortState s) {
  switch (s) {
    case mad::PortState::kDown:
      return "DWN";
    case mad::PortState::kInit:
      return "INI";
    case mad::PortState::kArmed:
      return "ARM";
    case mad::PortState::kActive:
      return "ACT";
    default:
      return "???";
  }
}

// One end of a link. OpenSM prints the remote VenID with 8 digits and the local
// with 6; we keep that so its output and ours diff cleanly.
std::string end_text(const Fabric& f, NodeIndex ni, PortNum pn, int vendor_digits) {
  const Node& n = f.node(ni);
  const Port& p = n.ports[pn];
  const char* type = n.is_switch() ? "SW" : n.type() == mad::NodeType::kRouter ? "RT" : "CA";
  const Lid lid = n.is_switch() ? n.ports[0].lid : p.lid;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{ %s%s Ports:%02X SystemGUID:%016llX NodeGUID:%016llX PortGUID:%016llX "
                "VenID:%0*X DevID:%04X Rev:%08X {%s} LID:%04X PN:%02X }",
                type, ni == f.sm_node ? "-SM" : "", n.num_ports(),
                static_cast<unsigned long long>(n.info.system_image_guid),
                static_cast<unsigned long long>(n.guid()),
                static_cast<unsigned long long>(n.is_switch() ? n.guid() : p.guid), vendor_digits,
                n.info.vendor_id, n.info.device_id, n.info.revision, n.display_name().c_str(), lid,
                pn);
  return buf;
}

}  // namespace

void write_subnet_lst(std::ostream& out, const Fabric& f) {
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    for (const Port& p : n.ports) {
      if (p.num == 0 || !p.present || p.peer == kNoNode) continue;
      out << end_text(f, i, p.num, 6) << ' ' << end_text(f, p.peer, p.peer_port, 8)
          << " PHY=" << width_text(p.info.link_width_active)
          << " LOG=" << state_text(p.info.port_state) << " SPD=" << speed_text(n, p) << '\n';
    }
  }
}

}  // namespace ibsm::sm
