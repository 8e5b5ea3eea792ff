// SSSP routing: one Dijkstra per destination LID over load-dependent channel weights.
//
// Weights (Domke et al., IPDPS 2011, section IV; OpenSM osm_ucast_dfsssp.c): every
// directed inter-switch channel starts at P^2 (P = routable end ports), so that paths stay
// shortest as long as no path's summed load reaches P^2 (the busiest channel of the
// 5832-host tree carries 5814 routes against P^2 = 34 million) and the load only decides
// between paths of equal length. After a destination LID is
// routed, each channel gains the number of end ports whose route to that LID now crosses
// it, i.e. its all-to-all channel load so far. Dijkstra runs from the destination's
// switch over the reversed channels, so each switch learns its next hop towards it; the
// resulting next hops form a tree, which one destination-based LFT entry per switch can
// express.
//
// Ties between equally heavy paths keep the first one found, as OpenSM's strict "<" does.
// A d-mod-k rotation among tied channels (minhop.cpp's rule) was measured worse here
// (max channel load on the 6x6x6 torus 1032 vs 1008, on a degraded 3-level tree 2184 vs
// 2160; only the 72-host dragonfly gained, 94 vs 96): after the first destinations the
// loads already break the ties, and rotation then breaks up paths that fit together.
//
// Sources are end ports only. OpenSM also counts each switch's port 0 as a source of
// weight 1 (num_hca), which on the 3-level 5184-host tree raises the busiest channel
// from 5166 (the lower bound, ours) to 8712 (OpenSM's and ours with that rule):
// management traffic is negligible and should not steer the data paths.
//
// Order (OpenSM's, dfsssp_do_dijkstra_routing): end ports of the switches with the most
// end ports first, each switch's in port order, then switch LIDs, so management routes
// come last. On an irregular fabric this lowers the busiest channel (random 40-switch
// graph: 998 against 1048 in switch index order). With LMC > 0 every LID of a port gets
// its own Dijkstra; the loads of the earlier LIDs steer the later ones onto other
// channels wherever an equally short one exists.
//
// Site inputs, as for minhop (routing/port_balance.hpp): guid_routing_order_file puts
// the listed ports (a switch GUID: its LID) first, in file order; port_prof_ignore_file
// ports are routed but are neither sources nor destinations that load a channel.
#include "routing/sssp.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <unordered_map>
#include <utility>

#include "routing/hop_matrix.hpp"
#include "routing/in_channels.hpp"
#include "routing/lid_owners.hpp"
#include "routing/port_balance.hpp"
#include "routing/rebalance.hpp"
#include "routing/sentinels.hpp"
#include "routing/throttled_links.hpp"
#include "routing/topology_check.hpp"

namespace ibsm::routing {
namespace {

struct SsspChannel {
  std::uint32_t from = 0;  // sending switch
  std::uint32_t to = 0;    // receiving switch
  PortNum port = 0;        // output port on `from`
};

// A destination port: 2^lmc LIDs delivered by switch `sw` on `port` (0: the switch).
struct SsspTarget {
  std::uint32_t sw = 0;
  PortNum port = 0;
  Lid base = 0;
  std::uint8_t lmc = 0;
  bool counts = true;   // false: port_prof_ignore_file, its routes load no channel
  bool listed = false;  // guid_routing_order_file: routed first, never rebalanced
};

class SsspRouter {
 public:
  SsspRouter(const Topology& topo, const EngineConfig& config)
      : topo_(topo), n_(topo.switches.size()), balance_(plan_balance(topo, config)) {
    out_first_.assign(n_ + 1, 0);
    for (std::uint32_t s = 0; s < n_; ++s) {
      std::vector<SsspChannel> mine;
      for (const Link& l : topo.switches[s].links)
        if (l.kind == Link::Kind::kSwitch) mine.push_back({s, l.peer, l.port});
      std::sort(mine.begin(), mine.end(),
                [](const SsspChannel& a, const SsspChannel& b) { return a.port < b.port; });
      channels_.insert(channels_.end(), mine.begin(), mine.end());
      out_first_[s + 1] = static_cast<std::uint32_t>(channels_.size());
    }
    // Channels entering each switch, for Dijkstra from the destination backwards.
    in_ = InChannels(static_cast<std::uint32_t>(n_), static_cast<std::uint32_t>(channels_.size()),
                     [this](std::uint32_t c) { return channels_[c].to; });

    sources_ = balance_.sources;  // routable end ports per switch, less the ignored ones
    std::uint64_t ports = 0;
    for (std::uint32_t n : sources_)
      ports += n;
    base_weight_ = std::max<std::uint64_t>(1, ports * ports);
    load_.assign(channels_.size(), 0);
    flow_.assign(n_, 0);
    dist_.assign(n_, kInf);
    next_.assign(n_, kNone);
    settled_.assign(n_, 0);
    lft_size_ = std::size_t{max_lid(topo)} + 1;
    by_lid_.assign(lft_size_ * n_, kNoPath);
  }

