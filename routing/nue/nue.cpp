// nue: routing inside each layer's channel dependency graph (see nue.hpp).
#include "routing/nue/nue.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>

#include "routing/channel_index.hpp"
#include "routing/efi_bound.hpp"
#include "routing/errors.hpp"
#include "routing/incremental_dag.hpp"
#include "routing/lid_owners.hpp"
#include "routing/sentinels.hpp"
#include "routing/throttled_links.hpp"

namespace ibsm::routing {
namespace {

// Channels a candidate turn's cycle search may visit before it counts as "no".
inline constexpr std::uint32_t kCandidateSearch = 1024;

struct Destination {
  Lid lid = 0;
  std::uint32_t sw = 0;  // the switch that delivers it
  PortNum port = 0;      // ... through this port (0: the switch itself)
  unsigned hosts = 0;    // end ports of that switch, for the order
};

// The switch graph seen through its channels.
class SwitchGraph {
 public:
  explicit SwitchGraph(const Topology& topo) : ch(topo), in(topo.switches.size()) {
    for (std::uint32_t c = 0; c < ch.size(); ++c)
      in[ch.to(c)].push_back(c);
    for (auto& list : in)
      std::sort(list.begin(), list.end());
  }
  std::uint32_t size() const { return static_cast<std::uint32_t>(in.size()); }
  // The channel back from where c leads: to(c) -> from(c) over the same cable.
  std::uint32_t reverse(std::uint32_t c) const { return ch.at(ch.to(c), ch.peer_port(c)); }

  // Hop distances from s (UINT32_MAX where unreachable) and the visiting order.
  std::vector<std::uint32_t> bfs(std::uint32_t s,
                                 std::vector<std::uint32_t>* order = nullptr) const {
    std::vector<std::uint32_t> dist(size(), UINT32_MAX);
    std::vector<std::uint32_t> q{s};
    dist[s] = 0;
    for (std::size_t i = 0; i < q.size(); ++i)
      for (std::uint32_t c : ch.out(q[i]))
        if (dist[ch.to(c)] == UINT32_MAX) {
          dist[ch.to(c)] = dist[q[i]] + 1;
          q.push_back(ch.to(c));
        }
    if (order) *order = std::move(q);
    return dist;
  }

  ChannelIndex ch;
  std::vector<std::vector<std::uint32_t>> in;  // channels entering each switch
};

// Up/down escape paths on a breadth-first spanning tree (one per layer).
class EscapeTree {
 public:
  // A forest: the tree of root's part of the fabric, then one per part it does not reach.
  EscapeTree(const SwitchGraph& g, std::uint32_t root)
      : g_(g), up_(g.size(), kNone), tree_(g.size(), UINT32_MAX) {
    const auto grow = [&](std::uint32_t r) {
      std::vector<std::uint32_t> order;
      const auto dist = g.bfs(r, &order);
      for (std::uint32_t v : order) {
        tree_[v] = r;
        for (std::uint32_t c : g.ch.out(v))  // lowest port towards a switch one hop nearer
          if (dist[g.ch.to(c)] + 1 == dist[v] && up_[v] == kNone) up_[v] = c;
      }
    };
    grow(root);
    for (std::uint32_t r = 0; r < g.size(); ++r)
      if (tree_[r] == UINT32_MAX) grow(r);
    toward_.assign(g.size(), kNone);
  }

  // Every turn an up*/down* path on the tree can take: acyclic (up channels ordered by
  // depth, down channels after them), so the DAG takes them all.
  void add_turns(IncrementalDag& dag) const {
    for (std::uint32_t x = 0; x < g_.size(); ++x) {
      std::vector<std::uint32_t> ups_in, downs_out;
      for (std::uint32_t c : g_.in[x])
        if (up_[g_.ch.from(c)] == c) ups_in.push_back(c);
      for (std::uint32_t c : ups_in)
        downs_out.push_back(g_.reverse(c));
      const std::uint32_t up_out = up_[x];
      const std::uint32_t down_in = up_out == kNone ? kNone : g_.reverse(up_out);
      for (std::uint32_t ci : ups_in) {
        if (up_out != kNone) dag.add(ci, up_out);
        for (std::uint32_t co : downs_out)
          if (co != g_.reverse(ci)) dag.add(ci, co);
      }
      if (down_in != kNone)
        for (std::uint32_t co : downs_out)
          dag.add(down_in, co);
    }
  }

