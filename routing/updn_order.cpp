#include "routing/updn_order.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "routing/errors.hpp"
#include "routing/guid_file.hpp"

namespace ibsm::routing {
namespace {

std::string name_of(const Switch& sw) {
  return hex_guid(sw.guid) + (sw.description.empty() ? "" : " (" + sw.description + ")");
}

// End ports (CAs, routers) hanging off each switch: the weights of both root rules.
std::vector<std::uint32_t> end_ports_per_switch(const Topology& topo) {
  std::vector<std::uint32_t> n(topo.switches.size(), 0);
  for (const EndPort& e : topo.end_ports)
    if (e.sw < n.size()) ++n[e.sw];
  return n;
}

// Component id of every switch (switches joined by inter-switch links).
std::vector<std::uint32_t> components(const HopMatrix& hops) {
  const std::uint32_t n = hops.num_switches();
  std::vector<std::uint32_t> comp(n, UINT32_MAX);
  std::uint32_t next = 0;
  for (std::uint32_t s = 0; s < n; ++s) {
    if (comp[s] != UINT32_MAX) continue;
    const std::uint8_t* row = hops.row(s);
    for (std::uint32_t t = 0; t < n; ++t)
      if (row[t] != HopMatrix::kUnreachable) comp[t] = next;
    ++next;
  }
  return comp;
}

// The switch of component `c` with the least end-port-weighted total hop distance
// (every switch weighs 1 when the component has no end ports); lowest GUID on ties.
std::uint32_t centre_of(const Topology& topo, const HopMatrix& hops,
                        const std::vector<std::uint32_t>& comp, std::uint32_t c,
                        const std::vector<std::uint32_t>& weight) {
  const std::uint32_t n = hops.num_switches();
  bool weighted = false;
  for (std::uint32_t t = 0; t < n; ++t)
    if (comp[t] == c && weight[t] > 0) weighted = true;
  std::uint32_t best = UINT32_MAX;
  std::uint64_t best_cost = UINT64_MAX;
  for (std::uint32_t s = 0; s < n; ++s) {
    if (comp[s] != c) continue;
    std::uint64_t cost = 0;
    for (std::uint32_t t = 0; t < n; ++t)
      if (comp[t] == c) cost += std::uint64_t{weighted ? weight[t] : 1U} * hops.hops(s, t);
    if (cost < best_cost ||
        (cost == best_cost && topo.switches[s].guid < topo.switches[best].guid)) {
      best = s;
      best_cost = cost;
    }
  }
  return best;
}

// Gives a centre root to every component that has none; returns their indices.
std::vector<std::uint32_t> add_centre_roots(const Topology& topo, const HopMatrix& hops,
                                            const std::vector<std::uint32_t>& weight,
                                            std::vector<std::uint32_t>& roots) {
  const std::vector<std::uint32_t> comp = components(hops);
  const std::uint32_t ncomp = comp.empty() ? 0 : *std::max_element(comp.begin(), comp.end()) + 1;
  std::vector<bool> has_root(ncomp, false);
  for (std::uint32_t r : roots)
    has_root[comp[r]] = true;
  std::vector<std::uint32_t> added;
  for (std::uint32_t c = 0; c < ncomp; ++c) {
    if (has_root[c]) continue;
    const std::uint32_t r = centre_of(topo, hops, comp, c, weight);
    roots.push_back(r);
    added.push_back(r);
  }
  return added;
}

// Ranks by multi-source BFS from `roots` over inter-switch links (updn_subn_rank).
std::vector<std::uint32_t> bfs_ranks(const Topology& topo,
                                     const std::vector<std::uint32_t>& roots) {
  std::vector<std::uint32_t> rank(topo.switches.size(), kNoRank);
  std::vector<std::uint32_t> queue;
  for (std::uint32_t r : roots) {
    if (rank[r] == 0) continue;
    rank[r] = 0;
    queue.push_back(r);
  }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t s = queue[head];
    for (const Link& l : topo.switches[s].links) {
      if (l.kind != Link::Kind::kSwitch || rank[l.peer] != kNoRank) continue;
      rank[l.peer] = rank[s] + 1;
      queue.push_back(l.peer);
    }
  }
  return rank;
}

// position[s] = place of s in ascending (rank, id, GUID) order; a switch's id is its
// ids_guid_file entry, else its GUID (OpenSM's updn_node id; the GUID keeps the order
// strict when two ids are equal).
std::vector<std::uint32_t> positions(
    const Topology& topo, const std::vector<std::uint32_t>& rank,
    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& guid_ids) {
  std::vector<std::uint64_t> id(topo.switches.size());
  std::unordered_map<std::uint64_t, std::uint64_t> by_guid(guid_ids.begin(), guid_ids.end());
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
    auto it = by_guid.find(topo.switches[s].guid);
    id[s] = it == by_guid.end() ? topo.switches[s].guid : it->second;
  }
  std::vector<std::uint32_t> order(topo.switches.size());
  std::iota(order.begin(), order.end(), 0U);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto ka = std::tuple(rank[a], id[a], topo.switches[a].guid);
    const auto kb = std::tuple(rank[b], id[b], topo.switches[b].guid);
    return ka < kb;
  });
  std::vector<std::uint32_t> pos(order.size());
  for (std::uint32_t i = 0; i < order.size(); ++i)
    pos[order[i]] = i;
  return pos;
}

