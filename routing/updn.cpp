// Up*/down* routing with one forwarding table per switch.
//
// An LFT is indexed by destination only, not by the port a packet came in on, so a switch
// must forward every packet for a destination the same way whether it arrived on an up
// or a down channel. A switch that sends a destination's packets up would make a packet
// that arrived going down turn down->up, which the rule forbids. Hence, per destination
// switch d, every switch is in one of two modes:
//   - down mode: it has a path to d made only of down channels; it forwards down, to a
//     neighbour in down mode one step closer along such paths;
//   - up mode: it has none; it forwards up, to a neighbour one step closer by any legal
//     path (up channels go to lower positions, so these distances follow in order).
// A down-mode switch is only ever followed by down-mode switches, an up-mode switch is
// only entered from below, so every route is up* then down* (the turn happens where the
// first down-mode switch is reached). Every switch with any legal path to d has one in
// this scheme: the switch where a legal path turns has a down-only path, so the up part
// leads to a down-mode switch. The price: a down-mode switch keeps its shortest down-only
// path even where a path that goes up first would be shorter (only possible along chains
// of equal rank; never on fat trees). OpenSM (updn_bfs_by_node) instead fixes a switch's
// direction at its first BFS visit, which can leave a legal path unused.
//
// Among the candidates of a switch the port is chosen as minhop does (minhop.cpp): global
// per-channel loads of all-to-all routes, switches farthest first carrying the flow of
// the sources behind them, d-mod-k rotation on ties, and the same site inputs
// (routing/port_balance.hpp: routing order, ignored ports, switch LIDs in the balance,
// port shifting, scatter). Hop weights are minhop's only, as in OpenSM.
//
// connect_roots (-z): a root switch's LID is also reachable from the switches that have
// no legal path to it (the other roots of a fat tree, and aggregation switches of other
// pods): such a switch forwards to any neighbour one hop closer, and the first switch
// with a legal path takes over. The rule allows down->up turns on these routes, so the
// engine no longer claims deadlock freedom (deadlock_free() is false). OpenSM does more:
// it routes every switch to a root LID by plain min-hop (updn_clear_non_root_hops keeps
// minhop's tables for them); here the routes that were legal stay as they were.
#include "routing/updn.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "routing/errors.hpp"
#include "routing/escape_layer.hpp"
#include "routing/hop_matrix.hpp"
#include "routing/lid_owners.hpp"
#include "routing/port_balance.hpp"
#include "routing/sentinels.hpp"
#include "routing/topology_check.hpp"
#include "routing/updn_order.hpp"

namespace ibsm::routing {
namespace {

struct UpdnChannel {
  PortNum port = 0;
  std::uint32_t peer = 0;  // switch index
  bool up = false;
};

using Target = BalanceTarget;

class UpDownRouter {
 public:
  UpDownRouter(const Topology& topo, const UpDownOrder& order, const HopMatrix& hops,
               const EngineConfig& config, bool connect_roots)
      : topo_(topo),
        hops_(hops),
        plan_(plan_balance(topo, config)),
        shifting_(config.port_shifting),
        seed_(config.scatter_seed) {
    const std::size_t n = topo.switches.size();
    first_.assign(n + 1, 0);
    for (std::uint32_t s = 0; s < n; ++s) {
      std::vector<UpdnChannel> mine;
      for (const Link& l : topo.switches[s].links)
        if (l.kind == Link::Kind::kSwitch)
          mine.push_back({l.port, l.peer, goes_up(order, s, l.peer)});
      std::sort(mine.begin(), mine.end(),
                [](const UpdnChannel& a, const UpdnChannel& b) { return a.port < b.port; });
      channels_.insert(channels_.end(), mine.begin(), mine.end());
      first_[s + 1] = static_cast<std::uint32_t>(channels_.size());
    }
    by_position_.assign(n, 0);
    for (std::uint32_t s = 0; s < n; ++s)
      by_position_[order.position[s]] = s;
    sources_ = plan_.sources;
    is_root_.assign(n, 0);
    if (connect_roots)
      for (std::uint32_t r : order.roots)
        is_root_[r] = 1;
    load_.assign(channels_.size(), 0);
    mgmt_.assign(channels_.size(), 0);
    routed_.assign(channels_.size(), 0);
    flow_.assign(n, 0);
    down_dist_.assign(n, kFar);
    dist_.assign(n, kFar);
    lft_size_ = std::size_t{max_lid(topo)} + 1;
    by_lid_.assign(lft_size_ * n, kNoPath);
  }