  // out[v] = the tree's next channel from v towards switch d (kNone at d and off-tree).
  void route_to(std::uint32_t d, std::vector<std::uint32_t>& out) {
    std::fill(toward_.begin(), toward_.end(), kNone);
    for (std::uint32_t v = d; up_[v] != kNone; v = g_.ch.to(up_[v]))
      toward_[g_.ch.to(up_[v])] = g_.reverse(up_[v]);
    out.assign(g_.size(), kNone);
    for (std::uint32_t v = 0; v < g_.size(); ++v)
      if (v != d && tree_[v] == tree_[d]) out[v] = toward_[v] != kNone ? toward_[v] : up_[v];
  }

 private:
  const SwitchGraph& g_;
  std::vector<std::uint32_t> up_;    // channel to the parent; kNone at a root
  std::vector<std::uint32_t> tree_;  // the root of each switch's tree
  std::vector<std::uint32_t> toward_;
};

class NueEngine final : public Engine {
 public:
  explicit NueEngine(EngineConfig config) : config_(std::move(config)) {}
  std::string_view name() const override { return "nue"; }
  bool deadlock_free() const override { return true; }
  Result<Routes> route(const Topology& topo) override {
    return route_avoiding_throttled(topo, config_.avoid_throttled_links,
                                    [this](const Topology& t) { return route_all(t); });
  }

 private:
  Result<Routes> route_all(const Topology& topo);
  EngineConfig config_;
};

// Per-destination routing state shared across destinations; the per-destination
// buffers are kept too (a 5832-host tree routes 6804 destinations).
class NueRouter {
 public:
  NueRouter(const Topology& topo, const SwitchGraph& g) : g_(g) {
    hosts_.assign(g.size(), 0);
    for (const EndPort& e : topo.end_ports)
      if (e.sw < g.size()) ++hosts_[e.sw];
    std::uint64_t p = std::max<std::uint64_t>(1, topo.end_ports.size());
    base_ = p * p;  // as sssp: paths stay shortest until loads say otherwise
    load_.assign(g.ch.size(), 0);
    efi_load_.assign(g.ch.size(), 0);
    avoid_.assign(g.ch.size(), 0);
    for (std::uint32_t u = 0; u < g.size(); ++u) {
      in_first_.push_back(static_cast<std::uint32_t>(in_.size()));
      for (std::uint32_t c : g.in[u])
        in_.push_back({c, g.ch.from(c)});
    }
    in_first_.push_back(static_cast<std::uint32_t>(in_.size()));
    component_.assign(g.size(), UINT32_MAX);
    component_size_.assign(g.size(), 0);
    for (std::uint32_t s = 0; s < g.size(); ++s) {
      if (component_[s] != UINT32_MAX) continue;
      const auto dist = g.bfs(s);
      for (std::uint32_t v = 0; v < g.size(); ++v)
        if (dist[v] != UINT32_MAX) component_[v] = s, ++component_size_[s];
    }
  }