std::string list_of(const Topology& topo, const std::vector<std::uint32_t>& sws) {
  std::string out;
  for (std::size_t i = 0; i < sws.size() && i < 8; ++i)
    out += (i ? ", " : "") + name_of(topo.switches[sws[i]]);
  if (sws.size() > 8) out += ", ... (" + std::to_string(sws.size()) + " in all)";
  return out;
}

}  // namespace

std::vector<std::uint32_t> roots_by_hop_histogram(const Topology& topo, const HopMatrix& hops) {
  const std::vector<std::uint32_t> cas = end_ports_per_switch(topo);
  const std::uint64_t total = std::accumulate(cas.begin(), cas.end(), std::uint64_t{0});
  const double thd1 = static_cast<double>(total) * 0.9;
  const double thd2 = static_cast<double>(total) * 0.05;
  std::vector<std::uint32_t> roots;
  const std::uint32_t n = hops.num_switches();
  std::vector<std::uint64_t> hist(HopMatrix::kUnreachable, 0);
  for (std::uint32_t s = 0; s < n; ++s) {
    std::fill(hist.begin(), hist.end(), 0);
    const std::uint8_t* row = hops.row(s);
    for (std::uint32_t t = 0; t < n; ++t)
      if (cas[t] > 0 && row[t] != HopMatrix::kUnreachable) hist[row[t]] += cas[t];
    unsigned over1 = 0;
    unsigned over2 = 0;
    for (std::uint64_t bar : hist) {
      over1 += static_cast<double>(bar) > thd1 ? 1U : 0U;
      over2 += static_cast<double>(bar) > thd2 ? 1U : 0U;
    }
    if (over1 == 1 && over2 == 1) roots.push_back(s);
  }
  return top_level_only(topo, hops, roots);
}

// The histogram rule also accepts the level below the top of a fat tree with many pods
// (an aggregation switch sees its own pod's leaves, under 5%, one hop away and all the
// others three hops away). OpenSM lives with it by calling root->root channels up in
// both directions; our strict order would then forbid core->aggregation->core paths.
// The top of a tree is the level farthest from the end ports: a switch's height is its
// hop distance to the nearest switch with end ports (leaves 0, aggregation 1, cores 2),
// and only the candidates of the greatest height are kept. Height, unlike the worst-case
// distance to every leaf, does not change when a few links fail: on a degraded tree a
// core whose aggregation switch lost one leaf link is as much a core as before (keeping
// only the least eccentric cores cut the roots of ft3-5184 with 2 % of its links down to
// a handful, and updn's effective bisection bandwidth to 0.05).
std::vector<std::uint32_t> top_level_only(const Topology& topo, const HopMatrix& hops,
                                          const std::vector<std::uint32_t>& candidates) {
  const std::vector<std::uint32_t> cas = end_ports_per_switch(topo);
  auto height = [&](std::uint32_t s) {
    unsigned nearest = HopMatrix::kUnreachable;
    const std::uint8_t* row = hops.row(s);
    for (std::uint32_t t = 0; t < hops.num_switches(); ++t)
      if (cas[t] > 0 && row[t] != HopMatrix::kUnreachable)
        nearest = std::min<unsigned>(nearest, row[t]);
    return nearest;
  };
  unsigned top = 0;
  std::vector<unsigned> h;
  h.reserve(candidates.size());
  for (std::uint32_t s : candidates) {
    h.push_back(height(s));
    if (h.back() != HopMatrix::kUnreachable) top = std::max(top, h.back());
  }
  std::vector<std::uint32_t> kept;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (h[i] == top) kept.push_back(candidates[i]);
  return kept;
}

