#include "routing/mesh_analysis.hpp"

#include <algorithm>
#include <numeric>

#include "routing/errors.hpp"
#include "routing/guid_file.hpp"

namespace ibsm::routing {
namespace {

// Disjoint sets over the undirected switch-to-switch edges.
class EdgeClasses {
 public:
  explicit EdgeClasses(std::size_t n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), std::uint32_t{0});
  }
  std::uint32_t find(std::uint32_t e) {
    while (parent_[e] != e) {
      parent_[e] = parent_[parent_[e]];
      e = parent_[e];
    }
    return e;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<std::uint32_t> parent_;
};

// Which way each edge points along its dimension, as a parity per undirected edge
// relative to its class's root: sign(a -> b) = parity(edge) XOR (a > b). Constraints
// that contradict each other (a ring of 4, a twisted torus) leave no orientation.
class EdgeOrientation {
 public:
  explicit EdgeOrientation(std::size_t n) : parent_(n), parity_(n, 0) {
    std::iota(parent_.begin(), parent_.end(), std::uint32_t{0});
  }
  std::pair<std::uint32_t, std::uint8_t> find(std::uint32_t e) {
    std::uint8_t p = 0;
    std::uint32_t r = e;
    while (parent_[r] != r) {
      p ^= parity_[r];
      r = parent_[r];
    }
    // Path compression with the parities folded in.
    std::uint8_t q = p;
    while (parent_[e] != e) {
      const std::uint32_t next = parent_[e];
      const std::uint8_t step = parity_[e];
      parent_[e] = r;
      parity_[e] = q;
      q ^= step;
      e = next;
    }
    return {r, p};
  }
  // sign(a->b) XOR sign(c->d) = differ, for edge e1 = {a,b} and e2 = {c,d}.
  void relate(std::uint32_t e1, bool a_gt_b, std::uint32_t e2, bool c_gt_d, bool differ) {
    const auto [r1, p1] = find(e1);
    const auto [r2, p2] = find(e2);
    const std::uint8_t want = static_cast<std::uint8_t>(differ ^ a_gt_b ^ c_gt_d);
    if (r1 == r2) {
      consistent_ = consistent_ && (p1 ^ p2) == want;
      return;
    }
    parent_[r2] = r1;
    parity_[r2] = static_cast<std::uint8_t>(p1 ^ p2 ^ want);
  }
  bool consistent() const { return consistent_; }
  // +1 or -1: the direction of a -> b along its dimension.
  int sign(std::uint32_t e, std::uint32_t a, std::uint32_t b) {
    return ((find(e).second ^ static_cast<std::uint8_t>(a > b)) != 0) ? -1 : 1;
  }

 private:
  std::vector<std::uint32_t> parent_;
  std::vector<std::uint8_t> parity_;
  bool consistent_ = true;
};

// The switch graph without parallel cables: per switch its neighbours, sorted, and the
// id of the undirected edge to each.
struct SimpleGraph {
  std::vector<std::vector<std::uint32_t>> nbr;
  std::vector<std::vector<std::uint32_t>> edge;
  std::size_t edges = 0;