  // The next channel of every switch towards d (kNone at d and where unreachable), found
  // inside `dag`; false on an impasse (the dag is then as before).
  bool dijkstra(std::uint32_t d, IncrementalDag& dag, std::vector<std::uint32_t>& out) {
    const std::uint32_t n = g_.size();
    dist_.assign(n, kInf);
    settled_.assign(n, 0);
    cand_.assign(n, kNone);
    heap_pos_.assign(n, 0);
    out.assign(n, kNone);
    added_.clear();
    heap_.clear();
    dist_[d] = 0;
    heap_push(d);
    std::uint32_t reached = 0;
    while (!heap_.empty()) {
      const std::uint32_t u = heap_pop();
      if (u != d && !take_turn(cand_[u], out, dag)) {
        // The turn chosen when u was reached closes a cycle now: the cheapest settled
        // neighbour whose turn still fits, or wait for another neighbour to settle.
        std::uint64_t best = kInf;
        std::uint32_t best_c = kNone;
        for (std::uint32_t c : g_.ch.out(u)) {
          const std::uint32_t w = g_.ch.to(c);
          if (!settled_[w] || dist_[w] + weight(c) >= best) continue;
          if (w == d || dag.can_add(c, out[w])) {
            best = dist_[w] + weight(c);
            best_c = c;
          }
        }
        if (best_c == kNone || !take_turn(best_c, out, dag)) {
          dist_[u] = kInf;
          continue;
        }
        dist_[u] = best;
        cand_[u] = best_c;
      }
      settled_[u] = 1;
      ++reached;
      if (u != d) out[u] = cand_[u];
      const std::uint64_t dist_u = dist_[u];
      const std::uint32_t out_u = out[u];
      // Raw pointers: the calls into the dag below would make the compiler reload every
      // vector's data for every channel (no vector here changes size meanwhile).
      const std::uint8_t* settled = settled_.data();
      std::uint64_t* dist = dist_.data();
      const std::uint64_t* load = load_.data();
      const std::uint64_t* avoid = avoid_.data();
      for (std::uint32_t i = in_first_[u], e = in_first_[u + 1]; i < e; ++i) {
        const std::uint32_t c = in_[i].channel, v = in_[i].from;  // c: v -> u
        if (settled[v]) continue;
        const std::uint64_t nd = dist_u + base_ + load[c] + avoid[c];
        if (nd >= dist[v]) continue;
        // A candidate only: a turn against the layer's current order gets a short look
        // (most of those searches would be repeated for every neighbour), and the
        // turn is checked for real when v settles.
        if (u != d && !dag.can_add(c, out_u, kCandidateSearch)) continue;
        const bool queued = dist[v] != kInf;
        dist[v] = nd;
        cand_[v] = c;
        if (queued)
          heap_up(heap_pos_[v]);
        else
          heap_push(v);
      }
    }
    if (reached == component_size_[component_[d]]) return true;
    for (const auto& [a, b] : added_)  // impasse: take this destination's turns back
      dag.remove(a, b);
    return false;
  }

  // Channels gain (or, with `sign` -1, lose) the end ports whose route to d crosses
  // them; `end_port` says whether d is an end port's LID, whose routes the edge
  // forwarding index counts (efi_load_).
  void add_load(std::uint32_t d, const std::vector<std::uint32_t>& out, bool end_port,
                int sign = 1) {
    const std::uint32_t n = g_.size();
    // The tree as child lists (first_child_/next_child_), walked breadth first from d;
    // children before their parents in reverse.
    first_child_.assign(n, kNone);
    next_child_.assign(n, kNone);
    for (std::uint32_t v = 0; v < n; ++v)
      if (out[v] != kNone) {
        const std::uint32_t p = g_.ch.to(out[v]);
        next_child_[v] = first_child_[p];
        first_child_[p] = v;
      }
    order_.assign(1, d);
    for (std::size_t i = 0; i < order_.size(); ++i)
      for (std::uint32_t c = first_child_[order_[i]]; c != kNone; c = next_child_[c])
        order_.push_back(c);
    below_.assign(n, 0);
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      const std::uint32_t v = *it;
      below_[v] += hosts_[v];
      if (out[v] == kNone) continue;
      const std::uint64_t change = sign > 0 ? below_[v] : 0 - below_[v];  // wraps: subtracts
      load_[out[v]] += change;
      if (end_port) efi_load_[out[v]] += change;
      below_[g_.ch.to(out[v])] += below_[v];
    }
  }

