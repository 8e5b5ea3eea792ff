#include "routing/ftree/router.hpp"

#include <algorithm>

#include "routing/lid_owners.hpp"
#include "routing/port_balance.hpp"
#include "routing/sentinels.hpp"

namespace ibsm::routing::ftree {
namespace {}  // namespace

Router::Router(const Topology& topo, const TreeShape& shape, bool connect_roots)
    : topo_(topo),
      t_(shape),
      connect_roots_(connect_roots),
      n_(topo.switches.size()),
      lft_size_(std::size_t{max_lid(topo)} + 1),
      by_lid_(lft_size_ * n_, kNoPath),
      down_load_(shape.up.size(), 0),
      up_load_(shape.up.size(), 0),
      group_end_(shape.up.size(), 0),
      group_begin_(shape.up.size(), 0),
      mate_(shape.down.size(), kNone),
      routed_(n_, 0),
      main_at_(n_, 0),
      main_ch_(n_, kNone),
      lmc_used_(n_, 0),
      has_end_ports_(n_, 0),
      is_leaf_(n_, 0) {
  // Port groups: runs of up channels to the same peer (channels are sorted by peer).
  for (std::uint32_t s = 0; s < n_; ++s) {
    std::uint32_t b = t_.up_first[s];
    const std::uint32_t e = t_.up_first[s + 1];
    while (b < e) {
      std::uint32_t g = b;
      while (g < e && t_.up[g].peer == t_.up[b].peer)
        ++g;
      for (std::uint32_t c = b; c < g; ++c) {
        group_begin_[c] = b;
        group_end_[c] = g;
      }
      b = g;
    }
  }
  // The up channel of each down channel: same link seen from the lower switch.
  for (std::uint32_t s = 0; s < n_; ++s)
    for (std::uint32_t c = t_.down_first[s]; c < t_.down_first[s + 1]; ++c) {
      const Channel& d = t_.down[c];
      for (std::uint32_t u = t_.up_first[d.peer]; u < t_.up_first[d.peer + 1]; ++u)
        if (t_.up[u].peer == s && t_.up[u].port == d.peer_port) mate_[c] = u;
    }
  for (const EndPort& e : topo.end_ports)
    if (e.sw < n_) has_end_ports_[e.sw] = 1;
  for (std::uint32_t s = 0; s < n_; ++s)
    if (has_end_ports_[s]) end_port_switches_.push_back(s);
  for (std::uint32_t l : t_.leaves)
    is_leaf_[l] = 1;
}

// Step 1: the main path. Group load = main paths already going down over the group
// (OpenSM's counter_down on the lower switch's port group); ties keep index order.
void Router::climb(std::uint32_t home, bool count, bool avoid_marked) {
  path_.clear();
  std::uint32_t x = home;
  while (t_.up_first[x] != t_.up_first[x + 1]) {
    std::uint32_t best = kNone;
    std::uint64_t best_key = UINT64_MAX;
    for (std::uint32_t g = t_.up_first[x]; g < t_.up_first[x + 1]; g = group_end_[g]) {
      std::uint32_t load = 0;
      std::uint32_t port = g;
      for (std::uint32_t c = g; c < group_end_[g]; ++c) {
        load += down_load_[c];
        if (down_load_[c] < down_load_[port]) port = c;
      }
      // LMC: another LID of the same port avoids switches its earlier LIDs climbed
      // through, so its path is disjoint where the tree allows.
      const bool used = avoid_marked && lmc_used_[t_.up[g].peer] == port_epoch_;
      const std::uint64_t key = (std::uint64_t{used} << 32) | load;
      if (key < best_key) {
        best_key = key;
        best = port;
      }
    }
    path_.push_back(best);
    if (count) ++down_load_[best];
    x = t_.up[best].peer;
  }
}

// Step 2: mark the ancestors of `home` routed, in depth-first preorder, main path first,
// and give each its down entry.
void Router::mark_ancestors(std::uint32_t home, PortNum* row) {
  std::uint32_t x = home;
  for (std::uint32_t c : path_) {
    main_at_[x] = epoch_;
    main_ch_[x] = c;
    x = t_.up[c].peer;
  }
  ancestors_.clear();
  stack_.assign(1, {home, kNone});
  std::vector<std::pair<std::uint32_t, std::uint32_t>>& kids = groups_scratch_;
  while (!stack_.empty()) {
    const auto [y, via] = stack_.back();
    stack_.pop_back();
    if (routed_[y] == epoch_) continue;
    routed_[y] = epoch_;
    ancestors_.push_back(y);
    if (via != kNone) row[y] = t_.up[via].peer_port;
    // Children: up groups of y as (load, least loaded channel), least loaded first; the
    // main path's group before all. Pushed in reverse so the first pops first.
    kids.clear();
    const std::uint32_t main = main_at_[y] == epoch_ ? main_ch_[y] : kNone;
    for (std::uint32_t g = t_.up_first[y]; g < t_.up_first[y + 1]; g = group_end_[g]) {
      if (routed_[t_.up[g].peer] == epoch_) continue;
      std::uint32_t load = 0;
      std::uint32_t port = g;
      for (std::uint32_t c = g; c < group_end_[g]; ++c) {
        load += down_load_[c];
        if (down_load_[c] < down_load_[port]) port = c;
      }
      if (main != kNone && group_begin_[main] == g) continue;
      kids.push_back({load, port});
    }
    std::stable_sort(kids.begin(), kids.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto it = kids.rbegin(); it != kids.rend(); ++it)
      stack_.push_back({t_.up[it->second].peer, it->second});
    if (main != kNone) stack_.push_back({t_.up[main].peer, main});
  }
}

// Step 3: from each ancestor in preorder, switches below it that have no entry yet
// point up to the switch they were reached from.
void Router::pull_subtree(std::uint32_t root, PortNum* row) {
  work_.assign(1, root);
  while (!work_.empty()) {
    const std::uint32_t z = work_.back();
    work_.pop_back();
    for (std::uint32_t c = t_.down_first[z]; c < t_.down_first[z + 1]; ++c) {
      const std::uint32_t x = t_.down[c].peer;
      if (routed_[x] == epoch_) continue;
      routed_[x] = epoch_;
      const std::uint32_t m = mate_[c];
      std::uint32_t port = m;
      for (std::uint32_t u = group_begin_[m]; u < group_end_[m]; ++u)
        if (up_load_[u] < up_load_[port]) port = u;
      ++up_load_[port];
      row[x] = t_.up[port].port;
      work_.push_back(x);
    }
  }
}

// Switches still without an entry take one towards a neighbour that has one, breadth
// first, up to `max_depth` hops (any direction, hence not up/down).
void Router::extend(PortNum* row, unsigned max_depth, bool only_switches_without_end_ports) {
  work_.clear();
  for (std::uint32_t s = 0; s < n_; ++s)
    if (routed_[s] == epoch_) work_.push_back(s);
  if (work_.size() == n_) return;
  std::vector<std::uint32_t> next;
  for (unsigned depth = 0; depth < max_depth && !work_.empty(); ++depth) {
    next.clear();
    for (std::uint32_t s : work_)
      for (const Link& l : topo_.switches[s].links) {
        if (l.kind != Link::Kind::kSwitch || routed_[l.peer] == epoch_) continue;
        if (only_switches_without_end_ports && has_end_ports_[l.peer]) continue;
        routed_[l.peer] = epoch_;
        row[l.peer] = l.peer_port;
        next.push_back(l.peer);
      }
    work_.swap(next);
  }
}

void Router::account(const Destination& d, Lid lid) {
  for (std::uint32_t s : end_port_switches_) {
    if (routed_[s] == epoch_) continue;
    if (d.compute_node && is_leaf_[s]) {
      ++leaf_misses_;
    } else {
      ++other_misses_;
    }
    if (examples_.size() < 5) examples_.push_back({s, lid});
  }
}

void Router::route(const Destination& d, unsigned k, std::vector<std::uint32_t>& climbed) {
  const Lid lid = static_cast<Lid>(d.base_lid + k);
  if (lid >= lft_size_) return;
  PortNum* row = &by_lid_[std::size_t{lid} * n_];
  ++epoch_;
  ++port_epoch_;
  for (std::uint32_t s : climbed)
    lmc_used_[s] = port_epoch_;
  climb(d.sw, d.counted, !climbed.empty());
  std::uint32_t x = d.sw;
  for (std::uint32_t c : path_) {
    x = t_.up[c].peer;
    climbed.push_back(x);
  }
  mark_ancestors(d.sw, row);
  row[d.sw] = d.port;
  for (std::uint32_t a : ancestors_)
    pull_subtree(a, row);
  if (d.reverse_hops > 0) extend(row, d.reverse_hops, false);
  if (connect_roots_) extend(row, UINT32_MAX, true);
  account(d, lid);
}

void Router::route_dummy(std::uint32_t leaf) {
  climb(leaf, true, false);
}

Routes Router::take_routes() {
  Routes routes = routes_from_lid_major(by_lid_, n_, lft_size_);
  by_lid_.clear();
  return routes;
}

}  // namespace ibsm::routing::ftree