UpDownOrder updn_order(const Topology& topo, const HopMatrix& hops,
                       const std::vector<std::uint64_t>& root_guids,
                       const std::vector<std::pair<std::uint64_t, std::uint64_t>>& guid_ids) {
  UpDownOrder out;
  std::vector<std::uint32_t> roots;
  if (!root_guids.empty()) {
    std::unordered_map<std::uint64_t, std::uint32_t> by_guid;
    for (const EndPort& e : topo.end_ports) {
      if (e.sw >= topo.switches.size()) continue;
      by_guid.emplace(e.port_guid, e.sw);
      by_guid.emplace(e.node_guid, e.sw);
    }
    for (std::uint32_t s = 0; s < topo.switches.size(); ++s)
      by_guid[topo.switches[s].guid] = s;  // a switch GUID wins over a CA's
    std::vector<std::uint64_t> unknown;
    for (std::uint64_t g : root_guids) {
      auto it = by_guid.find(g);
      if (it == by_guid.end()) {
        unknown.push_back(g);
      } else if (std::find(roots.begin(), roots.end(), it->second) == roots.end()) {
        roots.push_back(it->second);
      }
    }
    for (std::uint64_t g : unknown)
      out.warnings.push_back(
          {kErrRootGuidUnknown, "root GUID " + hex_guid(g) +
                                    " is no switch (nor a port attached to one) of this fabric; "
                                    "ignored"});
  } else {
    roots = roots_by_hop_histogram(topo, hops);
  }
  const bool had_roots = !roots.empty();
  const std::vector<std::uint32_t> added =
      add_centre_roots(topo, hops, end_ports_per_switch(topo), roots);
  if (!added.empty()) {
    out.warnings.push_back(
        {kErrUpDownNoRoot,
         std::string(had_roots ? "some switches are connected to no root"
                     : root_guids.empty()
                         ? "no root found by OpenSM's hop-histogram rule (not a fat tree)"
                         : "no root GUID matches a switch of this fabric") +
             "; using the centre of each such group as root: " + list_of(topo, added)});
  }
  std::sort(roots.begin(), roots.end());
  out.rank = bfs_ranks(topo, roots);
  out.position = positions(topo, out.rank, guid_ids);
  out.roots = std::move(roots);
  return out;
}

UpDownOrder dnup_order(const Topology& topo, const HopMatrix& hops) {
  UpDownOrder out;
  const std::vector<std::uint32_t> cas = end_ports_per_switch(topo);
  std::vector<std::uint32_t> roots;
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s)
    if (cas[s] > 0) roots.push_back(s);
  const std::vector<std::uint32_t> added = add_centre_roots(topo, hops, cas, roots);
  if (!added.empty())
    out.warnings.push_back(
        {kErrUpDownNoRoot,
         "switches without any end port in their group; ranking from the group's centre: " +
             list_of(topo, added)});
  std::sort(roots.begin(), roots.end());
  out.rank = bfs_ranks(topo, roots);
  // Equal ranks are ordered by closeness to the group's centre before GUID: with end
  // ports on every switch (all rank 0) this makes dnup an up/down order with the centre
  // on top, in which every switch reaches every other; OpenSM instead lets equal-rank
  // hops go either way (dnup_get_dir returns EQUAL), which is not deadlock free.
  std::vector<std::uint32_t> centres;
  add_centre_roots(topo, hops, cas, centres);
  const std::vector<std::uint32_t> depth = bfs_ranks(topo, centres);
  const std::uint32_t n = static_cast<std::uint32_t>(topo.switches.size());
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0U);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    // Descending (rank, closeness, GUID): position 0 is the top, where paths turn.
    const auto ka = std::tuple(out.rank[a], depth[b], topo.switches[a].guid);
    const auto kb = std::tuple(out.rank[b], depth[a], topo.switches[b].guid);
    return kb < ka;
  });
  out.position.assign(n, 0);
  for (std::uint32_t i = 0; i < n; ++i)
    out.position[order[i]] = i;
  out.roots = std::move(roots);
  return out;
}

}  // namespace ibsm::routing