  // The busiest channel's end-port-to-end-port load, and whether any channel of the
  // tree `out` carries more than `limit` of it.
  std::uint64_t max_efi_load() const {
    return efi_load_.empty() ? 0 : *std::max_element(efi_load_.begin(), efi_load_.end());
  }
  std::uint64_t efi_load(std::uint32_t c) const { return efi_load_[c]; }
  // Makes channels at `level` or above (end-port load) as costly as a detour across the
  // fabric, so that a Dijkstra goes round them where the layer's CDG lets it; 0: none.
  void avoid_at(std::uint64_t level) {
    for (std::size_t c = 0; c < avoid_.size(); ++c)
      avoid_[c] = level != 0 && efi_load_[c] >= level ? base_ * g_.size() : 0;
  }
  bool exceeds(const std::vector<std::uint32_t>& out, std::uint64_t limit) const {
    return std::any_of(out.begin(), out.end(),
                       [&](std::uint32_t c) { return c != kNone && efi_load_[c] > limit; });
  }

 private:
  std::uint64_t weight(std::uint32_t c) const { return base_ + load_[c] + avoid_[c]; }

  // The switches reached but not settled, least (distance, switch) first: the order in
  // which a std::priority_queue of (distance, switch) pairs with stale entries skipped
  // would settle them, at a fraction of the cost (one entry per switch, moved up when
  // its distance drops). A switch is queued iff its distance is finite and it is not
  // settled: one whose turn turned out impossible gets kInf when taken out.
  bool heap_less(std::uint32_t a, std::uint32_t b) const {
    return dist_[a] < dist_[b] || (dist_[a] == dist_[b] && a < b);
  }
  void heap_place(std::size_t i, std::uint32_t v) {
    heap_[i] = v;
    heap_pos_[v] = static_cast<std::uint32_t>(i);
  }
  void heap_up(std::size_t i) {
    const std::uint32_t v = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!heap_less(v, heap_[parent])) break;
      heap_place(i, heap_[parent]);
      i = parent;
    }
    heap_place(i, v);
  }
  void heap_push(std::uint32_t v) {
    heap_.push_back(v);
    heap_up(heap_.size() - 1);
  }
  std::uint32_t heap_pop() {
    const std::uint32_t top = heap_[0];
    const std::uint32_t v = heap_.back();
    heap_.pop_back();
    const std::size_t size = heap_.size();
    if (size > 0) {
      std::size_t i = 0;
      for (;;) {
        std::size_t child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && heap_less(heap_[child + 1], heap_[child])) ++child;
        if (!heap_less(heap_[child], v)) break;
        heap_place(i, heap_[child]);
        i = child;
      }
      heap_place(i, v);
    }
    return top;
  }

  // A switch leaves by channel c: its turn into the next switch's channel joins the CDG.
  bool take_turn(std::uint32_t c, const std::vector<std::uint32_t>& out, IncrementalDag& dag) {
    const std::uint32_t next = out[g_.ch.to(c)];
    if (next == kNone) return true;  // c ends at the destination's switch
    if (!dag.add(c, next)) return false;
    added_.emplace_back(c, next);
    return true;
  }

  const SwitchGraph& g_;
  std::vector<unsigned> hosts_;
  std::vector<std::uint64_t> load_;
  std::vector<std::uint64_t> efi_load_;  // load_ of end-port destinations only
  std::vector<std::uint64_t> avoid_;     // extra weight of the channels being relieved
  // g.in flattened, each channel beside the switch it comes from: the Dijkstra's inner
  // loop.
  struct InChannel {
    std::uint32_t channel, from;
  };
  std::vector<InChannel> in_;
  std::vector<std::uint32_t> in_first_;        // in_[in_first_[u] .. in_first_[u + 1]) enter u
  std::vector<std::uint32_t> component_;       // a representative switch of each one's part
  std::vector<std::uint32_t> component_size_;  // switches in the part, by representative
  std::uint64_t base_ = 1;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> added_;
  // dijkstra()'s and add_load()'s buffers.
  std::vector<std::uint64_t> dist_;
  std::vector<std::uint8_t> settled_;
  std::vector<std::uint32_t> cand_;
  std::vector<std::uint32_t> heap_, heap_pos_;
  std::vector<std::uint32_t> first_child_, next_child_, order_;
  std::vector<std::uint64_t> below_;
};

