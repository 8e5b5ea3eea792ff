// Min-hop routing with globally balanced port choice.
//
// For each destination LID, every switch picks one of its minimal ports (a port whose
// peer switch is one hop closer to the destination's switch). OpenSM balances that choice
// with a per-switch counter of LIDs per port; on multi-level trees the counters of
// successive levels advance in lock-step, so half the channels stay idle (routing.md
// 4.3, lesson a). Here the choice is made against *global* per-channel counters of
// all-to-all routes: switches are visited farthest-first, each knows how many sources
// already funnel into it (its flow) and puts that flow on its least-loaded minimal channel.
// An idle channel has load 0 and wins as soon as it is a candidate for a switch that
// carries traffic, which is what decorrelates the tree levels. Ties go to the channel at
// the destination's sequence number modulo the switch's channel count (d-mod-k), which
// reproduces ftree's optimal spreading on full trees where loads tie.
//
// Site inputs (routing/port_balance.hpp): the routing order, ignored ports, switch LIDs in
// the balance, port shifting and scatter change the order and the tie-break; hop weights
// (hop_weights_file) replace hop counts by summed port weights, so "minimal" means least
// weight, as in OpenSM's LID matrix (osm_ucast_mgr.c adds hop_wf per hop).
#include "routing/minhop.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>

#include "routing/errors.hpp"
#include "routing/hop_matrix.hpp"
#include "routing/in_channels.hpp"
#include "routing/lid_owners.hpp"
#include "routing/port_balance.hpp"
#include "routing/rebalance.hpp"
#include "routing/sentinels.hpp"
#include "routing/topology_check.hpp"

namespace ibsm::routing {
namespace {

struct MinhopChannel {
  PortNum port = 0;
  std::uint32_t peer = 0;  // switch index
};

using Target = BalanceTarget;

class MinhopRouter {
 public:
  MinhopRouter(const Topology& topo, const HopMatrix& hops, const EngineConfig& config)
      : topo_(topo),
        hops_(hops),
        plan_(plan_balance(topo, config)),
        shifting_(config.port_shifting),
        seed_(config.scatter_seed) {
    const std::size_t n = topo.switches.size();
    first_.assign(n + 1, 0);
    for (std::size_t s = 0; s < n; ++s) {
      std::vector<MinhopChannel> mine;
      for (const Link& l : topo.switches[s].links)
        if (l.kind == Link::Kind::kSwitch) mine.push_back({l.port, l.peer});
      std::sort(mine.begin(), mine.end(),
                [](const MinhopChannel& a, const MinhopChannel& b) { return a.port < b.port; });
      channels_.insert(channels_.end(), mine.begin(), mine.end());
      first_[s + 1] = static_cast<std::uint32_t>(channels_.size());
      owner_.resize(channels_.size(), static_cast<std::uint32_t>(s));
    }
    sources_ = plan_.sources;
    load_.assign(channels_.size(), 0);
    mgmt_.assign(channels_.size(), 0);
    routed_.assign(channels_.size(), 0);
    set_weights(config.hop_weights);
    flow_.assign(n, 0);
    lft_size_ = std::size_t{max_lid(topo)} + 1;
    by_lid_.assign(lft_size_ * n, kNoPath);
  }

  Routes run() {
    const std::vector<Target>& targets = plan_.targets;
    for (std::uint32_t seq = 0; seq < targets.size(); ++seq) {
      const Target& t = targets[seq];
      for (unsigned k = 0; k < (1U << t.lmc); ++k)
        route_lid(t, k, seq);
    }
    rebalance();
    Routes routes = routes_from_lid_major(by_lid_, hops_.num_switches(), lft_size_);
    routes.warnings = std::move(plan_.warnings);
    routes.warnings.insert(routes.warnings.end(), weight_warnings_.begin(), weight_warnings_.end());
    return routes;
  }

 private:
  // The greedy order cannot foresee later destinations; a local search over the finished
  // next hops lowers the busiest channel (routing/rebalance.hpp). Not with hop weights:
  // there "minimal" means least weight, which the search does not know.
  void rebalance() {
    if (!weight_.empty()) return;
    std::vector<RebalanceTarget> targets;
    for (std::uint32_t seq = 0; seq < plan_.targets.size(); ++seq) {
      const Target& t = plan_.targets[seq];
      if (t.traffic != Traffic::kData) continue;
      for (unsigned k = 0; k < (1U << t.lmc); ++k)
        targets.push_back({static_cast<Lid>(t.base + k), t.sw, t.base, t.lmc, seq >= plan_.listed});
    }
    rebalance_routes(topo_, hops_, sources_, targets, by_lid_);
  }