  Result<Routes> run() {
    const std::vector<Target>& targets = plan_.targets;
    for (std::uint32_t seq = 0; seq < targets.size(); ++seq) {
      const Target& t = targets[seq];
      legal_paths_to(t.sw, t.is_switch && is_root_[t.sw]);
      note_unreachable(t);
      for (unsigned k = 0; k < (1U << t.lmc); ++k)
        route_lid(t, k, seq);
    }
    if (pairs_ > 0 && unreachable_ == pairs_)
      return fail(kErrUpDownUnreachable, "no switch has a legal up/down path to any destination (" +
                                             std::to_string(pairs_) + " switch/destination pairs)");
    Routes routes = routes_from_lid_major(by_lid_, topo_.switches.size(), lft_size_);
    routes.warnings = std::move(plan_.warnings);
    if (unreachable_ > 0) routes.warnings.push_back({kErrUpDownUnreachable, unreachable_summary()});
    return routes;
  }

 private:
  // Modes, distances and candidate channels of every switch towards `dst` (see the file
  // comment); switches farthest first in order_. Shared by all LIDs of dst.
  void legal_paths_to(std::uint32_t dst, bool connect_root) {
    if (paths_for_ == dst && connected_ == connect_root) return;
    paths_for_ = dst;
    connected_ = connect_root;
    const std::uint32_t n = static_cast<std::uint32_t>(topo_.switches.size());
    std::fill(down_dist_.begin(), down_dist_.end(), kFar);
    std::fill(dist_.begin(), dist_.end(), kFar);
    bridge_.clear();
    // Down-only distances: BFS backwards over down channels. s -> t is down iff t -> s is up.
    queue_.clear();
    down_dist_[dst] = 0;
    queue_.push_back(dst);
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const std::uint32_t t = queue_[head];
      for (std::uint32_t c = first_[t]; c < first_[t + 1]; ++c) {
        const std::uint32_t s = channels_[c].peer;
        if (!channels_[c].up || down_dist_[s] != kFar) continue;
        down_dist_[s] = down_dist_[t] + 1;
        queue_.push_back(s);
      }
    }
    // Up-mode distances in position order: an up channel leads to a lower position.
    std::uint32_t max_dist = 0;
    for (std::uint32_t s : by_position_) {
      if (down_dist_[s] != kFar) {
        dist_[s] = down_dist_[s];
      } else {
        for (std::uint32_t c = first_[s]; c < first_[s + 1]; ++c)
          if (channels_[c].up && dist_[channels_[c].peer] != kFar)
            dist_[s] = std::min(dist_[s], dist_[channels_[c].peer] + 1);
      }
      if (dist_[s] != kFar) max_dist = std::max(max_dist, dist_[s]);
    }
    if (connect_root) max_dist = std::max(max_dist, connect_to_root(dst));
    // Farthest first (counting sort, stable in index order), then the candidates.
    std::vector<std::uint32_t> start(max_dist + 2, 0);
    for (std::uint32_t s = 0; s < n; ++s)
      if (dist_[s] != kFar && s != dst) ++start[max_dist - dist_[s] + 1];
    for (std::size_t i = 1; i < start.size(); ++i)
      start[i] += start[i - 1];
    order_.assign(start.back(), 0);
    for (std::uint32_t s = 0; s < n; ++s)
      if (dist_[s] != kFar && s != dst) order_[start[max_dist - dist_[s]]++] = s;
    cand_.clear();
    cand_first_.assign(order_.size() + 1, 0);
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const std::uint32_t s = order_[i];
      const bool down_mode = down_dist_[s] != kFar;
      const bool bridged = !bridge_.empty() && bridge_[s];
      for (std::uint32_t c = first_[s]; c < first_[s + 1]; ++c) {
        const UpdnChannel& ch = channels_[c];
        const bool ok = bridged     ? hops_.hops(ch.peer, dst) + 1U == hops_.hops(s, dst)
                        : down_mode ? !ch.up && down_dist_[ch.peer] + 1 == down_dist_[s]
                                    : ch.up && dist_[ch.peer] + 1 == dist_[s];
        if (ok) cand_.push_back(c);
      }
      cand_first_[i + 1] = static_cast<std::uint32_t>(cand_.size());
    }
  }

