// Virtual layers for fixed routes (Domke et al., IPDPS 2011, Algorithm 2; OpenSM
// dfsssp_remove_deadlocks):
//   1. every path starts in layer 0; each layer's channel dependency graph (CDG) counts,
//      per dependency c1 -> c2, the (source port, destination LID) pairs inducing it;
//   2. per layer in turn, find a cycle; its weakest dependency (fewest pairs) is broken
//      by moving every path of this layer that induces it to the next layer; repeat
//      until the layer is acyclic;
//   3. if the last allowed layer still has a cycle, fail;
//   4. spread the paths over the spare VLs: repeatedly split the layer with the most
//      paths per VL (OpenSM's split_count), each subset keeping the layer's acyclicity.
//
// Cost. The cycle search is one three-colour DFS per layer that resumes after each break
// instead of restarting: breaking only removes dependencies, so finished (black) channels
// stay finished, and the DFS stack is cut back to its first dependency that vanished.
// Paths are not stored: a path is walked from the LFTs when it moves. To move the paths
// through u -> v -> w, the candidate destinations are those for which u's and v's LFTs
// name those ports; per candidate, the sources whose paths pass u are u's branch of the
// destination's forwarding tree, walked up from u. Step 4 does not check again: any
// subset of an acyclic path set is acyclic. Step 4 hands out SLs round-robin within a
// layer, where OpenSM draws a random one of the layer's VLs per PathRecord query; ours is
// deterministic so that the route report can verify exactly the SLs the SA will hand out.
#include "routing/virtual_layers.hpp"

#include <algorithm>
#include <string>

#include "routing/cdg.hpp"
#include "routing/errors.hpp"
#include "routing/in_channels.hpp"
#include "routing/lid_owners.hpp"
#include "routing/sentinels.hpp"

namespace ibsm::routing {
namespace {

// Directed inter-switch channels, per switch in port order, and the dependency slots of
// the CDG: c1 -> c2 is slot dep_first_[c1] + (c2 - out_first_[head(c1)]).
class LayerChannels {
 public:
  LayerChannels(const Topology& topo, const Routes& routes) : routes_(routes) {
    const std::size_t n = topo.switches.size();
    out_first_.assign(n + 1, 0);
    port_first_.assign(n + 1, 0);
    for (std::size_t s = 0; s < n; ++s)
      port_first_[s + 1] = port_first_[s] + topo.switches[s].num_ports + 1U;
    by_port_.assign(port_first_[n], kNone);
    for (std::uint32_t s = 0; s < n; ++s) {
      const Switch& sw = topo.switches[s];
      for (PortNum p = 1; p <= sw.num_ports; ++p)
        for (const Link& l : sw.links)
          if (l.port == p && l.kind == Link::Kind::kSwitch && l.peer < n) {
            by_port_[port_first_[s] + p] = static_cast<std::uint32_t>(all_.size());
            all_.push_back({s, p, l.peer});
            break;
          }
      out_first_[s + 1] = static_cast<std::uint32_t>(all_.size());
    }
    dep_first_.assign(all_.size() + 1, 0);
    for (std::size_t c = 0; c < all_.size(); ++c)
      dep_first_[c + 1] = dep_first_[c] + out_degree(all_[c].peer);
    in_ = InChannels(static_cast<std::uint32_t>(n), size(),
                     [this](std::uint32_t c) { return all_[c].peer; });
  }

  std::uint32_t size() const { return static_cast<std::uint32_t>(all_.size()); }
  const CdgChannel& operator[](std::uint32_t c) const { return all_[c]; }
  std::uint32_t out_first(std::uint32_t s) const { return out_first_[s]; }
  std::uint32_t out_degree(std::uint32_t s) const { return out_first_[s + 1] - out_first_[s]; }
  std::size_t dep_slots() const { return dep_first_.back(); }
  std::span<const std::uint32_t> in(std::uint32_t s) const { return in_.of(s); }
  std::size_t dep_first(std::uint32_t c) const { return dep_first_[c]; }
  std::size_t dep(std::uint32_t c1, std::uint32_t c2) const {
    return dep_first_[c1] + (c2 - out_first_[all_[c1].peer]);
  }

  PortNum port(std::uint32_t s, Lid dlid) const {
    const Lft& lft = routes_.lfts[s];
    return dlid < lft.size() ? lft[dlid] : kNoPath;
  }
  // The channel switch s forwards dlid on; kNone when it delivers, drops or hands the
  // packet to an end port.
  std::uint32_t next(std::uint32_t s, Lid dlid) const {
    const PortNum p = port(s, dlid);
    if (p == 0 || std::size_t{port_first_[s]} + p >= port_first_[s + 1]) return kNone;
    return by_port_[port_first_[s] + p];
  }

