#include "metrics/topology_layout.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <map>
#include <numbers>

namespace ibsm::metrics {

namespace {

// Switches, their hosts and the links between them.
TopologyLayout switch_graph(const sa::Snapshot& fabric) {
  TopologyLayout l;
  std::vector<std::uint32_t> slot(fabric.nodes.size(), UINT32_MAX);
  for (std::uint32_t n = 0; n < fabric.nodes.size(); ++n) {
    if (!fabric.nodes[n].is_switch()) continue;
    slot[n] = static_cast<std::uint32_t>(l.switches.size());
    l.switches.push_back(LayoutSwitch{n});
  }
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> link_of;
  for (LayoutSwitch& sw : l.switches) {
    const sa::SnapNode& node = fabric.nodes[sw.node];
    for (const sa::SnapPort& p : node.ports) {
      if (p.num == 0 || !p.present || !p.peer.valid() || p.peer.node >= fabric.nodes.size())
        continue;
      const std::uint32_t other = slot[p.peer.node];
      if (other == UINT32_MAX) {
        ++sw.hosts;
        if (p.info.port_state == mad::PortState::kActive) ++sw.hosts_active;
        continue;
      }
      const std::uint32_t self = slot[sw.node];
      // Each cable once: from its lower end (a switch cabled to itself: lower port).
      if (other < self || (other == self && p.peer.port < p.num)) continue;
      const auto [it, added] = link_of.emplace(std::pair{self, other}, l.links.size());
      if (added) l.links.push_back(LayoutLink{self, other, {}});
      l.links[it->second].cables.emplace_back(p.num, p.peer.port);
    }
  }
  return l;
}

const std::string& name_of(const sa::Snapshot& f, const LayoutSwitch& s) {
  return f.nodes[s.node].description;
}

// Tiers by breadth-first search from the leaves; false unless every switch has one
// and every link joins neighbouring tiers.
bool assign_tiers(TopologyLayout& l, const std::vector<std::vector<std::uint32_t>>& adj) {
  std::deque<std::uint32_t> queue;
  for (std::uint32_t i = 0; i < l.switches.size(); ++i)
    if (l.switches[i].hosts > 0) {
      l.switches[i].tier = 0;
      queue.push_back(i);
    }
  if (queue.empty()) return false;
  while (!queue.empty()) {
    const std::uint32_t s = queue.front();
    queue.pop_front();
    for (const std::uint32_t t : adj[s])
      if (l.switches[t].tier < 0) {
        l.switches[t].tier = l.switches[s].tier + 1;
        queue.push_back(t);
      }
  }
  for (const LayoutSwitch& s : l.switches)
    if (s.tier < 0) return false;
  for (const LayoutLink& k : l.links)
    if (std::abs(l.switches[k.a].tier - l.switches[k.b].tier) != 1) return false;
  return true;
}

void place_tiers(TopologyLayout& l, const sa::Snapshot& f,
                 const std::vector<std::vector<std::uint32_t>>& adj) {
  int top = 0;
  for (const LayoutSwitch& s : l.switches)
    top = std::max(top, s.tier);
  l.tiers = top + 1;
  std::vector<std::vector<std::uint32_t>> rows(static_cast<std::size_t>(l.tiers));
  for (std::uint32_t i = 0; i < l.switches.size(); ++i)
    rows[static_cast<std::size_t>(l.switches[i].tier)].push_back(i);
  std::vector<double> order(l.switches.size(), 0);  // position within the row
  std::size_t widest = 1;
  for (int t = 0; t < l.tiers; ++t) {
    auto& row = rows[static_cast<std::size_t>(t)];
    std::vector<double> key(l.switches.size(), 0);
    for (const std::uint32_t s : row) {  // the mean position of the neighbours below
      double sum = 0;
      int n = 0;
      for (const std::uint32_t b : adj[s])
        if (l.switches[b].tier == t - 1) sum += order[b], ++n;
      key[s] = n ? sum / n : 0;
    }
    std::stable_sort(row.begin(), row.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (key[a] != key[b]) return key[a] < key[b];
      return natural_less(name_of(f, l.switches[a]), name_of(f, l.switches[b]));
    });
    for (std::size_t i = 0; i < row.size(); ++i)
      order[row[i]] = static_cast<double>(i) / static_cast<double>(row.size());
    widest = std::max(widest, row.size());
  }
  const double inner = std::max(kMinRowWidth, static_cast<double>(widest) * kSwitchPitch);
  l.width = 2 * kMargin + inner;
  l.height = 2 * kMargin + (l.tiers - 1) * kTierGap + kHostDrop + kSwitchSize;
  for (int t = 0; t < l.tiers; ++t) {
    const auto& row = rows[static_cast<std::size_t>(t)];
    for (std::size_t i = 0; i < row.size(); ++i) {
      LayoutSwitch& s = l.switches[row[i]];
      s.x = kMargin + (static_cast<double>(i) + 0.5) * inner / static_cast<double>(row.size());
      s.y = kMargin + kSwitchSize / 2 + (l.tiers - 1 - t) * kTierGap;
    }
  }
}

// Fruchterman-Reingold from a circle, deterministic; the circle alone when too big.
void place_graph(TopologyLayout& l, const sa::Snapshot& f) {
  const std::size_t n = l.switches.size();
  std::vector<std::uint32_t> by_name(n);
  for (std::uint32_t i = 0; i < n; ++i)
    by_name[i] = i;
  std::stable_sort(by_name.begin(), by_name.end(), [&](std::uint32_t a, std::uint32_t b) {
    return natural_less(name_of(f, l.switches[a]), name_of(f, l.switches[b]));
  });
  const double side = std::max(400.0, std::sqrt(static_cast<double>(n)) * 70);
  std::vector<double> x(n), y(n);
  for (std::size_t r = 0; r < n; ++r) {
    const double a = 2 * std::numbers::pi * static_cast<double>(r) / static_cast<double>(n);
    x[by_name[r]] = side / 2 + side * 0.45 * std::cos(a);
    y[by_name[r]] = side / 2 + side * 0.45 * std::sin(a);
  }
  if (n >= 2 && n <= kForceLayoutMax) {
    const double k = std::sqrt(side * side / static_cast<double>(n));
    constexpr int kIterations = 80;
    std::vector<double> dx(n), dy(n);
    for (int it = 0; it < kIterations; ++it) {
      std::fill(dx.begin(), dx.end(), 0);
      std::fill(dy.begin(), dy.end(), 0);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) {
          const double ex = x[i] - x[j], ey = y[i] - y[j];
          const double d = std::max(0.01, std::hypot(ex, ey));
          const double push = k * k / d / d;
          dx[i] += ex * push, dy[i] += ey * push;
          dx[j] -= ex * push, dy[j] -= ey * push;
        }
      for (const LayoutLink& e : l.links) {
        const double ex = x[e.a] - x[e.b], ey = y[e.a] - y[e.b];
        const double pull = std::hypot(ex, ey) / k;
        dx[e.a] -= ex * pull, dy[e.a] -= ey * pull;
        dx[e.b] += ex * pull, dy[e.b] += ey * pull;
      }
      const double step = side / 10 * (1 - static_cast<double>(it) / kIterations);
      for (std::size_t i = 0; i < n; ++i) {
        const double d = std::max(0.01, std::hypot(dx[i], dy[i]));
        x[i] = std::clamp(x[i] + dx[i] / d * std::min(d, step), 0.0, side);
        y[i] = std::clamp(y[i] + dy[i] / d * std::min(d, step), 0.0, side);
      }
    }
  }
  l.width = side + 2 * kMargin;
  l.height = side + 2 * kMargin + kHostDrop;
  for (std::size_t i = 0; i < n; ++i) {
    l.switches[i].x = kMargin + x[i];
    l.switches[i].y = kMargin + y[i];
  }
}

}  // namespace

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i]));
    const bool db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])))
        ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])))
        ++ej;
      // Compare as numbers: strip leading zeros, then longer is larger.
      std::size_t za = i, zb = j;
      while (za + 1 < ei && a[za] == '0')
        ++za;
      while (zb + 1 < ej && b[zb] == '0')
        ++zb;
      if (ei - za != ej - zb) return ei - za < ej - zb;
      const int c = a.compare(za, ei - za, b, zb, ej - zb);
      if (c != 0) return c < 0;
      i = ei, j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i, ++j;
  }
  return a.size() - i < b.size() - j;
}

TopologyLayout lay_out(const sa::Snapshot& fabric) {
  TopologyLayout l = switch_graph(fabric);
  std::vector<std::vector<std::uint32_t>> adj(l.switches.size());
  for (const LayoutLink& k : l.links) {
    if (k.a == k.b) continue;
    adj[k.a].push_back(k.b);
    adj[k.b].push_back(k.a);
  }
  l.tiered = assign_tiers(l, adj);
  if (l.tiered) {
    place_tiers(l, fabric, adj);
  } else {
    for (LayoutSwitch& s : l.switches)
      s.tier = -1;
    l.tiers = 0;
    place_graph(l, fabric);
  }
  return l;
}

}  // namespace ibsm::metrics