  // connect_roots: every switch without a legal path to root `dst` is "bridged": it
  // forwards to any neighbour one plain hop closer (hop matrix). In ascending plain hops,
  // each gets a distance above all its next hops', so farthest-first order still visits
  // a switch before them. A bridged chain ends at a switch with a legal path, whose route
  // never returns to a bridged switch (a suffix of a legal path is legal), so no loop.
  // Returns the largest distance given.
  std::uint32_t connect_to_root(std::uint32_t dst) {
    const std::uint32_t n = static_cast<std::uint32_t>(topo_.switches.size());
    bridge_.assign(n, 0);
    std::vector<std::uint32_t> by_hops;
    for (std::uint32_t s = 0; s < n; ++s)
      if (dist_[s] == kFar && hops_.hops(s, dst) != HopMatrix::kUnreachable) by_hops.push_back(s);
    std::stable_sort(by_hops.begin(), by_hops.end(), [&](std::uint32_t a, std::uint32_t b) {
      return hops_.hops(a, dst) < hops_.hops(b, dst);
    });
    std::uint32_t max_dist = 0;
    for (std::uint32_t s : by_hops) {
      std::uint32_t d = 0;
      for (std::uint32_t c = first_[s]; c < first_[s + 1]; ++c)
        if (hops_.hops(channels_[c].peer, dst) + 1U == hops_.hops(s, dst))
          d = std::max(d, dist_[channels_[c].peer] + 1);
      dist_[s] = d;
      bridge_[s] = 1;
      max_dist = std::max(max_dist, d);
    }
    return max_dist;
  }

  // Switches of dst's component that have no legal path to it.
  void note_unreachable(const Target& t) {
    const std::uint32_t n = static_cast<std::uint32_t>(topo_.switches.size());
    const std::uint64_t lids = 1U << t.lmc;
    for (std::uint32_t s = 0; s < n; ++s) {
      if (s == t.sw || hops_.hops(s, t.sw) == HopMatrix::kUnreachable) continue;
      pairs_ += lids;
      if (dist_[s] != kFar) continue;
      unreachable_ += lids;
      if (!t.is_switch && sources_[s] > 0) unreachable_data_ += lids;
      if (examples_.size() < 3)
        examples_.push_back(switch_name(s) + " -> LID " + std::to_string(t.base) + " (" +
                            (t.is_switch ? switch_name(t.sw) : end_port_name(t)) + ")");
    }
  }

  std::string unreachable_summary() const {
    std::string out = std::to_string(unreachable_) + " of " + std::to_string(pairs_) +
                      " switch/destination-LID pairs have no legal up/down path (" +
                      std::to_string(unreachable_data_) +
                      " from switches with end ports to end ports), e.g. ";
    for (std::size_t i = 0; i < examples_.size(); ++i)
      out += (i ? "; " : "") + examples_[i];
    return out;
  }