  // Calls f(slot) for each dependency of the path from switch s to dlid. A forwarding
  // loop (not produced by sssp) is cut after as many hops as there are channels.
  template <typename F>
  void for_each_dep(std::uint32_t s, Lid dlid, F&& f) const {
    std::uint32_t c1 = next(s, dlid);
    for (std::uint32_t steps = 0; c1 != kNone && steps < all_.size(); ++steps) {
      const std::uint32_t c2 = next(all_[c1].peer, dlid);
      if (c2 == kNone) return;
      f(dep(c1, c2));
      c1 = c2;
    }
  }

 private:
  const Routes& routes_;
  std::vector<CdgChannel> all_;
  std::vector<std::uint32_t> out_first_;
  std::vector<std::uint32_t> port_first_;
  std::vector<std::uint32_t> by_port_;  // [port_first_[s] + port] -> channel
  std::vector<std::size_t> dep_first_;
  InChannels in_;
};

class Layering {
 public:
  Layering(const Topology& topo, const Routes& routes, unsigned max_layers)
      : topo_(topo), ch_(topo, routes), max_layers_(max_layers) {
    const std::size_t n = topo.switches.size();
    weight_.assign(n, 0);
    for (const EndPort& e : topo.end_ports)
      if (e.sw < n && e.base_lid != 0) ++weight_[e.sw];
    for (std::uint32_t s = 0; s < n; ++s)
      if (weight_[s] > 0) sources_.push_back(s);
    const std::vector<LidOwner> owners = lid_owners(topo);
    for (std::size_t lid = 1; lid < owners.size(); ++lid)
      if (owners[lid].kind != LidOwner::Kind::kNone) dests_.push_back(static_cast<Lid>(lid));
    out_.lids = owners.size();
    out_.table.assign(n * out_.lids, 0);
    count_.resize(max_layers_);
    paths_.assign(max_layers_, 0);
    stamp_.assign(n, 0);
  }

  Result<PathSls> run() {
    count_[0].assign(ch_.dep_slots(), 0);
    for (std::uint32_t s : sources_)
      for (Lid dlid : dests_) {
        ch_.for_each_dep(s, dlid, [&](std::size_t d) { count_[0][d] += weight_[s]; });
        paths_[0] += weight_[s];
      }
    unsigned used = 1;
    for (unsigned layer = 0; layer < max_layers_; ++layer) {
      if (layer > 0 && paths_[layer] == 0) break;
      used = layer + 1;
      std::vector<std::uint32_t> cycle;
      if (Status st = break_cycles(layer, cycle); !st) return fail(st.error());
      if (!cycle.empty()) {
        std::vector<CdgChannel> channels;
        for (std::uint32_t c : cycle)
          channels.push_back(ch_[c]);
        return fail(kErrDfssspVlsExhausted,
                    "more than " + std::to_string(max_layers_) +
                        " virtual layers needed; a cycle remains in layer " +
                        std::to_string(layer) + ": " + describe_cycle(topo_, channels));
      }
    }
    out_.layers = used;
    spread(used);
    return std::move(out_);
  }

 private:
  std::uint8_t& layer_of(std::uint32_t s, Lid dlid) {
    return out_.table[std::size_t{s} * out_.lids + dlid];
  }

  // Three-colour DFS over the dependencies of `layer` with a positive count. Each cycle
  // found is broken by moving paths to layer + 1; in the last layer the cycle is
  // returned instead.
  Status break_cycles(unsigned layer, std::vector<std::uint32_t>& cycle_out) {
    enum : std::uint8_t { kWhite, kGrey, kBlack };
    std::vector<std::uint32_t>& cnt = count_[layer];
    std::vector<std::uint8_t> colour(ch_.size(), kWhite);
    struct Frame {
      std::uint32_t c;
      std::uint32_t next;  // next out-channel index of head(c) to look at
    };
    std::vector<Frame> stack;
    for (std::uint32_t root = 0; root < ch_.size(); ++root) {
      if (colour[root] != kWhite) continue;
      colour[root] = kGrey;
      stack.push_back({root, 0});
      while (!stack.empty()) {
        Frame& f = stack.back();
        const std::uint32_t head = ch_[f.c].peer;
        const std::uint32_t degree = ch_.out_degree(head);
        const std::size_t base = ch_.dep_first(f.c);
        while (f.next < degree && cnt[base + f.next] == 0)
          ++f.next;
        if (f.next == degree) {
          colour[f.c] = kBlack;
          stack.pop_back();
          continue;
        }
        const std::uint32_t c2 = ch_.out_first(head) + f.next++;
        if (colour[c2] == kWhite) {
          colour[c2] = kGrey;
          stack.push_back({c2, 0});
          continue;
        }
        if (colour[c2] == kBlack) continue;
        // A cycle: stack[i..top] and back to c2 == stack[i].c.
        std::size_t i = stack.size() - 1;
        while (stack[i].c != c2)
          --i;
        if (layer + 1 >= max_layers_) {
          for (std::size_t j = i; j < stack.size(); ++j)
            cycle_out.push_back(stack[j].c);
          return {};
        }
        std::uint32_t weak_from = stack.back().c;
        std::uint32_t weak_to = c2;
        for (std::size_t j = i; j + 1 < stack.size(); ++j)
          if (cnt[ch_.dep(stack[j].c, stack[j + 1].c)] < cnt[ch_.dep(weak_from, weak_to)]) {
            weak_from = stack[j].c;
            weak_to = stack[j + 1].c;
          }
        move_paths(layer, weak_from, weak_to);
        if (cnt[ch_.dep(weak_from, weak_to)] != 0)
          return fail(kErrTopologyInvalid, "dfsssp: a dependency survived moving its paths");
        // Resume: keep the stack up to its first dependency that no longer exists.
        for (std::size_t j = 0; j + 1 < stack.size(); ++j)
          if (cnt[ch_.dep(stack[j].c, stack[j + 1].c)] == 0) {
            for (std::size_t k = j + 1; k < stack.size(); ++k)
              colour[stack[k].c] = kWhite;
            stack.resize(j + 1);
            break;
          }
      }
    }
    return {};
  }