  // Switches that reach `dst`, farthest first (counting sort; stable in index order), each
  // with its minimal channels towards dst. Every LID delivered by dst shares this, so it
  // is computed once per destination switch rather than once per LID.
  void order_by_distance(std::uint32_t dst) {
    if (order_for_ == dst) return;
    order_for_ = dst;
    if (!weight_.empty()) return order_by_weight(dst);
    const std::uint8_t* row = hops_.row(dst);
    hops_.farthest_first(dst, order_);
    cand_.clear();
    cand_first_.assign(order_.size() + 1, 0);
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const std::uint32_t s = order_[i];
      for (std::uint32_t c = first_[s]; c < first_[s + 1]; ++c)
        if (row[channels_[c].peer] + 1U == row[s]) cand_.push_back(c);
      cand_first_[i + 1] = static_cast<std::uint32_t>(cand_.size());
    }
  }

  // hop_weights_file entries onto channels; a weight on a port that is no inter-switch
  // link of a known switch is reported and ignored (it cannot change a route).
  void set_weights(const std::vector<EngineConfig::HopWeight>& weights) {
    if (weights.empty()) return;
    std::unordered_map<std::uint64_t, std::uint32_t> by_guid;
    for (std::uint32_t s = 0; s < topo_.switches.size(); ++s)
      by_guid.emplace(topo_.switches[s].guid, s);
    std::vector<std::uint8_t> weight(channels_.size(), 1);
    std::string unknown;
    std::size_t n_unknown = 0;
    for (const EngineConfig::HopWeight& w : weights) {
      auto it = by_guid.find(w.switch_guid);
      std::uint32_t c = it == by_guid.end() ? UINT32_MAX : channel_of(it->second, w.port);
      if (c != UINT32_MAX) {
        weight[c] = w.weight;
        continue;
      }
      if (n_unknown++ < 4) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%s0x%016llx port %u", unknown.empty() ? "" : ", ",
                      static_cast<unsigned long long>(w.switch_guid), unsigned{w.port});
        unknown += buf;
      }
    }
    if (n_unknown > 0)
      weight_warnings_.push_back(
          {kErrHopWeightUnknown, "hop_weights_file: " + std::to_string(n_unknown) +
                                     " weight(s) ignored (no such switch or inter-switch "
                                     "port): " +
                                     unknown + (n_unknown > 4 ? ", ..." : "")});
    if (std::any_of(weight.begin(), weight.end(), [](std::uint8_t w) { return w != 1; }))
      weight_ = std::move(weight);
  }

  std::uint32_t channel_of(std::uint32_t s, PortNum port) const {
    for (std::uint32_t c = first_[s]; c < first_[s + 1]; ++c)
      if (channels_[c].port == port) return c;
    return UINT32_MAX;
  }

  // order_by_distance() with hop weights: Dijkstra from dst over the reversed channels,
  // each costing its weight; the candidates of s are the channels on a least-weight path.
  // Weights are >= 1, so every candidate leads strictly closer and farthest-first order
  // still visits each switch before its next hops.
  void order_by_weight(std::uint32_t dst) {
    const std::uint32_t n = hops_.num_switches();
    dist_.assign(n, kFar);
    if (in_.empty())  // built once
      in_ = InChannels(n, static_cast<std::uint32_t>(channels_.size()),
                       [this](std::uint32_t c) { return channels_[c].peer; });
    using Item = std::pair<std::uint32_t, std::uint32_t>;  // (distance, switch)
    std::vector<Item> heap{{0, dst}};
    dist_[dst] = 0;
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      const auto [d, x] = heap.back();
      heap.pop_back();
      if (d != dist_[x]) continue;
      for (const std::uint32_t c : in_.of(x)) {
        const std::uint32_t y = owner_[c];
        if (d + weight_[c] < dist_[y]) {
          dist_[y] = d + weight_[c];
          heap.emplace_back(dist_[y], y);
          std::push_heap(heap.begin(), heap.end(), std::greater<>());
        }
      }
    }
    order_.clear();
    for (std::uint32_t s = 0; s < n; ++s)
      if (s != dst && dist_[s] != kFar) order_.push_back(s);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return dist_[a] > dist_[b]; });
    cand_.clear();
    cand_first_.assign(order_.size() + 1, 0);
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const std::uint32_t s = order_[i];
      for (std::uint32_t c = first_[s]; c < first_[s + 1]; ++c)
        if (dist_[channels_[c].peer] != kFar && dist_[channels_[c].peer] + weight_[c] == dist_[s])
          cand_.push_back(c);
      cand_first_[i + 1] = static_cast<std::uint32_t>(cand_.size());
    }
  }

  void route_lid(const Target& t, unsigned k, std::uint32_t seq) {
    const Lid lid = static_cast<Lid>(t.base + k);
    PortNum* out = &by_lid_[std::size_t{lid} * hops_.num_switches()];
    out[t.sw] = t.port;
    order_by_distance(t.sw);
    const bool data = t.traffic == Traffic::kData;
    for (std::uint32_t s : order_)
      flow_[s] = data ? sources_[s] : 0;
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const std::uint32_t s = order_[i];
      const std::uint32_t c =
          pick(s, &cand_[cand_first_[i]], cand_first_[i + 1] - cand_first_[i], t, k, seq);
      out[s] = channels_[c].port;
      if (t.traffic == Traffic::kManagement) {
        ++mgmt_[c];
      } else if (data) {
        ++routed_[c];
        load_[c] += flow_[s];
        flow_[channels_[c].peer] += flow_[s];
      }
    }
  }

  struct Key {
    std::uint32_t same_peer;
    std::uint32_t same_port;
    std::uint64_t primary;
    std::uint64_t secondary;
    std::uint32_t rotation;
    auto operator<=>(const Key&) const = default;
  };

  // The minimal channel of switch s with the smallest key:
  //   1. for the 2nd..2^LMC-th LID of a port: fewest earlier LIDs of this port leaving
  //      towards the same next switch, then over the same port (path diversity for LMC);
  //   2. least load (management routes: fewest switch LIDs first, then data load);
  //   3. rotation from the destination's sequence number (d-mod-k tie-break).
  // This runs S times per LID, so the common case (first LID) avoids the LMC counting
  // and all divisions but one.
  std::uint32_t pick(std::uint32_t s, const std::uint32_t* cand, std::uint32_t ncand,
                     const Target& t, unsigned k, std::uint32_t seq) const {
    if (ncand == 1) return cand[0];
    const bool mgmt = t.traffic == Traffic::kManagement;
    if (shifting_ || (t.scatter && k == 0)) return pick_steered(s, cand, ncand, t, k, seq);
    const std::uint32_t r = seq % ncand;
    // A switch no source's traffic crosses cannot change any load: take the d-mod-k
    // choice without scanning (most switches of a big tree, for any one destination).
    if (!mgmt && k == 0) {
      if (flow_[s] == 0) return cand[r];
      // The common case of the full key below: least load, first in rotation order.
      std::uint32_t best = cand[r];
      std::uint64_t best_load = load_[best];
      for (std::uint32_t i = r + 1; i < ncand + r; ++i) {
        const std::uint32_t c = cand[i < ncand ? i : i - ncand];
        if (load_[c] < best_load) {
          best = c;
          best_load = load_[c];
        }
      }
      return best;
    }
    std::uint32_t best = UINT32_MAX;
    Key best_key{};
    for (std::uint32_t i = 0; i < ncand; ++i) {
      const std::uint32_t c = cand[i];
      const Key key = key_of(s, c, i, r, ncand, t, k);
      if (best == UINT32_MAX || key < best_key) {
        best = c;
        best_key = key;
      }
    }
    return best;  // a switch at distance h >= 1 always has a neighbour at h - 1
  }

  // The full key of candidate i (channel c) with the tie-break rotation starting at r.
  Key key_of(std::uint32_t s, std::uint32_t c, std::uint32_t i, std::uint32_t r,
             std::uint32_t ncand, const Target& t, unsigned k) const {
    const bool mgmt = t.traffic == Traffic::kManagement;
    Key key{0, 0, mgmt ? mgmt_[c] : load_[c], mgmt ? load_[c] : 0, i >= r ? i - r : i + ncand - r};
    if (k > 0) lmc_reuse(s, t, k, channels_[c], key);
    return key;
  }

  // pick() under port_shifting or scatter_ports: the same key, but the rotation starts at
  // OpenSM's shift, or one of the candidates tied on everything but the rotation is drawn
  // from the seed.
  std::uint32_t pick_steered(std::uint32_t s, const std::uint32_t* cand, std::uint32_t ncand,
                             const Target& t, unsigned k, std::uint32_t seq) const {
    std::uint32_t r = seq % ncand;
    if (shifting_) {
      std::uint64_t routed = 0;
      for (std::uint32_t i = 0; i < ncand; ++i)
        routed += routed_[cand[i]];
      r = shifted_start(routed, ncand);
    }
    std::uint32_t best = UINT32_MAX;
    Key best_key{};
    std::uint32_t tied = 0;
    for (std::uint32_t i = 0; i < ncand; ++i) {
      Key key = key_of(s, cand[i], i, r, ncand, t, k);
      if (t.scatter && k == 0) key.rotation = 0;
      if (best == UINT32_MAX || key < best_key) {
        best = i;
        best_key = key;
        tied = 1;
      } else if (key == best_key) {
        ++tied;
      }
    }
    if (tied <= 1 || !t.scatter || k != 0) return cand[best];
    std::uint32_t nth = scatter_choice(seed_, static_cast<Lid>(t.base + k), s, tied);
    for (std::uint32_t i = 0; i < ncand; ++i) {
      Key key = key_of(s, cand[i], i, r, ncand, t, k);
      key.rotation = 0;
      if (key == best_key && nth-- == 0) return cand[i];
    }
    return cand[best];
  }

  // How many of LIDs base..base+k-1 already leave switch s over this channel's port and
  // towards its peer switch.
  void lmc_reuse(std::uint32_t s, const Target& t, unsigned k, const MinhopChannel& ch,
                 Key& key) const {
    const std::size_t n = hops_.num_switches();
    for (unsigned j = 0; j < k; ++j) {
      const PortNum prev = by_lid_[(t.base + j) * n + s];
      if (prev == ch.port) ++key.same_port;
      if (peer_of(s, prev) == ch.peer) ++key.same_peer;
    }
  }

  std::uint32_t peer_of(std::uint32_t s, PortNum port) const {
    for (std::uint32_t c = first_[s]; c < first_[s + 1]; ++c)
      if (channels_[c].port == port) return channels_[c].peer;
    return UINT32_MAX;
  }

  const Topology& topo_;
  const HopMatrix& hops_;
  BalancePlan plan_;
  bool shifting_ = false;
  std::uint32_t seed_ = 0;
  std::vector<std::uint8_t> weight_;  // per channel; empty when every port weighs 1
  std::vector<std::uint32_t> dist_;   // weighted distance to order_for_ (scratch)
  InChannels in_;                     // channels entering each switch (weights only)
  std::vector<std::uint32_t> owner_;  // per channel: the sending switch
  std::vector<Error> weight_warnings_;
  std::vector<std::uint32_t> first_;     // channels_ of switch s: [first_[s], first_[s + 1])
  std::vector<MinhopChannel> channels_;  // inter-switch channels, per switch in port order
  std::vector<std::uint32_t> sources_;   // routable end ports per switch
  std::vector<std::uint64_t> load_;      // per channel: all-to-all end-port routes
  std::vector<std::uint32_t> mgmt_;      // per channel: switch LIDs routed over it
  std::vector<std::uint32_t> routed_;    // per channel: data LIDs routed over it (port shifting)
  std::vector<std::uint64_t> flow_;      // per switch: sources funnelling into it (scratch)
  std::vector<std::uint32_t> order_;
  std::vector<std::uint32_t> cand_;        // minimal channels of order_[i]:
  std::vector<std::uint32_t> cand_first_;  // cand_[cand_first_[i] .. cand_first_[i + 1])
  std::uint32_t order_for_ = UINT32_MAX;
  std::size_t lft_size_ = 0;
  std::vector<PortNum> by_lid_;  // [lid * switches + switch] -> port
};

class MinHopEngine final : public Engine {
 public:
  explicit MinHopEngine(EngineConfig config) : config_(std::move(config)) {}

  std::string_view name() const override { return "minhop"; }

  Result<Routes> route(const Topology& topo) override {
    if (Status st = validate_topology(topo); !st) return fail(st.error());
    Result<HopMatrix> hops = HopMatrix::compute(topo);
    if (!hops) return fail(hops.error());
    return MinhopRouter(topo, *hops, config_).run();
  }

 private:
  EngineConfig config_;
};

}  // namespace

std::unique_ptr<Engine> make_minhop_engine() {
  return std::make_unique<MinHopEngine>(EngineConfig{});
}

std::unique_ptr<Engine> make_minhop_engine(const EngineConfig& config) {
  return std::make_unique<MinHopEngine>(config);
}

}  // namespace ibsm::routing