  explicit SimpleGraph(const Topology& topo) : nbr(topo.switches.size()), edge(nbr.size()) {
    const auto n = static_cast<std::uint32_t>(nbr.size());
    for (std::uint32_t s = 0; s < n; ++s) {
      for (const Link& l : topo.switches[s].links)
        if (l.kind == Link::Kind::kSwitch && l.peer < n && l.peer != s) nbr[s].push_back(l.peer);
      std::sort(nbr[s].begin(), nbr[s].end());
      nbr[s].erase(std::unique(nbr[s].begin(), nbr[s].end()), nbr[s].end());
      edge[s].assign(nbr[s].size(), UINT32_MAX);
    }
    // Edge ids from the lower end; the higher end looks its copy up.
    for (std::uint32_t s = 0; s < n; ++s)
      for (std::size_t i = 0; i < nbr[s].size(); ++i)
        if (nbr[s][i] > s) edge[s][i] = static_cast<std::uint32_t>(edges++);
    for (std::uint32_t s = 0; s < n; ++s)
      for (std::size_t i = 0; i < nbr[s].size(); ++i)
        if (nbr[s][i] < s) edge[s][i] = edge_of(nbr[s][i], s);
  }
  bool adjacent(std::uint32_t a, std::uint32_t b) const {
    return std::binary_search(nbr[a].begin(), nbr[a].end(), b);
  }
  std::uint32_t edge_of(std::uint32_t a, std::uint32_t b) const {
    const auto it = std::lower_bound(nbr[a].begin(), nbr[a].end(), b);
    return edge[a][static_cast<std::size_t>(it - nbr[a].begin())];
  }
};

// Coordinates from switch 0 outwards: a step along dimension d in its + direction adds
// one (modulo the ring length where the dimension wraps). Left empty when some link
// does not fit them (the fabric is then no regular mesh or torus).
void place_switches(const SimpleGraph& g, EdgeClasses& classes, EdgeOrientation& orient,
                    const std::vector<std::uint32_t>& rank, MeshShape& shape) {
  const auto n = static_cast<std::uint32_t>(g.nbr.size());
  const unsigned dims = shape.dimensions;
  // Beyond 15 dimensions the dateline layers could never fit the VLs (mesh_layers.hpp).
  if (n == 0 || dims == 0 || dims > 15) return;
  auto dim_of = [&](std::uint32_t s, std::size_t i) { return rank[classes.find(g.edge[s][i])]; };
  auto plus_neighbour = [&](std::uint32_t s, unsigned d) -> std::uint32_t {
    for (std::size_t i = 0; i < g.nbr[s].size(); ++i)
      if (dim_of(s, i) == d && orient.sign(g.edge[s][i], s, g.nbr[s][i]) > 0) return g.nbr[s][i];
    return UINT32_MAX;
  };
  // Ring lengths, walked from switch 0 (0: the walk ends, a line).
  std::vector<std::uint32_t> ring(dims, 0);
  for (unsigned d = 0; d < dims; ++d) {
    std::uint32_t x = plus_neighbour(0, d);
    for (std::uint32_t steps = 1; x != UINT32_MAX && steps <= n; ++steps) {
      if (x == 0) {
        ring[d] = steps;
        break;
      }
      x = plus_neighbour(x, d);
    }
  }
  std::vector<std::int64_t> pos(std::size_t{n} * dims, 0);
  std::vector<std::uint8_t> seen(n, 0);
  std::vector<std::uint32_t> queue{0};
  seen[0] = 1;
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const std::uint32_t s = queue[q];
    for (std::size_t i = 0; i < g.nbr[s].size(); ++i) {
      const std::uint32_t t = g.nbr[s][i];
      const unsigned d = dim_of(s, i);
      std::int64_t want = pos[std::size_t{s} * dims + d] + orient.sign(g.edge[s][i], s, t);
      if (ring[d] > 0) want = (want + ring[d]) % ring[d];
      if (seen[t] == 0) {
        seen[t] = 1;
        std::copy_n(pos.begin() + static_cast<std::ptrdiff_t>(std::size_t{s} * dims), dims,
                    pos.begin() + static_cast<std::ptrdiff_t>(std::size_t{t} * dims));
        pos[std::size_t{t} * dims + d] = want;
        queue.push_back(t);
        continue;
      }
      for (unsigned e = 0; e < dims; ++e) {
        const std::int64_t expect = e == d ? want : pos[std::size_t{s} * dims + e];
        if (pos[std::size_t{t} * dims + e] != expect) return;  // no consistent placement
      }
    }
  }
  if (queue.size() != n) return;  // not connected
  for (unsigned d = 0; d < dims; ++d) {
    std::int64_t low = 0;
    for (std::uint32_t s = 0; s < n; ++s)
      low = std::min(low, pos[std::size_t{s} * dims + d]);
    for (std::uint32_t s = 0; s < n; ++s)
      pos[std::size_t{s} * dims + d] -= low;
  }
  // Links alone do not rule out two switches on one spot (a ring wound twice round a
  // shorter one): every switch must have coordinates of its own.
  std::vector<std::uint32_t> by_pos(n);
  std::iota(by_pos.begin(), by_pos.end(), std::uint32_t{0});
  auto at = [&](std::uint32_t s) {
    return pos.begin() + static_cast<std::ptrdiff_t>(std::size_t{s} * dims);
  };
  std::sort(by_pos.begin(), by_pos.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::lexicographical_compare(at(a), at(a) + dims, at(b), at(b) + dims);
  });
  for (std::uint32_t i = 1; i < n; ++i)
    if (std::equal(at(by_pos[i - 1]), at(by_pos[i - 1]) + dims, at(by_pos[i]))) return;
  shape.ring = std::move(ring);
  shape.coord.assign(pos.begin(), pos.end());
}

}  // namespace