  Routes run() {
    const std::vector<SsspTarget> targets = make_targets();
    for (const SsspTarget& t : targets) {
      for (unsigned k = 0; k < (1U << t.lmc); ++k)
        route_lid(t, static_cast<Lid>(t.base + k));
    }
    rebalance(targets);
    Routes routes = transpose();
    routes.warnings = std::move(balance_.warnings);
    return routes;
  }

 private:
  std::vector<SsspTarget> make_targets() const {
    std::vector<SsspTarget> out;
    for (const EndPort& e : topo_.end_ports)
      if (e.sw != UINT32_MAX && e.base_lid != 0)
        out.push_back({e.sw, e.sw_port, e.base_lid, e.lmc});
    std::stable_sort(out.begin(), out.end(), [this](const SsspTarget& a, const SsspTarget& b) {
      if (sources_[a.sw] != sources_[b.sw]) return sources_[a.sw] > sources_[b.sw];
      return a.sw != b.sw ? a.sw < b.sw : a.port < b.port;
    });
    for (std::uint32_t s = 0; s < n_; ++s)
      if (topo_.switches[s].lid != 0)
        out.push_back({s, 0, topo_.switches[s].lid, topo_.switches[s].lmc});
    // The shared plan knows which ports are ignored and which come first (its own default
    // order differs: sssp puts the busiest switches' ports first).
    std::unordered_map<Lid, const BalanceTarget*> planned;
    for (const BalanceTarget& b : balance_.targets)
      planned.emplace(b.base, &b);
    for (SsspTarget& t : out)
      if (auto it = planned.find(t.base); it != planned.end())
        t.counts = it->second->traffic != Traffic::kIgnored;
    if (balance_.listed > 0) {  // the plan starts with the listed ports, in file order
      std::unordered_map<Lid, std::size_t> rank;
      for (std::size_t r = 0; r < balance_.listed; ++r)
        rank.emplace(balance_.targets[r].base, r);
      const auto first = std::stable_partition(
          out.begin(), out.end(), [&](const SsspTarget& t) { return rank.contains(t.base); });
      for (auto it = out.begin(); it != first; ++it)
        it->listed = true;
      std::sort(out.begin(), first, [&](const SsspTarget& a, const SsspTarget& b) {
        return rank[a.base] < rank[b.base];
      });
    }
    return out;
  }

  // Each Dijkstra sees only the destinations routed before it; a local search over the
  // finished next hops lowers the busiest channel (routing/rebalance.hpp). It keeps every
  // path as long as it is: sssp's paths are shortest (the P^2 base weight), so the search
  // only trades one shortest next hop for another.
  void rebalance(const std::vector<SsspTarget>& targets) {
    Result<HopMatrix> hops = HopMatrix::compute(topo_);
    if (!hops) return;
    // End ports only: the EFI grades traffic between end ports, and management traffic to
    // switch LIDs should not steer the data paths (as for the sources above).
    std::vector<RebalanceTarget> moving;
    for (const SsspTarget& t : targets) {
      if (!t.counts || t.port == 0) continue;
      for (unsigned k = 0; k < (1U << t.lmc); ++k)
        moving.push_back({static_cast<Lid>(t.base + k), t.sw, t.base, t.lmc, !t.listed});
    }
    rebalance_routes(topo_, *hops, sources_, moving, by_lid_);
  }

