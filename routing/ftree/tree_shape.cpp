#include "routing/ftree/tree_shape.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "routing/errors.hpp"

namespace ibsm::routing::ftree {
namespace {

inline constexpr std::uint32_t kUnranked = UINT32_MAX;

// Multi-source breadth-first search over inter-switch links from `sources`, writing hop
// distances into `dist` for the switches still at kUnranked.
void bfs(const Topology& topo, const std::vector<std::uint32_t>& sources,
         std::vector<std::uint32_t>& dist) {
  std::vector<std::uint32_t> queue;
  for (std::uint32_t s : sources)
    if (dist[s] == kUnranked) {
      dist[s] = 0;
      queue.push_back(s);
    }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t s = queue[head];
    for (const Link& l : topo.switches[s].links)
      if (l.kind == Link::Kind::kSwitch && dist[l.peer] == kUnranked) {
        dist[l.peer] = dist[s] + 1;
        queue.push_back(l.peer);
      }
  }
}

// Rank 0 = top. From roots: the BFS distance. From leaves: the height above the leaves
// turned upside down, so that the farthest switches are the top.
std::vector<std::uint32_t> rank_switches(const Topology& topo, const ShapeInput& in) {
  const std::size_t n = topo.switches.size();
  std::vector<std::uint32_t> rank(n, kUnranked);
  if (!in.roots.empty()) {
    bfs(topo, in.roots, rank);
  } else {
    std::vector<std::uint32_t> leaves;
    for (std::uint32_t s = 0; s < n; ++s)
      if (in.is_leaf[s]) leaves.push_back(s);
    std::vector<std::uint32_t> height(n, kUnranked);
    bfs(topo, leaves, height);
    std::uint32_t top = 0;
    for (std::uint32_t h : height)
      if (h != kUnranked) top = std::max(top, h);
    for (std::size_t s = 0; s < n; ++s)
      if (height[s] != kUnranked) rank[s] = top - height[s];
  }
  // Parts of the fabric the search did not reach (no root or no compute node in them):
  // ranked from their first switch, so their own switch LIDs still get routes.
  for (std::uint32_t s = 0; s < n; ++s)
    if (rank[s] == kUnranked) bfs(topo, {s}, rank);
  return rank;
}

// OpenSM's tuple indexing in spirit (bfs_fabric_indexing): a breadth-first walk from the
// first leaf (or, with quasi_ftree_indexing, the first root) by sort key, down ports
// before up ports, each in port order. Leaves, compute nodes and port groups follow
// this order, which is what makes the spreading d-mod-k-like.
std::vector<std::uint32_t> index_switches(const Topology& topo, const ShapeInput& in,
                                          const std::vector<std::uint32_t>& rank) {
  const std::size_t n = topo.switches.size();
  std::vector<std::uint32_t> by_key(n);
  std::iota(by_key.begin(), by_key.end(), 0U);
  std::sort(by_key.begin(), by_key.end(), [&](std::uint32_t a, std::uint32_t b) {
    return in.sort_key[a] != in.sort_key[b] ? in.sort_key[a] < in.sort_key[b] : a < b;
  });
  std::vector<std::uint32_t> starts;
  for (std::uint32_t s : by_key)
    if (in.index_from_root ? rank[s] == 0 : in.is_leaf[s] != 0) starts.push_back(s);
  starts.insert(starts.end(), by_key.begin(), by_key.end());

  std::vector<std::uint32_t> index(n, kUnranked);
  std::uint32_t next = 0;
  std::vector<std::uint32_t> queue;
  std::vector<const Link*> sorted;
  for (std::uint32_t start : starts) {
    if (index[start] != kUnranked) continue;
    index[start] = next++;
    queue.assign(1, start);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::uint32_t s = queue[head];
      sorted.clear();
      for (const Link& l : topo.switches[s].links)
        if (l.kind == Link::Kind::kSwitch) sorted.push_back(&l);
      std::sort(sorted.begin(), sorted.end(), [&](const Link* a, const Link* b) {
        const bool a_down = rank[a->peer] > rank[s];
        const bool b_down = rank[b->peer] > rank[s];
        return a_down != b_down ? a_down : a->port < b->port;
      });
      for (const Link* l : sorted)
        if (index[l->peer] == kUnranked) {
          index[l->peer] = next++;
          queue.push_back(l->peer);
        }
    }
  }
  return index;
}

}  // namespace

Result<TreeShape> find_tree_shape(const Topology& topo, const ShapeInput& in) {
  const std::size_t n = topo.switches.size();
  TreeShape shape;
  shape.rank = rank_switches(topo, in);
  shape.index = index_switches(topo, in, shape.rank);

  std::vector<std::vector<Channel>> up(n);
  std::vector<std::vector<Channel>> down(n);
  for (std::uint32_t s = 0; s < n; ++s)
    for (const Link& l : topo.switches[s].links) {
      if (l.kind != Link::Kind::kSwitch) continue;
      const Channel c{l.port, l.peer, l.peer_port};
      if (shape.rank[l.peer] + 1 == shape.rank[s]) {
        up[s].push_back(c);
      } else if (shape.rank[l.peer] == shape.rank[s] + 1) {
        down[s].push_back(c);
      } else if (s < l.peer || (s == l.peer && l.port < l.peer_port)) {
        ++shape.horizontal;  // equal ranks (BFS ranks never differ by more than one)
      }
      if (s < l.peer || (s == l.peer && l.port < l.peer_port)) ++shape.links;
    }
  if (shape.links > 0 && static_cast<double>(shape.horizontal) >
                             kMaxHorizontalShare * static_cast<double>(shape.links))
    return fail(kErrFtreeNotATree,
                std::to_string(shape.horizontal) + " of " + std::to_string(shape.links) +
                    " inter-switch links join switches of equal rank (" +
                    (in.roots.empty() ? "ranked from the leaves" : "ranked from the roots") +
                    "); this is no fat tree");

  const auto by_index = [&](const Channel& a, const Channel& b) {
    return shape.index[a.peer] != shape.index[b.peer] ? shape.index[a.peer] < shape.index[b.peer]
                                                      : a.port < b.port;
  };
  const auto flatten = [&](std::vector<std::vector<Channel>>& lists,
                           std::vector<std::uint32_t>& first, std::vector<Channel>& flat) {
    first.assign(n + 1, 0);
    for (std::uint32_t s = 0; s < n; ++s) {
      std::sort(lists[s].begin(), lists[s].end(), by_index);
      flat.insert(flat.end(), lists[s].begin(), lists[s].end());
      first[s + 1] = static_cast<std::uint32_t>(flat.size());
    }
  };
  flatten(up, shape.up_first, shape.up);
  flatten(down, shape.down_first, shape.down);

  for (std::uint32_t s = 0; s < n; ++s)
    if (in.is_leaf[s]) shape.leaves.push_back(s);
  std::sort(shape.leaves.begin(), shape.leaves.end(),
            [&](std::uint32_t a, std::uint32_t b) { return shape.index[a] < shape.index[b]; });
  return shape;
}

}  // namespace ibsm::routing::ftree