  // Moves every path of `layer` that uses channel c2 right after c1 to layer + 1: for
  // each destination that u forwards on c1 and v on c2, the paths of the sources in u's
  // branch of its forwarding tree (u and the switches whose paths reach u), found by
  // walking the tree up from u: O(branch), not O(sources).
  void move_paths(unsigned layer, std::uint32_t c1, std::uint32_t c2) {
    const std::uint32_t u = ch_[c1].sw;
    const std::uint32_t v = ch_[c2].sw;
    const PortNum p1 = ch_[c1].port;
    const PortNum p2 = ch_[c2].port;
    std::vector<std::uint32_t>& from = count_[layer];
    std::vector<std::uint32_t>& to = count_[layer + 1];
    if (to.empty()) to.assign(ch_.dep_slots(), 0);
    for (Lid dlid : dests_) {
      if (ch_.port(u, dlid) != p1 || ch_.port(v, dlid) != p2) continue;
      ++gen_;  // a switch is visited once per destination, even on a forwarding loop
      branch_.assign(1, u);
      stamp_[u] = gen_;
      while (!branch_.empty()) {
        const std::uint32_t s = branch_.back();
        branch_.pop_back();
        for (const std::uint32_t c : ch_.in(s)) {
          const std::uint32_t y = ch_[c].sw;
          if (stamp_[y] != gen_ && ch_.next(y, dlid) == c) {
            stamp_[y] = gen_;
            branch_.push_back(y);
          }
        }
        std::uint8_t& l = layer_of(s, dlid);
        if (weight_[s] == 0 || l != layer) continue;
        const std::uint32_t w = weight_[s];
        ch_.for_each_dep(s, dlid, [&](std::size_t d) {
          from[d] -= w;
          to[d] += w;
        });
        l = static_cast<std::uint8_t>(layer + 1);
        paths_[layer] -= w;
        paths_[layer + 1] += w;
      }
    }
  }

  // Step 4: the spare VLs go to the layers with the most paths per VL; a layer split k
  // ways hands out its k SLs round-robin over its paths.
  void spread(unsigned used) {
    std::vector<unsigned> split(max_layers_, 0);
    for (unsigned l = 0; l < used; ++l)
      split[l] = 1;
    for (unsigned extra = used; extra < max_layers_; ++extra) {
      unsigned best = 0;
      for (unsigned l = 1; l < used; ++l)
        if (paths_[l] * split[best] > paths_[best] * split[l]) best = l;
      ++split[best];
    }
    std::vector<unsigned> first(used, 0);
    for (unsigned l = 1; l < used; ++l)
      first[l] = first[l - 1] + split[l - 1];
    out_.sls = first[used - 1] + split[used - 1];
    std::vector<unsigned> turn(used, 0);
    for (std::uint32_t s : sources_)
      for (Lid dlid : dests_) {
        std::uint8_t& l = layer_of(s, dlid);
        const unsigned k = split[l] > 1 ? turn[l]++ % split[l] : 0;
        l = static_cast<std::uint8_t>(first[l] + k);
      }
  }

  const Topology& topo_;
  LayerChannels ch_;
  unsigned max_layers_;
  std::vector<std::uint32_t> weight_;              // routable end ports per switch
  std::vector<std::uint32_t> sources_;             // switches with weight > 0
  std::vector<Lid> dests_;                         // every LID of the fabric
  std::vector<std::vector<std::uint32_t>> count_;  // [layer][dependency slot] -> pairs
  std::vector<std::uint64_t> paths_;               // [layer] -> pairs
  std::vector<std::uint32_t> stamp_;               // move_paths(): visited in generation gen_
  std::vector<std::uint32_t> branch_;              // move_paths(): switches to visit
  std::uint32_t gen_ = 0;
  PathSls out_;
};

}  // namespace

Result<PathSls> assign_virtual_layers(const Topology& topo, const Routes& routes,
                                      unsigned max_layers) {
  if (routes.lfts.size() != topo.switches.size())
    return fail(kErrTopologyInvalid, "dfsssp: one LFT per switch expected");
  return Layering(topo, routes, std::clamp(max_layers, 1U, kMaxLayers)).run();
}

}  // namespace ibsm::routing