Result<MeshShape> analyse_mesh(const Topology& topo) {
  const SimpleGraph g(topo);
  const auto n = static_cast<std::uint32_t>(g.nbr.size());
  EdgeClasses classes(g.edges);
  EdgeOrientation orient(g.edges);
  auto refuse = [&](std::uint32_t s, const std::string& why) -> Result<MeshShape> {
    return fail(kErrNotAMesh, "mesh analysis: switch " + hex_guid(topo.switches[s].guid) + " " +
                                  why + ": not a mesh or torus");
  };
  std::vector<std::uint32_t> common;
  for (std::uint32_t s = 0; s < n; ++s) {
    const auto& ns = g.nbr[s];
    for (std::size_t i = 0; i < ns.size(); ++i) {
      for (std::size_t j = i + 1; j < ns.size(); ++j) {
        const std::uint32_t u = ns[i];
        const std::uint32_t w = ns[j];
        if (g.adjacent(u, w)) return refuse(s, "closes a triangle with two of its neighbours");
        common.clear();
        std::set_intersection(g.nbr[u].begin(), g.nbr[u].end(), g.nbr[w].begin(), g.nbr[w].end(),
                              std::back_inserter(common));
        bool square = false;
        for (std::uint32_t x : common) {
          if (x == s) continue;
          // Square s-u-x-w: its opposite sides are parallel, one dimension each.
          square = true;
          classes.join(g.edge[s][i], g.edge_of(w, x));
          classes.join(g.edge[s][j], g.edge_of(u, x));
          // ... and point the same way: s->u as w->x, s->w as u->x.
          orient.relate(g.edge[s][i], s > u, g.edge_of(w, x), w > x, false);
          orient.relate(g.edge[s][j], s > w, g.edge_of(u, x), u > x, false);
        }
        // No square: u and w are the two directions of one dimension through s.
        if (!square) {
          classes.join(g.edge[s][i], g.edge[s][j]);
          orient.relate(g.edge[s][i], s > u, g.edge[s][j], s > w, true);
        }
      }
    }
  }
  // Dimensions numbered as their first edge appears in switch order, then port order.
  std::vector<std::uint32_t> rank(g.edges, UINT32_MAX);
  unsigned dims = 0;
  for (std::uint32_t s = 0; s < n; ++s) {
    std::vector<Link> links = topo.switches[s].links;
    std::sort(links.begin(), links.end(),
              [](const Link& a, const Link& b) { return a.port < b.port; });
    for (const Link& l : links) {
      if (l.kind != Link::Kind::kSwitch || l.peer >= n || l.peer == s) continue;
      const std::uint32_t c = classes.find(g.edge_of(s, l.peer));
      if (rank[c] == UINT32_MAX) rank[c] = dims++;
    }
  }
  // Every switch reaches at most two neighbours (- and +) along each dimension.
  for (std::uint32_t s = 0; s < n; ++s) {
    std::vector<unsigned> per_dim(dims, 0);
    for (std::uint32_t e : g.edge[s]) {
      if (++per_dim[rank[classes.find(e)]] > 2)
        return refuse(s, "has more than two neighbours along one direction of its links");
    }
  }
  MeshShape shape;
  shape.dimensions = dims;
  shape.port_order.resize(n);
  for (std::uint32_t s = 0; s < n; ++s) {
    const Switch& sw = topo.switches[s];
    std::vector<std::uint32_t> key(std::size_t{sw.num_ports} + 1, UINT32_MAX);  // rest last
    for (const Link& l : sw.links)
      if (l.kind == Link::Kind::kSwitch && l.peer < n && l.peer != s && l.port <= sw.num_ports)
        key[l.port] = rank[classes.find(g.edge_of(s, l.peer))];
    auto& order = shape.port_order[s];
    for (PortNum p = 1; p <= sw.num_ports; ++p)
      order.push_back(p);
    std::stable_sort(order.begin(), order.end(),
                     [&](PortNum a, PortNum b) { return key[a] < key[b]; });
  }
  if (orient.consistent()) place_switches(g, classes, orient, rank, shape);
  return shape;
}

}  // namespace ibsm::routing
