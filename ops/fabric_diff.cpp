#include "ops/fabric_diff.hpp"

#include <tuple>

namespace ibsm::ops {

PortIndex index_ports(const sa::Snapshot& snap) {
  PortIndex idx;
  for (const sa::SnapNode& n : snap.nodes) {
    for (const sa::SnapPort& p : n.ports) {
      if (!p.present) continue;
      if (n.is_switch() && p.num == 0) {
        // Switch port 0 holds the switch's LID; its state is not a link's.
        idx[{n.guid(), 0}] = PortFacts{mad::PortState::kActive, p.lid, 0, 0, n.description};
        continue;
      }
      PortFacts f;
      f.state = p.info.port_state;
      f.lid = n.is_switch() ? 0 : p.lid;
      if (p.peer.valid()) {
        f.peer_node = snap.nodes[p.peer.node].guid();
        f.peer_port = p.peer.port;
      }
      f.node_desc = n.description;
      idx[{n.guid(), p.num}] = std::move(f);
    }
  }
  return idx;
}

namespace {

std::vector<EventField> where(const std::pair<mad::Guid, mad::PortNum>& key, const PortFacts& f) {
  return {{"node_guid", mad::format_guid(key.first)},
          {"port", static_cast<std::uint64_t>(key.second)},
          {"node_desc", f.node_desc}};
}

std::vector<EventField> link_fields(const std::pair<mad::Guid, mad::PortNum>& key,
                                    const PortFacts& f) {
  auto out = where(key, f);
  out.push_back({"peer_guid", mad::format_guid(f.peer_node)});
  out.push_back({"peer_port", static_cast<std::uint64_t>(f.peer_port)});
  return out;
}

// A link is reported once: from the end whose (GUID, port) sorts first.
bool reports_link(const std::pair<mad::Guid, mad::PortNum>& key, const PortFacts& f) {
  return std::tie(key.first, key.second) < std::tie(f.peer_node, f.peer_port);
}

}  // namespace

std::vector<FabricChange> diff_fabric(const PortIndex& before, const PortIndex& after) {
  std::vector<FabricChange> out;
  if (before.empty()) return out;
  static const PortFacts kGone{};
  for (const auto& [key, now] : after) {
    auto it = before.find(key);
    const PortFacts& then = it == before.end() ? kGone : it->second;
    if (key.second != 0) {  // switch port 0 has no link state of its own
      if (now.state != then.state) {
        auto fields = where(key, now);
        fields.push_back({"from", std::string(mad::port_state_name(then.state))});
        fields.push_back({"to", std::string(mad::port_state_name(now.state))});
        out.push_back({EventType::kPortState, std::move(fields)});
      }
    }
    const bool linked_now = now.peer_node != 0;
    const bool linked_then = then.peer_node != 0;
    if (linked_now &&
        (!linked_then || then.peer_node != now.peer_node || then.peer_port != now.peer_port)) {
      if (reports_link(key, now)) out.push_back({EventType::kLinkUp, link_fields(key, now)});
    }
    if (linked_then &&
        (!linked_now || then.peer_node != now.peer_node || then.peer_port != now.peer_port)) {
      if (reports_link(key, then)) out.push_back({EventType::kLinkDown, link_fields(key, then)});
    }
    if (now.lid != 0 && now.lid != then.lid) {
      auto fields = where(key, now);
      fields.push_back({"lid", static_cast<std::uint64_t>(now.lid)});
      if (then.lid != 0) {
        fields.push_back({"old_lid", static_cast<std::uint64_t>(then.lid)});
        out.push_back({EventType::kLidChanged, std::move(fields)});
      } else {
        out.push_back({EventType::kLidAssigned, std::move(fields)});
      }
    }
  }
  for (const auto& [key, then] : before) {
    if (after.contains(key)) continue;
    if (key.second != 0 && then.state != mad::PortState::kDown) {
      auto fields = where(key, then);
      fields.push_back({"from", std::string(mad::port_state_name(then.state))});
      fields.push_back({"to", std::string(mad::port_state_name(mad::PortState::kDown))});
      out.push_back({EventType::kPortState, std::move(fields)});
    }
    if (then.peer_node != 0 && reports_link(key, then))
      out.push_back({EventType::kLinkDown, link_fields(key, then)});
  }
  return out;
}

}  // namespace ibsm::ops
