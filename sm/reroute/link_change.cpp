#include "sm/reroute/link_change.hpp"

#include <algorithm>
#include <deque>

#include <fmt/format.h>

namespace ibsm::sm::reroute {

namespace {

bool at_least_armed(mad::PortState s) {
  return s == mad::PortState::kArmed || s == mad::PortState::kActive;
}

// A port is "up" for a reading the way Port::link_up() defines it.
bool reading_up(const mad::PortInfo& pi) {
  return pi.port_state != mad::PortState::kDown && pi.port_state != mad::PortState::kNoChange;
}

std::string where(const Fabric& f, NodeIndex n, PortNum p) {
  const Node& node = f.node(n);
  return fmt::format("{} {} port {}", node.display_name().empty() ? "?" : node.display_name(),
                     mad::format_guid(node.guid()), p);
}

// Whether the directed route `path` still leads from the SM's node to `target` over
// links that are up in `f` (only switches forward; the SM's own CA port is hop 1).
bool path_valid(const Fabric& f, const mad::DrPath& path, NodeIndex target) {
  NodeIndex cur = f.sm_node;
  for (std::size_t hop = 1; hop <= path.hops(); ++hop) {
    const Node& n = f.node(cur);
    if (cur != f.sm_node && !n.is_switch()) return false;
    const PortNum out = path.port_at(hop);
    if (out == 0 || out >= n.ports.size()) return false;
    const Port& p = n.ports[out];
    if (p.peer == kNoNode || !p.link_up()) return false;
    cur = p.peer;
  }
  return cur == target;
}

}  // namespace

ReadingVerdict classify_readings(const Fabric& model, const std::vector<PortReading>& readings) {
  ReadingVerdict v;
  for (const PortReading& r : readings) {
    if (r.port == 0) continue;
    const Port& old = model.node(r.node).ports[r.port];
    const bool was_up = old.link_up() && old.peer != kNoNode;
    const bool is_up = reading_up(r.info);
    if (was_up && !is_up) {
      const Node& peer = model.node(old.peer);
      if (!peer.is_switch()) {
        v.fallback = "end port link down at " + where(model, r.node, r.port);
        return v;
      }
      // Both switches report the loss: record it once, from the lower end.
      const bool seen = std::any_of(v.downs.begin(), v.downs.end(), [&](const LinkChange& c) {
        return c.b == r.node && c.pb == r.port;
      });
      if (!seen)
        v.downs.push_back({LinkChange::Kind::kDown, r.node, r.port, old.peer, old.peer_port});
      continue;
    }
    if (!is_up) continue;
    // Up now: unknown before, or it bounced (a link that was Active reads Init again).
    if (!was_up || (at_least_armed(old.info.port_state) && !at_least_armed(r.info.port_state))) {
      if (was_up && !model.node(old.peer).is_switch()) {
        v.fallback = "end port link bounced at " + where(model, r.node, r.port);
        return v;
      }
      v.probes.emplace_back(r.node, r.port);
    }
  }
  return v;
}

std::variant<LinkChange, std::string> classify_probe(const Fabric& model, const ProbeAnswer& a) {
  const NodeIndex peer = model.find(a.info.node_guid);
  const std::string at = where(model, a.node, a.port);
  if (peer == kNoNode) return "new node " + mad::format_guid(a.info.node_guid) + " behind " + at;
  const Node& pn = model.node(peer);
  if (!pn.is_switch() || a.info.node_type != mad::NodeType::kSwitch)
    return "a link to a non-switch node came up at " + at;
  if (pn.num_ports() != a.info.num_ports)
    return "GUID " + mad::format_guid(a.info.node_guid) + " answers as a different node";
  const PortNum pp = a.info.local_port_num;
  if (pp == 0 || pp > pn.num_ports()) return "bad LocalPortNum behind " + at;
  const Port& theirs = pn.ports[pp];
  const Port& ours = model.node(a.node).ports[a.port];
  const bool same_link = ours.peer == peer && ours.peer_port == pp;
  if (!same_link && (theirs.peer != kNoNode || ours.peer != kNoNode))
    return "a link moved: " + at + " now faces " + where(model, peer, pp);
  return LinkChange{LinkChange::Kind::kUp, a.node, a.port, peer, pp};
}

std::optional<std::string> apply_link_changes(Fabric& f, const std::vector<LinkChange>& changes,
                                              const std::vector<PortReading>& readings) {
  for (const PortReading& r : readings) {
    Port& p = f.node(r.node).ports[r.port];
    p.info = r.info;
    p.present = true;
  }
  for (const LinkChange& c : changes) {
    Port& x = f.node(c.a).ports[c.pa];
    Port& y = f.node(c.b).ports[c.pb];
    if (c.kind == LinkChange::Kind::kUp) {
      f.link(c.a, c.pa, c.b, c.pb);
      continue;
    }
    for (Port* p : {&x, &y}) {
      p->peer = kNoNode;
      p->peer_port = 0;
      // The far end may not have been read (its switch did not flag the change yet).
      p->info.port_state = mad::PortState::kDown;
    }
  }
  // New directed routes where the old ones crossed a lost link: breadth first from
  // the SM's node, so the new routes are shortest, as discovery's are.
  std::vector<bool> reached(f.size(), false);
  std::deque<NodeIndex> todo{f.sm_node};
  reached[f.sm_node] = true;
  while (!todo.empty()) {
    const NodeIndex cur = todo.front();
    todo.pop_front();
    const Node& n = f.node(cur);
    if (cur != f.sm_node && !n.is_switch()) continue;
    for (const Port& p : n.ports) {
      if (p.num == 0 || p.peer == kNoNode || !p.link_up() || reached[p.peer]) continue;
      if (cur == f.sm_node && !n.is_switch() && p.num != f.sm_port) continue;
      reached[p.peer] = true;
      Node& peer = f.node(p.peer);
      if (!path_valid(f, peer.path, p.peer)) {
        auto ext = n.path.extended(p.num);
        if (!ext) return "no directed route within 63 hops to " + where(f, p.peer, 0);
        peer.path = *ext;
      }
      todo.push_back(p.peer);
    }
  }
  for (NodeIndex i = 0; i < f.size(); ++i)
    if (!reached[i]) return "cut off: " + where(f, i, 0);
  return std::nullopt;
}

std::string describe_changes(const Fabric& f, const std::vector<LinkChange>& changes) {
  std::size_t downs = 0;
  std::size_t ups = 0;
  std::string list;
  for (const LinkChange& c : changes) {
    (c.kind == LinkChange::Kind::kDown ? downs : ups)++;
    list += fmt::format("{}{} {} - {}", list.empty() ? "" : "; ",
                        c.kind == LinkChange::Kind::kDown ? "down" : "up", where(f, c.a, c.pa),
                        where(f, c.b, c.pb));
  }
  std::string head;
  if (downs) head += fmt::format("{} link{} down", downs, downs == 1 ? "" : "s");
  if (ups)
    head += fmt::format("{}{} link{} up", head.empty() ? "" : ", ", ups, ups == 1 ? "" : "s");
  if (head.empty()) head = "no link change";
  return list.empty() ? head : head + " (" + list + ")";
}

}  // namespace ibsm::sm::reroute
