#include "sm/discovery/discovery.hpp"

#include <bit>
#include <string>

#include "mad/attr/node_description.hpp"
#include "mad/attr/port_speeds.hpp"
#include "mad/errors.hpp"

namespace ibsm::sm {

using mad::DrPath;
using mad::SmpOutcome;
using mad::SmpRequest;

void Discovery::name_node(Node& node) const {
  node.name = names_ ? names_->name_of(node.guid(), node.description)
                     : names::printable_description(node.description);
}

void Discovery::problem(ErrorId id, const SmpOutcome& o, const std::string& what, NodeIndex about,
                        PortNum via_port) {
  std::string msg = what + ": " + o.request.describe();
  if (about != kNoNode) {
    const Node& n = fabric_.node(about);
    const std::string& name = n.display_name();
    msg += via_port != 0 ? " (behind " : " (";
    msg += name.empty() ? mad::format_guid(n.guid())
                        : "\"" + name + "\" " + mad::format_guid(n.guid());
    if (via_port != 0) msg += " port " + std::to_string(via_port);
    msg += ")";
  }
  if (o.failure != nullptr) {
    msg += ": " + std::string(mad::failure_kind_name(o.failure->kind)) + " (" + o.failure->detail +
           ")";
  }
  log_->warn("{}: {}", format_error_id(id), msg);
  report_.add(id, std::move(msg));
  if (on_failure_ && o.failure != nullptr) on_failure_(o);
}

void Discovery::start() {
  DrPath here;
  client_.submit(SmpRequest::get<mad::NodeInfo>(here),
                 [this, here](const SmpOutcome& o) { on_node_info(here, kNoNode, 0, o); });
}

void Discovery::finish() {
  if (speed_field_more_ == 0) return;
  log_->warn(
      "{}: {} more ports with contradictory PortInfo speed fields, not listed (the first "
      "{} are above); each uses the speeds its fields agree on",
      format_error_id(mad::kErrSpeedFields), speed_field_more_, kSpeedFieldLines);
}

void Discovery::on_node_info(const DrPath& path, NodeIndex from, PortNum from_port,
                             const SmpOutcome& o) {
  if (!o.ok()) {
    if (from != kNoNode) fabric_.node(from).ports[from_port].peer_unreachable = true;
    problem(kErrNodeUnreachable, o, "node did not answer NodeInfo", from, from_port);
    return;
  }
  auto info = mad::decode<mad::NodeInfo>(o.response->data());
  if (!info.ok()) {
    // GUID 0, LocalPortNum beyond NumPorts, ...: illegal, charged to the port it is behind.
    if (from != kNoNode) {
      fabric_.node(from).ports[from_port].peer_unreachable = true;
      report_.illegal(fabric_.node(from).guid(), from_port);
    }
    problem(kErrNodeBadAnswer, o, info.error().message, from, from_port);
    return;
  }
  const PortNum entry = info->node_type == mad::NodeType::kSwitch ? 0 : info->local_port_num;
  NodeIndex idx = fabric_.find(info->node_guid);
  const bool is_new = idx == kNoNode;
  if (is_new) {
    idx = fabric_.add_node(*info, path);
    name_node(fabric_.node(idx));  // the map's name now, the description once read
  } else {
    const Node& known = fabric_.node(idx);
    if (known.type() != info->node_type || known.num_ports() != info->num_ports) {
      // Two different devices claim one GUID: a real fault on a fabric, never ours to merge.
      if (from != kNoNode) {
        fabric_.node(from).ports[from_port].peer_unreachable = true;
        report_.illegal(fabric_.node(from).guid(), from_port);
      }
      problem(kErrDuplicateGuid, o,
              "GUID " + mad::format_guid(info->node_guid) + " answers as a different node", from,
              from_port);
      return;
    }
  }
  Node& node = fabric_.node(idx);
  node.ports[entry].guid = info->port_guid;
  if (from == kNoNode) {
    fabric_.sm_node = idx;
    fabric_.sm_port = node.is_switch() ? 0 : info->local_port_num;
  } else {
    // The port we entered through faces the port we probed from. For a switch the
    // entry port is LocalPortNum, not port 0.
    fabric_.link(from, from_port, idx, info->local_port_num);
  }
  if (is_new) {
    read_new_node(idx);
  } else if (!node.is_switch() && !node.ports[entry].present) {
    read_port(idx, entry, known_extended(node, entry));  // another port of a multi-port CA
  }
}

void Discovery::read_new_node(NodeIndex idx) {
  const Node& node = fabric_.node(idx);
  const DrPath path = node.path;
  client_.submit(SmpRequest::get<mad::NodeDescription>(path), [this, idx](const SmpOutcome& o) {
    if (!o.ok()) {
      problem(kErrNodeUnreachable, o, "NodeDescription", idx);
      return;
    }
    if (auto d = mad::decode<mad::NodeDescription>(o.response->data()); d.ok()) {
      fabric_.node(idx).description = d->text;
      name_node(fabric_.node(idx));
    }
  });
  if (node.is_switch()) {
    client_.submit(SmpRequest::get<mad::SwitchInfo>(path), [this, idx](const SmpOutcome& o) {
      if (!o.ok()) {
        problem(kErrNodeUnreachable, o, "SwitchInfo", idx);
        return;
      }
      if (auto si = mad::decode<mad::SwitchInfo>(o.response->data()); si.ok())
        fabric_.node(idx).switch_info = *si;
    });
    // Port 0 first: its CapabilityMask says whether the external ports' PortInfo Gets
    // must carry SMSupportsExtendedSpeeds (on_port_info reads them after it).
    read_port(idx, 0);
  } else {
    read_port(idx, node.info.local_port_num, known_extended(node, node.info.local_port_num));
  }
}

bool Discovery::known_extended(const Node& node, PortNum port) const {
  if (previous_ == nullptr) return false;
  const NodeIndex was = previous_->find(node.guid());
  if (was == kNoNode) return false;
  const Node& old = previous_->node(was);
  return !old.is_switch() && port < old.ports.size() && old.ports[port].present &&
         mad::wants_extended_speeds_get(old.ports[port].info);
}

void Discovery::read_external_ports(NodeIndex idx) {
  const Node& node = fabric_.node(idx);
  const bool extended = node.ports[0].present && mad::wants_extended_speeds_get(node.ports[0].info);
  for (PortNum p = 1; p <= node.num_ports(); ++p)
    read_port(idx, p, extended);
}

void Discovery::read_port(NodeIndex idx, PortNum port, bool extended_speeds) {
  const Node& node = fabric_.node(idx);
  // A CA answers PortInfo for the port the SMP arrived on; its path is the path
  // of that port, which for a second CA port differs from the node's first path.
  DrPath path = node.path;
  if (!node.is_switch()) {
    const Port& p = node.ports[port];
    if (p.peer != kNoNode) {
      const Node& sw = fabric_.node(p.peer);
      if (auto ext = sw.path.extended(p.peer_port)) path = *ext;
    }
  }
  fabric_.node(idx).ports[port].present = false;
  const std::uint32_t mod = port | (extended_speeds ? mad::kSmSupportsExtendedSpeeds : 0u);
  client_.submit(SmpRequest::get<mad::PortInfo>(path, mod),
                 [this, idx, port](const SmpOutcome& o) { on_port_info(idx, port, o); });
}

void Discovery::on_port_info(NodeIndex idx, PortNum port, const SmpOutcome& o) {
  // A switch's external ports are read once its port 0 answered (or did not).
  const bool first_of_switch = port == 0 && fabric_.node(idx).is_switch();
  if (!o.ok()) {
    problem(kErrNodeUnreachable, o, "PortInfo", idx);
    if (first_of_switch) read_external_ports(idx);
    return;
  }
  auto pi = mad::decode<mad::PortInfo>(o.response->data());
  if (!pi.ok()) {
    report_.illegal(fabric_.node(idx).guid(), port);  // an undefined PortState, ...
    problem(kErrNodeBadAnswer, o, pi.error().message, idx);
    if (first_of_switch) read_external_ports(idx);
    return;
  }
  Node& node = fabric_.node(idx);
  const mad::PortInfo& caps =
      node.is_switch() && port != 0 && node.ports[0].present ? node.ports[0].info : *pi;
  if (port != 0 && (o.request.attr_mod & mad::kSmSupportsExtendedSpeeds) == 0 &&
      mad::wants_extended_speeds_get(caps)) {
    // The port has extended speeds, and a device may leave them out of an answer to
    // an SM that did not say it knows them (OpenSM issue 38, fixed by its PR 39 the
    // same way): ask again with SMSupportsExtendedSpeeds.
    log_->debug("{} port {}: PortInfo again with SMSupportsExtendedSpeeds",
                mad::format_guid(node.guid()), port);
    read_port(idx, port, true);
    return;
  }
  Port& p = node.ports[port];
  p.info = *pi;
  check_values(node, port);
  if (port != 0) {
    mad::SpeedFieldCheck check = mad::check_speed_fields(*pi, caps);
    if (!check.problems.empty() && speed_field_lines_ >= kSpeedFieldLines) {
      ++speed_field_more_;
      p.info = check.cleaned;
    } else if (!check.problems.empty()) {
      // Counted with what the port certainly runs; the link still comes up.
      ++speed_field_lines_;
      log_->warn(
          "{}: {} ({}) port {} at DR path {}: contradictory PortInfo speed fields: {}; "
          "using the speeds they agree on",
          format_error_id(mad::kErrSpeedFields), mad::format_guid(node.guid()), node.description,
          port, node.path.to_string(), check.problems);
      p.info = check.cleaned;
    }
  }
  p.present = true;
  if (node.is_switch()) p.guid = node.guid();
  if (on_port_) on_port_(node, port);
  if (first_of_switch) read_external_ports(idx);
  if (node.is_switch() && port != 0 && p.link_up() && p.peer == kNoNode &&
      !(stop_at_ && stop_at_(node.guid(), port)))
    probe(idx, port);
  if (!node.is_switch() && idx == fabric_.sm_node && port == fabric_.sm_port && p.link_up() &&
      p.peer == kNoNode) {
    probe(idx, port);  // the SM's own CA port leads into the fabric
  }
}

void Discovery::check_values(const Node& node, PortNum port) {
  const mad::PortInfo& pi = node.ports[port].info;
  if (port == 0) return;  // a switch's port 0 has no physical link
  const auto phys = static_cast<unsigned>(pi.phys_state);
  const unsigned width = pi.link_width_active;
  const bool up = pi.port_state != mad::PortState::kDown;
  std::string why;
  if (phys > static_cast<unsigned>(mad::PhysState::kPhyTest))
    why = "undefined PortPhysicalState " + std::to_string(phys);
  else if (up && !std::has_single_bit(width))
    why = "LinkWidthActive " + std::to_string(width) + " is not one width";
  if (why.empty()) return;
  // Kept as read (the rest of the answer may serve); fabric health counts it (illegal).
  report_.illegal(node.guid(), port);
  log_->warn("{}: {} ({}) port {}: {}", format_error_id(mad::kErrInvalidAttribute),
             mad::format_guid(node.guid()), node.display_name(), port, why);
}

void Discovery::probe(NodeIndex idx, PortNum port) {
  const Node& node = fabric_.node(idx);
  // From a CA only the SM's own node is a starting point: hop 1 leaves through it.
  auto next = node.path.extended(port);
  if (!next) {
    report_.add(kErrHopLimit, "DR path " + node.path.to_string() + " already 63 hops long");
    return;
  }
  const DrPath path = *next;
  client_.submit(
      SmpRequest::get<mad::NodeInfo>(path),
      [this, path, idx, port](const SmpOutcome& o) { on_node_info(path, idx, port, o); });
}

}  // namespace ibsm::sm