// Adds (or removes) the turns of the tree `out` (next channel per switch) in `dag`;
// false if a turn to add would close a cycle (those before it stay added).
bool change_turns(const SwitchGraph& g, const std::vector<std::uint32_t>& out, IncrementalDag& dag,
                  bool add) {
  for (std::uint32_t c : out) {
    if (c == kNone) continue;
    const std::uint32_t next = out[g.ch.to(c)];
    if (next == kNone) continue;
    if (!add)
      dag.remove(c, next);
    else if (!dag.add(c, next))
      return false;
  }
  return true;
}

// Writes destination t's tree (next channel per switch, kNone where none) into the LFTs.
void write_tree(const SwitchGraph& g, const Destination& t, const std::vector<std::uint32_t>& tree,
                Routes& routes) {
  routes.lfts[t.sw][t.lid] = t.port;
  for (std::uint32_t v = 0; v < g.size(); ++v)
    if (v != t.sw) routes.lfts[v][t.lid] = tree[v] == kNone ? kNoPath : g.ch.port(tree[v]);
}

// The relief after the Dijkstra pass (see nue.hpp): end-port destinations routed over a
// channel at the busiest load M are routed again around the channels at M.
class Relief {
 public:
  // `in_dag[i]`: destination i's turns are in its layer's CDG (else it follows the escape
  // tree); `routes` holds every destination's tree.
  Relief(const SwitchGraph& g, const std::vector<Destination>& dests,
         std::vector<IncrementalDag>& dags, const std::vector<std::uint8_t>& layer_of_lid,
         NueRouter& router, EscapeTree& escape, std::vector<std::uint8_t>& in_dag, Routes& routes)
      : g_(g),
        dests_(dests),
        dags_(dags),
        layer_of_lid_(layer_of_lid),
        router_(router),
        escape_(escape),
        in_dag_(in_dag),
        routes_(routes) {}

  // Until M is at `bound` or nothing at M can be relieved, at most a quarter of the
  // destinations' reroutes (about half the Dijkstra pass's time).
  void run(std::uint64_t bound) {
    std::uint64_t budget = dests_.size() / 4;
    std::vector<std::uint32_t> hot;
    // (channel, load) at which each destination's reroute was last refused.
    std::vector<std::pair<std::uint32_t, std::uint64_t>> refused(dests_.size(), {kNone, 0});
    for (IncrementalDag& dag : dags_)  // can_add() only picks candidates; add() decides
      dag.keep_refusals(true);
    for (bool progress = true; progress && budget > 0;) {
      progress = false;
      const std::uint64_t m = router_.max_efi_load();
      if (m <= bound) break;
      hot.clear();
      for (std::uint32_t c = 0; c < g_.ch.size(); ++c)
        if (router_.efi_load(c) == m) hot.push_back(c);
      router_.avoid_at(m);
      for (std::uint32_t h : hot) {
        const std::uint32_t u = g_.ch.from(h);
        for (std::size_t i = 0; i < dests_.size() && budget > 0 && router_.efi_load(h) == m; ++i) {
          const Destination& t = dests_[i];
          if (t.port == 0 || routes_.lfts[u][t.lid] != g_.ch.port(h)) continue;
          // Refused for this channel at this load already: only the loads of other
          // channels went down since, so it would most likely be refused again.
          if (refused[i] == std::pair{h, m}) continue;
          --budget;
          if (reroute(i, m, h))
            progress = true;
          else
            refused[i] = {h, m};
        }
      }
      router_.avoid_at(0);
    }
    for (IncrementalDag& dag : dags_)
      dag.keep_refusals(false);
  }