  std::string switch_name(std::uint32_t s) const {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016llx",
                  static_cast<unsigned long long>(topo_.switches[s].guid));
    return std::string(buf) + (topo_.switches[s].description.empty()
                                   ? ""
                                   : " (" + topo_.switches[s].description + ")");
  }

  std::string end_port_name(const Target& t) const {
    for (const EndPort& e : topo_.end_ports)
      if (e.base_lid == t.base) return e.description;
    return "?";
  }

  void route_lid(const Target& t, unsigned k, std::uint32_t seq) {
    const Lid lid = static_cast<Lid>(t.base + k);
    const std::size_t n = topo_.switches.size();
    PortNum* out = &by_lid_[std::size_t{lid} * n];
    out[t.sw] = t.port;
    const bool data = t.traffic == Traffic::kData;
    for (std::uint32_t s : order_)
      flow_[s] = data ? sources_[s] : 0;
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const std::uint32_t s = order_[i];
      const std::uint32_t c = pick(s, &cand_[cand_first_[i]], cand_first_[i + 1] - cand_first_[i],
                                   t, k, seq, out - std::size_t{k} * n);
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
    std::uint32_t same_port;  // earlier LIDs of this port (LMC) already on this port
    std::uint64_t primary;    // data load, or switch-LID routes for management LIDs
    std::uint64_t secondary;
    std::uint32_t rotation;  // d-mod-k tie-break
    auto operator<=>(const Key&) const = default;
  };

  // The candidate of switch s with the smallest Key; `base_row` is the LFT row of the
  // port's base LID (its LMC siblings follow at stride n).
  std::uint32_t pick(std::uint32_t s, const std::uint32_t* cand, std::uint32_t ncand,
                     const Target& t, unsigned k, std::uint32_t seq,
                     const PortNum* base_row) const {
    if (ncand == 1) return cand[0];
    std::uint32_t r = (seq + k) % ncand;
    if (shifting_) {
      std::uint64_t routed = 0;
      for (std::uint32_t i = 0; i < ncand; ++i)
        routed += routed_[cand[i]];
      r = shifted_start(routed, ncand);
    }
    // scatter_ports: the rotation does not count; one of the tied candidates is drawn.
    const bool scatter = t.scatter && k == 0;
    const std::size_t n = topo_.switches.size();
    const bool mgmt = t.traffic == Traffic::kManagement;
    const auto key_of = [&](std::uint32_t i) {
      const std::uint32_t c = cand[i];
      Key key{0, mgmt ? mgmt_[c] : load_[c], mgmt ? load_[c] : 0,
              scatter ? 0 : (i >= r ? i - r : i + ncand - r)};
      for (unsigned j = 0; j < k; ++j)
        if (base_row[j * n + s] == channels_[c].port) ++key.same_port;
      return key;
    };
    std::uint32_t best = UINT32_MAX;
    std::uint32_t tied = 0;
    Key best_key{};
    for (std::uint32_t i = 0; i < ncand; ++i) {
      const Key key = key_of(i);
      if (best == UINT32_MAX || key < best_key) {
        best = i;
        best_key = key;
        tied = 1;
      } else if (key == best_key) {
        ++tied;
      }
    }
    if (!scatter || tied <= 1) return cand[best];
    std::uint32_t nth = scatter_choice(seed_, static_cast<Lid>(t.base + k), s, tied);
    for (std::uint32_t i = 0; i < ncand; ++i)
      if (key_of(i) == best_key && nth-- == 0) return cand[i];
    return cand[best];
  }

  const Topology& topo_;
  const HopMatrix& hops_;
  BalancePlan plan_;
  bool shifting_ = false;
  std::uint32_t seed_ = 0;
  std::vector<std::uint8_t> is_root_;  // connect_roots: per switch, a root to connect
  std::vector<std::uint32_t> routed_;  // per channel: data LIDs routed over it (port shifting)
  std::vector<std::uint32_t> first_;   // channels_ of switch s: [first_[s], first_[s + 1])
  std::vector<UpdnChannel> channels_;
  std::vector<std::uint32_t> by_position_;  // switches in ascending position
  std::vector<std::uint32_t> sources_;      // routable end ports per switch
  std::vector<std::uint64_t> load_;         // per channel: all-to-all end-port routes
  std::vector<std::uint32_t> mgmt_;         // per channel: switch LIDs routed over it
  std::vector<std::uint64_t> flow_;         // per switch (scratch)
  // Per destination switch (scratch):
  std::uint32_t paths_for_ = UINT32_MAX;
  bool connected_ = false;                // paths_for_ computed with connect_to_root()
  std::vector<std::uint8_t> bridge_;      // per switch: routed by connect_to_root()
  std::vector<std::uint32_t> down_dist_;  // hops along down channels only; kFar if none
  std::vector<std::uint32_t> dist_;       // hops of the route this switch will take
  std::vector<std::uint32_t> queue_;
  std::vector<std::uint32_t> order_;       // switches with a route, farthest first
  std::vector<std::uint32_t> cand_;        // legal next channels of order_[i]:
  std::vector<std::uint32_t> cand_first_;  // cand_[cand_first_[i] .. cand_first_[i + 1])
  // Reachability bookkeeping.
  std::uint64_t pairs_ = 0;
  std::uint64_t unreachable_ = 0;
  std::uint64_t unreachable_data_ = 0;
  std::vector<std::string> examples_;

  std::size_t lft_size_ = 0;
  std::vector<PortNum> by_lid_;  // [lid * switches + switch] -> port
};

