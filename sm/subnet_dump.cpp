#include "sm/subnet_dump.hpp"

#include <cstdio>

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

// IBA 14.2.5.6: LinkSpeedActive 1/2/4 = 2.5/5/10 Gb/s per lane; when the
// extended field is set it wins (14/25/50/100 Gb/s).
const char* speed_text(const mad::PortInfo& pi) {
  switch (pi.link_speed_ext_active) {
    case 1:
      return "14";
    case 2:
      return "25";
    case 4:
      return "50";
    case 8:
      return "100";
    default:
      break;
  }
  switch (pi.link_speed_active) {
    case 1:
      return "2.5";
    case 2:
      return "5";
    case 4:
      return "10";
    default:
      return "??";
  }
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
          << " LOG=" << state_text(p.info.port_state) << " SPD=" << speed_text(p.info) << '\n';
    }
  }
}

}  // namespace ibsm::sm