 private:
  // Destination i routed again with everything else in place; kept only if every channel
  // of its new tree stays below m and h carries less than before, else its old tree is
  // restored (whose turns still fit: the CDG without them is part of one that held them).
  bool reroute(std::size_t i, std::uint64_t m, std::uint32_t h) {
    const Destination& t = dests_[i];
    IncrementalDag& dag = dags_[layer_of_lid_[t.lid]];
    old_.assign(g_.size(), kNone);
    for (std::uint32_t v = 0; v < g_.size(); ++v)
      if (v != t.sw && routes_.lfts[v][t.lid] != kNoPath)
        old_[v] = g_.ch.at(v, routes_.lfts[v][t.lid]);
    const std::uint64_t before = router_.efi_load(h);
    router_.add_load(t.sw, old_, true, -1);
    if (in_dag_[i]) change_turns(g_, old_, dag, false);
    if (router_.dijkstra(t.sw, dag, out_)) {
      router_.add_load(t.sw, out_, true);
      if (!router_.exceeds(out_, m - 1) && router_.efi_load(h) < before) {
        in_dag_[i] = 1;
        write_tree(g_, t, out_, routes_);
        return true;
      }
      router_.add_load(t.sw, out_, true, -1);
      change_turns(g_, out_, dag, false);
    }
    if (in_dag_[i] && !change_turns(g_, old_, dag, true)) {
      // Cannot happen (see above); should it, the escape tree is always in the CDG.
      in_dag_[i] = 0;
      escape_.route_to(t.sw, old_);
      write_tree(g_, t, old_, routes_);
    }
    router_.add_load(t.sw, old_, true);
    return false;
  }

  const SwitchGraph& g_;
  const std::vector<Destination>& dests_;
  std::vector<IncrementalDag>& dags_;
  const std::vector<std::uint8_t>& layer_of_lid_;
  NueRouter& router_;
  EscapeTree& escape_;
  std::vector<std::uint8_t>& in_dag_;
  Routes& routes_;
  std::vector<std::uint32_t> old_, out_;  // reroute()'s trees
};