class UpDownEngine final : public Engine {
 public:
  UpDownEngine(bool dnup, EngineConfig config) : dnup_(dnup), config_(std::move(config)) {}

  std::string_view name() const override { return dnup_ ? "dnup" : "updn"; }
  // connect_roots routes root LIDs across the up/down rule (see the file comment).
  bool deadlock_free() const override { return dnup_ || !config_.connect_roots; }
  bool complete() const override { return true; }

  Result<Routes> route(const Topology& topo) override {
    if (Status st = validate_topology(topo); !st) return fail(st.error());
    // OpenSM: "This is not a switched subnet, cannot perform UPDN algorithm" (ERR AA0B).
    if (topo.switches.empty()) return fail(kErrUpDownUnreachable, "the fabric has no switch");
    Result<HopMatrix> hops = HopMatrix::compute(topo);
    if (!hops) return fail(hops.error());
    const UpDownOrder order = dnup_ ? dnup_order(topo, *hops)
                                    : updn_order(topo, *hops, config_.root_guids, config_.guid_ids);
    // OpenSM's dnup has no connect_roots.
    Result<Routes> routes =
        UpDownRouter(topo, order, *hops, config_, !dnup_ && config_.connect_roots).run();
    if (!routes) return routes;
    // Destinations that some switch with end ports has no legal path to (dnup on a
    // degraded fat tree: switch LIDs of aggregation switches; updn with roots from a file)
    // go on the escape layer (IBSM-3080 after the IBSM-3004 count).
    const auto unreachable = [](const Error& w) { return w.id == kErrUpDownUnreachable; };
    if (std::any_of(routes->warnings.begin(), routes->warnings.end(), unreachable)) {
      auto escaped =
          route_unreached_on_escape_layer(topo, *routes, config_.max_vls, dnup_ ? "dnup" : "updn");
      if (!escaped) return fail(escaped.error());
    }
    routes->warnings.insert(routes->warnings.begin(), order.warnings.begin(), order.warnings.end());
    return routes;
  }

 private:
  bool dnup_;
  EngineConfig config_;
};

}  // namespace

std::unique_ptr<Engine> make_updn_engine(const EngineConfig& config) {
  return std::make_unique<UpDownEngine>(false, config);
}

std::unique_ptr<Engine> make_dnup_engine(const EngineConfig& config) {
  return std::make_unique<UpDownEngine>(true, config);
}

}  // namespace ibsm::routing