  // Dijkstra from `dst` over reversed channels: next_[s] is the channel switch s sends
  // on, order_ the switches in the order they were settled (non-decreasing distance, so
  // every switch comes after the switch its next hop leads to).
  void dijkstra(std::uint32_t dst) {
    ++gen_;
    std::fill(dist_.begin(), dist_.end(), kInf);
    std::fill(next_.begin(), next_.end(), kNone);
    order_.clear();
    heap_.clear();
    dist_[dst] = 0;
    heap_.emplace_back(0, dst);
    const auto later = std::greater<std::pair<std::uint64_t, std::uint32_t>>();
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      const auto [d, x] = heap_.back();
      heap_.pop_back();
      if (settled_[x] == gen_ || d != dist_[x]) continue;
      settled_[x] = gen_;
      order_.push_back(x);
      for (const std::uint32_t c : in_.of(x)) {
        const std::uint32_t y = channels_[c].from;
        if (settled_[y] == gen_) continue;
        const std::uint64_t nd = d + base_weight_ + load_[c];
        if (nd < dist_[y]) {
          dist_[y] = nd;
          next_[y] = c;
          heap_.emplace_back(nd, y);
          std::push_heap(heap_.begin(), heap_.end(), later);
        }
      }
    }
  }

  void route_lid(const SsspTarget& t, Lid lid) {
    PortNum* out = &by_lid_[std::size_t{lid} * n_];
    out[t.sw] = t.port;
    dijkstra(t.sw);
    for (std::uint32_t s : order_)
      if (s != t.sw) out[s] = channels_[next_[s]].port;
    // All-to-all load: farthest switches first, each passing on the end ports whose
    // traffic to this LID funnels through it (OpenSM's update_weights adds num_hca of
    // every source switch to each link of its path, which is the same sum).
    if (!t.counts) return;
    for (std::uint32_t s : order_)
      flow_[s] = sources_[s];
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      const std::uint32_t s = *it;
      if (s == t.sw || flow_[s] == 0) continue;
      const std::uint32_t c = next_[s];
      load_[c] += flow_[s];
      flow_[channels_[c].to] += flow_[s];
    }
  }

  // Next hops are produced one LID at a time for all switches; stored LID-major, they
  // are transposed once at the end (as minhop.cpp does).
  Routes transpose() const {
    Routes routes;
    routes.lfts.assign(n_, Lft(lft_size_, kNoPath));
    constexpr std::size_t kBlock = 64;
    for (std::size_t l0 = 0; l0 < lft_size_; l0 += kBlock)
      for (std::size_t s = 0; s < n_; ++s) {
        PortNum* dst = routes.lfts[s].data();
        const std::size_t l1 = std::min(lft_size_, l0 + kBlock);
        for (std::size_t lid = l0; lid < l1; ++lid)
          dst[lid] = by_lid_[lid * n_ + s];
      }
    return routes;
  }

  const Topology& topo_;
  std::size_t n_;
  BalancePlan balance_;
  std::vector<SsspChannel> channels_;     // per switch in port order
  std::vector<std::uint32_t> out_first_;  // channels_ of switch s: [out_first_[s], [s + 1])
  InChannels in_;                         // channels entering each switch
  std::vector<std::uint32_t> sources_;    // routable end ports per switch
  std::uint64_t base_weight_ = 1;
  std::vector<std::uint64_t> load_;  // per channel: all-to-all routes so far
  std::vector<std::uint64_t> flow_;  // per switch (scratch)
  std::vector<std::uint64_t> dist_;
  std::vector<std::uint32_t> next_;
  std::vector<std::uint32_t> settled_;  // == gen_: settled in this Dijkstra
  std::uint32_t gen_ = 0;
  std::vector<std::uint32_t> order_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> heap_;
  std::size_t lft_size_ = 0;
  std::vector<PortNum> by_lid_;  // [lid * switches + switch] -> port
};

class SsspEngine final : public Engine {
 public:
  std::string_view name() const override { return "sssp"; }
  explicit SsspEngine(EngineConfig config) : config_(std::move(config)) {}
  Result<Routes> route(const Topology& topo) override { return route_sssp(topo, config_); }

 private:
  EngineConfig config_;
};

}  // namespace

Result<Routes> route_sssp(const Topology& topo, const EngineConfig& config) {
  if (Status st = validate_topology(topo); !st) return fail(st.error());
  return route_avoiding_throttled(topo, config.avoid_throttled_links,
                                  [&](const Topology& t) { return SsspRouter(t, config).run(); });
}

std::unique_ptr<Engine> make_sssp_engine() {
  return make_sssp_engine(EngineConfig{});
}

std::unique_ptr<Engine> make_sssp_engine(const EngineConfig& config) {
  return std::make_unique<SsspEngine>(config);
}

}  // namespace ibsm::routing
