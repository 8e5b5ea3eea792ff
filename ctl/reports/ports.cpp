// querylid and portstatus: one LID's port and its node's ports; port counts by state,
// width and speed, and the ports with possible issues, as OpenSM's console shows them.
// Speeds and widths are read with the one decoder of PortInfo's speed fields
// (mad/attr/port_speeds.hpp), which knows XDR.
#include <map>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "ctl/errors.hpp"
#include "ctl/reports/families.hpp"
#include "mad/attr/port_speeds.hpp"

namespace ibsm::ctl::reports {

namespace {

// A LinkWidthActive code as OpenSM's portstatus names it (mad::active_lanes: 1X, 2X,
// 4X, 8X, 12X), "unknown" for any other value.
std::string width_name(std::uint8_t w) {
  const unsigned lanes = mad::active_lanes(w);
  return lanes == 0 ? std::string("unknown") : fmt::format("{}X", lanes);
}

// The PortInfo whose capabilities speak for port `p` of `n` (mad/attr/port_speeds.hpp):
// a switch's port 0 for all its ports (none while port 0 is unknown: classic speeds
// only), else the port's own.
mad::PortInfo speed_caps(const sa::SnapNode& n, const sa::SnapPort& p) {
  if (!n.is_switch()) return p.info;
  return !n.ports.empty() && n.ports[0].present ? n.ports[0].info : mad::PortInfo{};
}

// The active lane speed (mad::active_lane_speed, which knows XDR) as OpenSM's
// portstatus names it, in Gb/s on the wire ("" = unknown).
std::string speed_name(const mad::PortInfo& pi, const mad::PortInfo& caps) {
  switch (mad::active_lane_speed(pi, caps)) {
    case mad::LaneSpeed::kSdr:
      return "2.5 Gbps";
    case mad::LaneSpeed::kDdr:
      return "5.0 Gbps";
    case mad::LaneSpeed::kQdr:
      return "10.0 Gbps";
    case mad::LaneSpeed::kFdr:
      return "14.0625 Gbps";
    case mad::LaneSpeed::kEdr:
      return "25.78125 Gbps";
    case mad::LaneSpeed::kHdr:
      return "53.125 Gbps";
    case mad::LaneSpeed::kNdr:
      return "106.25 Gbps";
    case mad::LaneSpeed::kXdr:
      return "212.5 Gbps";
    default:
      return "";
  }
}

struct PortRefText {
  mad::Guid node_guid;
  unsigned port;
  std::string desc;
  std::string name;
};

}  // namespace

Answer querylid(const Snap& f, const NodeNamer& name_of, mad::Lid lid) {
  const sa::PortRef r = f.find_lid(lid);
  if (!r.valid())
    return fail_answer(kErrNotFound, fmt::format("Invalid lid {}: no port holds it", lid));
  const sa::PortRef holder = f.lid_holder(r);
  const sa::SnapNode& n = f.node(holder);
  const sa::SnapPort& p = f.port(holder);
  Answer a;
  a.text = fmt::format(
      "Query results for LID {}\n   GUID                : {}\n"
      "   Node GUID           : {}\n   Node Desc           : {}\n"
      "   Node Name           : {}\n"
      "   Node Type           : {}\n   Num Ports           : {}\n"
      "   Base LID / LMC      : {} / {}\n",
      lid, hex16(p.guid), hex16(n.guid()), n.description, name_of(n),
      mad::node_type_name(n.info.node_type), n.info.num_ports, p.lid, p.lmc);
  JsonWriter j;
  j.begin_object()
      .field("lid", lid)
      .field("port_guid", hex16(p.guid))
      .field("node_guid", hex16(n.guid()))
      .field("node_desc", n.description)
      .field("node_name", name_of(n))
      .field("node_type", mad::node_type_name(n.info.node_type))
      .field("num_ports", n.info.num_ports)
      .field("base_lid", p.lid)
      .field("lmc", p.lmc);
  j.key("ports").begin_array();
  for (const sa::SnapPort& q : n.ports) {
    if (!q.present) continue;
    if (!n.is_switch() && q.num == 0) continue;
    const bool healthy = q.info.port_state != mad::PortState::kDown || q.num == 0;
    a.text +=
        fmt::format("   Port {} state        : {} ({}), {} {}\n", q.num,
                    mad::port_state_name(q.info.port_state),
                    q.info.phys_state == mad::PhysState::kDisabled ? "disabled"
                    : healthy                                      ? "OK"
                                                                   : "down",
                    width_name(q.info.link_width_active), speed_name(q.info, speed_caps(n, q)));
    j.begin_object()
        .field("port", q.num)
        .field("state", mad::port_state_name(q.info.port_state))
        .field("phys_state", static_cast<unsigned>(q.info.phys_state))
        .field("width", width_name(q.info.link_width_active))
        .field("speed", speed_name(q.info, speed_caps(n, q)))
        .end_object();
  }
  j.end_array().end_object();
  a.json = j.text();
  return a;
}

// --- portstatus ---------------------------------------------------------------------

Answer portstatus(const Snap& f, const NodeNamer& name_of, const std::string& type) {
  mad::NodeType lim = mad::NodeType::kUnknown;
  if (type == "ca") lim = mad::NodeType::kCa;
  if (type == "switch") lim = mad::NodeType::kSwitch;
  if (type == "router") lim = mad::NodeType::kRouter;
  std::uint64_t nodes = 0, ports = 0, down = 0, active = 0, init = 0, armed = 0;
  std::map<std::string, std::uint64_t> widths, speeds;
  std::map<std::string, std::vector<PortRefText>> issues;
  for (const sa::SnapNode& n : f.nodes) {
    if (lim != mad::NodeType::kUnknown && n.info.node_type != lim) continue;
    ++nodes;
    for (const sa::SnapPort& p : n.ports) {
      if (p.num == 0 || !p.present) continue;
      const auto& pi = p.info;
      ++ports;
      PortRefText where{n.guid(), p.num, n.description, name_of(n)};
      switch (pi.port_state) {
        case mad::PortState::kDown:
          ++down;
          break;
        case mad::PortState::kActive:
          ++active;
          break;
        case mad::PortState::kInit:
          ++init;
          break;
        case mad::PortState::kArmed:
          ++armed;
          break;
        default:
          break;
      }
      if (pi.phys_state == mad::PhysState::kDisabled) issues["disabled"].push_back(where);
      if (pi.port_state == mad::PortState::kDown) continue;
      if (!(pi.link_width_active & pi.link_width_enabled))
        issues["with unenabled width"].push_back(where);
      else if ((pi.link_width_enabled ^ pi.link_width_active) > pi.link_width_active)
        issues["with reduced width"].push_back(where);
      if (!(pi.link_speed_active & pi.link_speed_enabled))
        issues["with unenabled speed"].push_back(where);
      else if ((pi.link_speed_enabled ^ pi.link_speed_active) > pi.link_speed_active)
        issues["with reduced speed"].push_back(where);
      const std::string w = width_name(pi.link_width_active);
      if (w == "unknown")
        issues["with unknown width"].push_back(where);
      else
        ++widths[w];
      const std::string sp = speed_name(pi, speed_caps(n, p));
      if (sp.empty())
        issues["with unknown speed"].push_back(where);
      else
        ++speeds[sp];
    }
  }
  Answer a;
  const std::string label = type.empty()       ? "ALL"
                            : type == "ca"     ? "CA"
                            : type == "switch" ? "Switch"
                                               : "Router";
  a.text =
      fmt::format("\"{}\" port status:\n   {} port(s) scanned on {} nodes\n", label, ports, nodes);
  if (down) a.text += fmt::format("   {} down\n", down);
  if (init) a.text += fmt::format("   {} init\n", init);
  if (armed) a.text += fmt::format("   {} armed\n", armed);
  if (active) a.text += fmt::format("   {} active\n", active);
  for (const char* w : {"1X", "2X", "4X", "8X", "12X"})
    if (widths.contains(w)) a.text += fmt::format("   {} at {}\n", widths[w], w);
  for (const auto& [sp, n] : speeds)
    a.text += fmt::format("   {} at {}\n", n, sp);
  if (!issues.empty()) a.text += "\nPossible issues:\n";
  for (const auto& [what, list] : issues) {
    a.text += fmt::format("   {} {}\n", list.size(), what);
    for (const auto& r : list)
      a.text += fmt::format("      {} {} ({})\n", hex16(r.node_guid), r.port, r.name);
  }
  a.text += "\n";
  JsonWriter j;
  j.begin_object().field("type", label).field("nodes", nodes).field("ports", ports);
  j.key("states")
      .begin_object()
      .field("down", down)
      .field("init", init)
      .field("armed", armed)
      .field("active", active)
      .end_object();
  j.key("widths").begin_object();
  for (const auto& [w, n] : widths)
    j.field(w, n);
  j.end_object().key("speeds").begin_object();
  for (const auto& [sp, n] : speeds)
    j.field(sp, n);
  j.end_object().key("issues").begin_object();
  for (const auto& [what, list] : issues) {
    j.key(what).begin_array();
    for (const auto& r : list)
      j.begin_object()
          .field("node_guid", hex16(r.node_guid))
          .field("port", r.port)
          .field("node_desc", r.desc)
          .field("node_name", r.name)
          .end_object();
    j.end_array();
  }
  j.end_object().end_object();
  a.json = j.text();
  return a;
}

}  // namespace ibsm::ctl::reports