Result<Routes> NueEngine::route_all(const Topology& topo) {
  const SwitchGraph g(topo);
  const std::uint32_t n = g.size();
  const auto lids = lid_owners(topo);
  const std::size_t width = std::size_t{max_lid(topo)} + 1;
  Routes routes;
  routes.lfts.assign(n, Lft(width, kNoPath));
  if (n == 0) return routes;

  // Destinations: every LID a switch delivers.
  std::vector<std::uint32_t> hosts(n, 0);
  for (const EndPort& e : topo.end_ports)
    if (e.sw < n) ++hosts[e.sw];
  std::vector<std::vector<Destination>> at(n);
  for (Lid lid = 1; lid < lids.size(); ++lid) {
    const LidOwner& o = lids[lid];
    if (o.kind == LidOwner::Kind::kSwitch && o.index < n) {
      at[o.index].push_back({lid, o.index, 0, hosts[o.index]});
    } else if (o.kind == LidOwner::Kind::kEndPort) {
      const EndPort& e = topo.end_ports[o.index];
      if (e.sw < n) at[e.sw].push_back({lid, e.sw, e.sw_port, hosts[e.sw]});
    }
  }

  // Layer groups: switches in breadth-first order from the most central one (least
  // eccentricity), cut into runs of about equal LID count, so each group is compact.
  std::uint32_t center = 0;
  std::uint64_t best = kInf;
  for (std::uint32_t s = 0; s < n; ++s) {
    std::uint64_t ecc = 0;
    for (std::uint32_t d : g.bfs(s))
      if (d != UINT32_MAX) ecc = std::max<std::uint64_t>(ecc, d);
    if (ecc < best) best = ecc, center = s;
  }
  std::vector<std::uint32_t> order;
  std::vector<bool> placed(n, false);
  const auto take_part = [&](std::uint32_t s) {  // s's connected part, breadth first
    std::vector<std::uint32_t> part;
    g.bfs(s, &part);
    for (std::uint32_t v : part)
      placed[v] = true, order.push_back(v);
  };
  take_part(center);
  for (std::uint32_t s = 0; s < n; ++s)
    if (!placed[s]) take_part(s);
  std::size_t total = 0;
  for (const auto& list : at)
    total += list.size();
  const unsigned k = std::clamp(config_.nue_max_vls, 1U, kMaxLayers);
  std::vector<std::vector<std::uint32_t>> groups(1);
  std::size_t done = 0;  // LIDs in the groups so far
  for (std::uint32_t v : order) {
    if (groups.size() < k && !groups.back().empty() &&
        done + at[v].size() / 2 > total * groups.size() / k)
      groups.emplace_back();
    groups.back().push_back(v);
    done += at[v].size();
  }

  // One escape tree (rooted at the fabric's centre, which on a fat tree makes its turns
  // agree with the tree's own up/down) and one CDG per layer.
  EscapeTree escape(g, center);
  // The CDGs start from the order up*/down* towards the centre implies (channels towards
  // it, farthest first, then the rest, nearest first): on a tree every shortest path's
  // turns agree with it, and elsewhere most do, so few turns need a search.
  std::vector<std::uint32_t> initial(g.ch.size());
  {
    const auto depth = g.bfs(center);
    const auto key = [&](std::uint32_t c) -> std::int64_t {
      const std::int64_t from = depth[g.ch.from(c)] == UINT32_MAX ? 0 : depth[g.ch.from(c)];
      const std::int64_t to = depth[g.ch.to(c)] == UINT32_MAX ? 0 : depth[g.ch.to(c)];
      return to < from ? -from : from + 1;  // up: deepest first; then down: shallowest first
    };
    std::iota(initial.begin(), initial.end(), 0U);
    std::stable_sort(initial.begin(), initial.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  }
  std::vector<IncrementalDag> dags;
  std::vector<Destination> dests;
  std::vector<std::uint8_t> layer_of_lid(width, 0);
  for (std::size_t l = 0; l < groups.size(); ++l) {
    dags.emplace_back(initial);
    escape.add_turns(dags.back());
    for (std::uint32_t s : groups[l])
      for (const Destination& t : at[s]) {
        dests.push_back(t);
        layer_of_lid[t.lid] = static_cast<std::uint8_t>(l);
      }
  }
  // sssp's order over all layers at once (routing them layer by layer unbalances the
  // shared loads: a 648-host fat tree's busiest channel 936 against 630): end ports of
  // the switches with the most end ports first, then switch LIDs, whose management
  // traffic comes last and should not steer the data paths.
  std::stable_sort(dests.begin(), dests.end(), [](const Destination& a, const Destination& b) {
    if ((a.port == 0) != (b.port == 0)) return b.port == 0;
    return a.hosts > b.hosts;
  });
  NueRouter router(topo, g);
  std::vector<std::uint32_t> out;
  std::vector<std::uint8_t> in_dag(dests.size(), 0);  // its turns are in its layer's CDG
  for (std::size_t i = 0; i < dests.size(); ++i) {
    const Destination& t = dests[i];
    in_dag[i] = router.dijkstra(t.sw, dags[layer_of_lid[t.lid]], out) ? 1 : 0;
    if (!in_dag[i]) escape.route_to(t.sw, out);
    router.add_load(t.sw, out, t.port != 0);
    write_tree(g, t, out, routes);
  }
  std::vector<std::uint32_t> lids_at(n, 0);
  for (const Destination& t : dests)
    if (t.port != 0) ++lids_at[t.sw];
  Relief(g, dests, dags, layer_of_lid, router, escape, in_dag, routes)
      .run(efi_lower_bound(g.ch, hosts, lids_at));
  if (groups.size() > 1) {
    PathSls& sls = routes.path_sl;
    sls.lids = width;
    sls.layers = sls.sls = static_cast<unsigned>(groups.size());
    sls.table.resize(std::size_t{n} * width);
    for (std::uint32_t s = 0; s < n; ++s)
      std::copy(layer_of_lid.begin(), layer_of_lid.end(),
                sls.table.begin() + static_cast<std::ptrdiff_t>(std::size_t{s} * width));
  }
  return routes;
}

}  // namespace

std::unique_ptr<Engine> make_nue_engine(const EngineConfig& config) {
  return std::make_unique<NueEngine>(config);
}

}  // namespace ibsm::routing
