#include "routing/mcast_tree.hpp"

#include <algorithm>

namespace ibsm::routing {

namespace {

constexpr std::uint32_t kNoSlot = UINT32_MAX;
// An unreachable member weighs more than any real distance, so a root that reaches
// every member always wins over one that does not.
constexpr std::uint16_t kUnreachableWeight = 0x400;

// Spreads the choice among equally short uplinks over groups and switches; any fixed
// function keeps trees deterministic, this one just avoids lining every group up on
// the same cable.
std::uint32_t mix(std::uint32_t salt, std::uint32_t sw) {
  std::uint32_t h = salt * 0x9E3779B1u ^ (sw + 0x7F4A7C15u);
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  return h;
}

std::uint16_t positions_of(const Switch& s) {
  return static_cast<std::uint16_t>((std::size_t{s.num_ports} + 1 + 15) / 16);
}

}  // namespace

const McastTree::Entry* McastTree::find(std::uint32_t sw) const {
  auto it = std::lower_bound(entries.begin(), entries.end(), sw,
                             [](const Entry& e, std::uint32_t v) { return e.sw < v; });
  return it != entries.end() && it->sw == sw ? &*it : nullptr;
}

bool McastTree::has_port(std::uint32_t sw, PortNum port) const {
  const Entry* e = find(sw);
  if (e == nullptr || port / 16u >= e->positions) return false;
  return (masks[e->first + port / 16u] >> (port % 16u) & 1u) != 0;
}

std::vector<PortNum> McastTree::ports(std::uint32_t sw) const {
  std::vector<PortNum> out;
  const Entry* e = find(sw);
  if (e == nullptr) return out;
  for (unsigned p = 0; p < e->positions; ++p)
    for (unsigned b = 0; b < 16; ++b)
      if ((masks[e->first + p] >> b & 1u) != 0) out.push_back(static_cast<PortNum>(p * 16 + b));
  return out;
}

McastTreeBuilder::McastTreeBuilder(const Topology& topo, const HopMatrix& hops)
    : topo_(topo), hops_(hops) {
  const auto n = static_cast<std::uint32_t>(topo.switches.size());
  link_offset_.assign(n + 1, 0);
  for (std::uint32_t s = 0; s < n; ++s) {
    const auto begin = uplinks_.size();
    for (const Link& l : topo.switches[s].links)
      if (l.kind == Link::Kind::kSwitch && l.peer < n) uplinks_.push_back(l);
    std::sort(uplinks_.begin() + static_cast<std::ptrdiff_t>(begin), uplinks_.end(),
              [](const Link& a, const Link& b) { return a.port < b.port; });
    link_offset_[s + 1] = static_cast<std::uint32_t>(uplinks_.size());
  }
  slot_.assign(n, kNoSlot);
  worst_.assign(n, 0);
  total_.assign(n, 0);
}

McastTree McastTreeBuilder::build(std::span<const McastMember> members, std::uint32_t salt) const {
  McastTree tree;
  const auto n = static_cast<std::uint32_t>(topo_.switches.size());
  std::vector<McastMember> m;
  m.reserve(members.size());
  for (const McastMember& x : members)
    if (x.sw < n && x.port <= topo_.switches[x.sw].num_ports) m.push_back(x);
  std::sort(m.begin(), m.end(), [](const McastMember& a, const McastMember& b) {
    return a.sw != b.sw ? a.sw < b.sw : a.port < b.port;
  });
  m.erase(std::unique(m.begin(), m.end()), m.end());
  if (m.size() < 2) return tree;  // one member sends to nobody: no entries (OpenSM)

  // Root: smallest largest distance to the member switches, +1 behind a CA member
  // (the CA is one hop further than its switch), as OpenSM's mcast_mgr_find_root_switch.
  std::fill(worst_.begin(), worst_.end(), std::uint16_t{0});
  std::fill(total_.begin(), total_.end(), 0u);
  for (std::size_t i = 0; i < m.size();) {
    const std::uint32_t sw = m[i].sw;
    bool ca = false;
    std::uint32_t count = 0;
    for (; i < m.size() && m[i].sw == sw; ++i, ++count)
      ca = ca || m[i].port != 0;
    const std::uint8_t* row = hops_.row(sw);
    const std::uint16_t extra = ca ? 1 : 0;
    for (std::uint32_t s = 0; s < n; ++s) {
      const std::uint16_t d = row[s] == HopMatrix::kUnreachable
                                  ? kUnreachableWeight
                                  : static_cast<std::uint16_t>(row[s] + extra);
      worst_[s] = std::max(worst_[s], d);
      total_[s] += d * count;  // ties go to the root nearest most member ports
    }
  }
  std::uint32_t root = 0;
  for (std::uint32_t s = 1; s < n; ++s) {
    if (worst_[s] != worst_[root]) {
      if (worst_[s] < worst_[root]) root = s;
      continue;
    }
    if (total_[s] != total_[root]) {
      if (total_[s] < total_[root]) root = s;
      continue;
    }
    if (topo_.switches[s].guid < topo_.switches[root].guid) root = s;
  }
  tree.root = root;

  auto slot = [&](std::uint32_t sw) {
    if (slot_[sw] == kNoSlot) {
      slot_[sw] = static_cast<std::uint32_t>(tree.entries.size());
      McastTree::Entry e;
      e.sw = sw;
      e.first = static_cast<std::uint32_t>(tree.masks.size());
      e.positions = positions_of(topo_.switches[sw]);
      tree.entries.push_back(e);
      tree.masks.resize(tree.masks.size() + e.positions, 0);
    }
    return slot_[sw];
  };
  auto set_bit = [&](std::uint32_t sw, PortNum port) {
    const McastTree::Entry& e = tree.entries[slot(sw)];
    tree.masks[e.first + port / 16u] |= static_cast<std::uint16_t>(1u << (port % 16u));
  };

  // Every member switch joins along a shortest path towards the root; the walk stops
  // at the first switch already in the tree, so each switch gets exactly one upstream
  // link and the union of the walks is a tree.
  const std::uint8_t* to_root = hops_.row(root);
  slot(root);
  for (std::size_t i = 0; i < m.size(); ++i) {
    const std::uint32_t start = m[i].sw;
    if (to_root[start] == HopMatrix::kUnreachable) {
      ++tree.unreachable;
      continue;
    }
    std::uint32_t x = start;
    bool joined = slot_[x] != kNoSlot;  // the root is in from the start
    slot(x);
    while (!joined) {
      const std::uint8_t want = static_cast<std::uint8_t>(to_root[x] - 1);
      std::uint32_t candidates = 0;
      for (std::uint32_t l = link_offset_[x]; l < link_offset_[x + 1]; ++l)
        candidates += to_root[uplinks_[l].peer] == want ? 1 : 0;
      // A switch at distance d > 0 always has a neighbour at d - 1 (BFS distances).
      std::uint32_t pick = mix(salt, x) % candidates;
      const Link* up = nullptr;
      for (std::uint32_t l = link_offset_[x]; l < link_offset_[x + 1]; ++l) {
        if (to_root[uplinks_[l].peer] != want) continue;
        if (pick-- == 0) {
          up = &uplinks_[l];
          break;
        }
      }
      set_bit(x, up->port);
      joined = slot_[up->peer] != kNoSlot;
      set_bit(up->peer, up->peer_port);
      x = up->peer;
    }
    set_bit(start, m[i].port);
  }

  for (const McastTree::Entry& e : tree.entries)
    slot_[e.sw] = kNoSlot;
  std::sort(tree.entries.begin(), tree.entries.end(),
            [](const McastTree::Entry& a, const McastTree::Entry& b) { return a.sw < b.sw; });
  return tree;
}

}  // namespace ibsm::routing
