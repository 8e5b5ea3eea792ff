#include "sm/discovery.hpp"

#include "mad/attr/node_description.hpp"

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

void Discovery::on_node_info(const DrPath& path, NodeIndex from, PortNum from_port,
                             const SmpOutcome& o) {
  if (!o.ok()) {
    if (from != kNoNode) fabric_.node(from).ports[from_port].peer_unreachable = true;
    problem(kErrNodeUnreachable, o, "node did not answer NodeInfo", from, from_port);
    return;
  }
  auto info = mad::decode<mad::NodeInfo>(o.response->data());
  if (!info.ok()) {
    if (from != kNoNode) fabric_.node(from).ports[from_port].peer_unreachable = true;
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
      if (from != kNoNode) fabric_.node(from).ports[from_port].peer_unreachable = true;
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
    read_port(idx, entry);  // another port of a multi-port CA
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
    for (PortNum p = 0; p <= node.num_ports(); ++p)
      read_port(idx, p);
  } else {
    read_port(idx, node.info.local_port_num);
  }
}

void Discovery::read_port(NodeIndex idx, PortNum port) {
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
  client_.submit(SmpRequest::get<mad::PortInfo>(path, port),
                 [this, idx, port](const SmpOutcome& o) { on_port_info(idx, port, o); });
}

void Discovery::on_port_info(NodeIndex idx, PortNum port, const SmpOutcome& o) {
  if (!o.ok()) {
    problem(kErrNodeUnreachable, o, "PortInfo", idx);
    return;
  }
  auto pi = mad::decode<mad::PortInfo>(o.response->data());
  if (!pi.ok()) {
    problem(kErrNodeBadAnswer, o, pi.error().message, idx);
    return;
  }
  Node& node = fabric_.node(idx);
  Port& p = node.ports[port];
  p.info = *pi;
  p.present = true;
  if (node.is_switch()) p.guid = node.guid();
  if (on_port_) on_port_(node, port);
  if (node.is_switch() && port != 0 && p.link_up() && p.peer == kNoNode) probe(idx, port);
  if (!node.is_switch() && idx == fabric_.sm_node && port == fabric_.sm_port && p.link_up() &&
      p.peer == kNoNode) {
    probe(idx, port);  // the SM's own CA port leads into the fabric
  }
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
