#include "routing/escape_layer.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <tuple>
#include <vector>

#include "common/text.hpp"
#include "routing/analysis.hpp"
#include "routing/errors.hpp"
#include "routing/lid_owners.hpp"
#include "routing/sentinels.hpp"

namespace ibsm::routing {
namespace {

inline constexpr std::uint8_t kEscapeSl = 1;

std::vector<std::uint32_t> bfs(const Topology& topo, std::uint32_t from) {
  std::vector<std::uint32_t> dist(topo.switches.size(), kFar);
  std::vector<std::uint32_t> queue{from};
  dist[from] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t s = queue[head];
    for (const Link& l : topo.switches[s].links)
      if (l.kind == Link::Kind::kSwitch && dist[l.peer] == kFar) {
        dist[l.peer] = dist[s] + 1;
        queue.push_back(l.peer);
      }
  }
  return dist;
}

std::uint32_t farthest(const std::vector<std::uint32_t>& dist) {
  std::uint32_t best = 0;
  for (std::uint32_t s = 0; s < dist.size(); ++s)
    if (dist[s] != kFar && (dist[best] == kFar || dist[s] > dist[best])) best = s;
  return best;
}

// A central switch found by a double sweep: the two ends a, b of a long shortest path,
// then the switch that is nearest to the farther of them (ties: nearer to both, then
// lower GUID). On a fat tree a and b are leaves of different pods and the root a top
// switch, so escape routes climb as on the tree itself. Linear time: fabrics of
// thousands of switches pay two BFS, not one per switch.
std::uint32_t central_switch(const Topology& topo, std::uint32_t start) {
  const std::uint32_t a = farthest(bfs(topo, start));
  const std::vector<std::uint32_t> da = bfs(topo, a);
  const std::vector<std::uint32_t> db = bfs(topo, farthest(da));
  std::uint32_t best = a;
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
    if (da[s] == kFar || db[s] == kFar) continue;
    const auto key = [&](std::uint32_t x) {
      return std::tuple(std::max(da[x], db[x]), da[x] + db[x], topo.switches[x].guid);
    };
    if (key(s) < key(best)) best = s;
  }
  return best;
}

// up*/down* over (BFS rank from the root, switch index): s -> t is up iff t sorts first.
// From every switch the root is reachable going up (along BFS parents), and every switch
// is reachable from the root going down, so every pair of a connected fabric has a legal
// path.
class EscapeRouter {
 public:
  EscapeRouter(const Topology& topo, std::uint32_t root) : topo_(topo), n_(topo.switches.size()) {
    rank_ = bfs(topo, root);
    // Switches of other connected groups (not expected after discovery): each group
    // ranked from its own first switch, so the order stays total.
    std::uint32_t offset = 0;
    for (std::uint32_t s = 0; s < n_; ++s)
      if (rank_[s] != kFar) offset = std::max(offset, rank_[s] + 1);
    for (std::uint32_t s = 0; s < n_; ++s) {
      if (rank_[s] != kFar) continue;
      const std::vector<std::uint32_t> d = bfs(topo, s);
      std::uint32_t deepest = 0;
      for (std::uint32_t x = 0; x < n_; ++x)
        if (d[x] != kFar && rank_[x] == kFar) {
          rank_[x] = offset + d[x];
          deepest = std::max(deepest, d[x]);
        }
      offset += deepest + 1;
    }
    by_key_.resize(n_);
    for (std::uint32_t s = 0; s < n_; ++s)
      by_key_[s] = s;
    std::sort(by_key_.begin(), by_key_.end(),
              [&](std::uint32_t a, std::uint32_t b) { return before(a, b); });
    load_.resize(n_);
    for (std::uint32_t s = 0; s < n_; ++s)
      load_[s].assign(std::size_t{topo.switches[s].num_ports} + 1, 0);
    down_dist_.assign(n_, kFar);
    dist_.assign(n_, kFar);
  }

  // Fills column `lid` of every switch connected to `target`, whose own entry is `port`.
  void route(std::uint32_t target, PortNum port, Lid lid, std::vector<Lft>& lfts) {
    std::fill(down_dist_.begin(), down_dist_.end(), kFar);
    std::fill(dist_.begin(), dist_.end(), kFar);
    // Down-only distances: backwards from the target over channels s -> x that go down.
    queue_.assign(1, target);
    down_dist_[target] = 0;
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const std::uint32_t x = queue_[head];
      for (const Link& l : topo_.switches[x].links) {
        if (l.kind != Link::Kind::kSwitch || down_dist_[l.peer] != kFar) continue;
        if (!before(l.peer, x)) continue;  // l.peer -> x would go up
        down_dist_[l.peer] = down_dist_[x] + 1;
        queue_.push_back(l.peer);
      }
    }
    // Switches without a down-only path climb: their up neighbours sort first, so they
    // are final when the switch is reached in key order.
    for (std::uint32_t s : by_key_) {
      if (down_dist_[s] != kFar) {
        dist_[s] = down_dist_[s];
        continue;
      }
      for (const Link& l : topo_.switches[s].links)
        if (l.kind == Link::Kind::kSwitch && before(l.peer, s) && dist_[l.peer] != kFar)
          dist_[s] = std::min(dist_[s], dist_[l.peer] + 1);
    }
    for (std::uint32_t s = 0; s < n_; ++s) {
      if (lid >= lfts[s].size()) continue;
      if (s == target) {
        lfts[s][lid] = port;
        continue;
      }
      if (dist_[s] == kFar) {
        lfts[s][lid] = kNoPath;  // another connected group
        continue;
      }
      const bool down_mode = down_dist_[s] != kFar;
      PortNum best = 0;
      for (const Link& l : topo_.switches[s].links) {
        if (l.kind != Link::Kind::kSwitch || l.port >= load_[s].size()) continue;
        const bool ok = down_mode ? !before(l.peer, s) && down_dist_[l.peer] + 1 == down_dist_[s]
                                  : before(l.peer, s) && dist_[l.peer] + 1 == dist_[s];
        if (!ok) continue;
        if (best == 0 || load_[s][l.port] < load_[s][best] ||
            (load_[s][l.port] == load_[s][best] && l.port < best))
          best = l.port;
      }
      if (best == 0) {  // not reached: dist_ says otherwise, so never; no silent port 0
        lfts[s][lid] = kNoPath;
        continue;
      }
      ++load_[s][best];
      lfts[s][lid] = best;
    }
  }

 private:
  bool before(std::uint32_t a, std::uint32_t b) const {
    return rank_[a] != rank_[b] ? rank_[a] < rank_[b] : a < b;
  }

  const Topology& topo_;
  std::size_t n_;
  std::vector<std::uint32_t> rank_;
  std::vector<std::uint32_t> by_key_;
  std::vector<std::vector<std::uint32_t>> load_;  // per switch port: escape routes over it
  std::vector<std::uint32_t> down_dist_;
  std::vector<std::uint32_t> dist_;
  std::vector<std::uint32_t> queue_;
};

// Switches that have no route to end-port LID `lid` (no entry, or one that loops or
// drops) get one towards a neighbour that has, nearest first (breadth first from the
// switches that deliver), so each filled entry points to a switch filled earlier or
// delivering: no forwarding loop. Returns the entries filled.
class FillIn {
 public:
  explicit FillIn(const Topology& topo) : topo_(topo), n_(topo.switches.size()) {
    state_.assign(n_, kUnknown);
    peer_.resize(n_);
    for (std::uint32_t s = 0; s < n_; ++s) {
      peer_[s].assign(std::size_t{topo.switches[s].num_ports} + 1, kFar);
      for (const Link& l : topo.switches[s].links)
        if (l.kind == Link::Kind::kSwitch && l.port < peer_[s].size()) peer_[s][l.port] = l.peer;
    }
  }

  // The switches the last fill() gave an entry.
  const std::vector<std::uint32_t>& filled() const { return filled_; }

  std::size_t fill(Lid lid, std::uint32_t home, PortNum home_port, std::vector<Lft>& lfts) {
    std::fill(state_.begin(), state_.end(), kUnknown);
    filled_.clear();
    if (home >= n_ || lid >= lfts[home].size() || lfts[home][lid] != home_port) return 0;
    state_[home] = kDelivers;
    std::size_t missing = 0;
    for (std::uint32_t s = 0; s < n_; ++s)
      if (resolve(s, lid, lfts) != kDelivers) ++missing;
    if (missing == 0) return 0;
    queue_.clear();
    for (std::uint32_t s = 0; s < n_; ++s)
      if (state_[s] == kDelivers) queue_.push_back(s);
    std::size_t filled = 0;
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const std::uint32_t q = queue_[head];
      for (const Link& l : topo_.switches[q].links) {
        if (l.kind != Link::Kind::kSwitch || state_[l.peer] == kDelivers) continue;
        if (lid >= lfts[l.peer].size()) continue;
        state_[l.peer] = kDelivers;
        lfts[l.peer][lid] = l.peer_port;
        ++filled;
        queue_.push_back(l.peer);
        filled_.push_back(l.peer);
      }
    }
    return filled;
  }

 private:
  enum State : std::uint8_t { kUnknown, kVisiting, kDelivers, kFails };

  State resolve(std::uint32_t s, Lid lid, const std::vector<Lft>& lfts) {
    walk_.clear();
    std::uint32_t cur = s;
    State result = kFails;
    while (true) {
      if (state_[cur] != kUnknown) {
        result = state_[cur] == kVisiting ? kFails : state_[cur];
        break;
      }
      state_[cur] = kVisiting;
      walk_.push_back(cur);
      const PortNum p = lid < lfts[cur].size() ? lfts[cur][lid] : kNoPath;
      if (p >= peer_[cur].size() || peer_[cur][p] == kFar) break;  // drop, port 0, CA
      cur = peer_[cur][p];
    }
    for (std::uint32_t w : walk_)
      state_[w] = result;
    return result;
  }

  const Topology& topo_;
  std::size_t n_;
  std::vector<State> state_;
  std::vector<std::vector<std::uint32_t>> peer_;  // per switch port: peer switch or kFar
  std::vector<std::uint32_t> queue_;
  std::vector<std::uint32_t> walk_;
  std::vector<std::uint32_t> filled_;
};

}  // namespace

Result<EscapeLayerStats> route_unreached_on_escape_layer(const Topology& topo, Routes& routes,
                                                         unsigned max_vls,
                                                         std::string_view engine) {
  EscapeLayerStats stats;
  if (topo.switches.empty() || routes.lfts.size() != topo.switches.size()) return stats;
  const PairCheck pc = check_all_pairs(topo, routes);
  const std::string counts = std::to_string(pc.unreached.size()) + " destination LIDs (" +
                             std::to_string(pc.switch_unreachable()) + " switch-LID and " +
                             std::to_string(pc.end_port_unreachable()) +
                             " end-port (source, LID) pairs) have no " + std::string(engine) +
                             " path from some switch with end ports, e.g. " +
                             (pc.examples.empty() ? std::string("?") : pc.examples.front());
  if (!pc.unreached.empty() && max_vls < 2)
    return fail(kErrEscapeLayerNoVl,
                counts + "; routing them on a second layer needs 2 data VLs, the fabric runs " +
                    std::to_string(max_vls));
  if (!pc.unreached.empty() && (!routes.path_sl.empty() || !routes.sl2vl.empty()))
    return fail(kErrEscapeLayerNoVl,
                counts + "; the routes already use per-path SLs, so there is no SL to spare");

  const std::vector<LidOwner> owners = lid_owners(topo);
  if (!pc.unreached.empty()) {
    std::uint32_t start = 0;
    for (std::uint32_t e = 0; e < topo.end_ports.size(); ++e)
      if (topo.end_ports[e].sw < topo.switches.size()) {
        start = topo.end_ports[e].sw;
        break;
      }
    stats.root = central_switch(topo, start);
    EscapeRouter router(topo, stats.root);
    std::size_t lids = 0;
    for (const Lft& l : routes.lfts)
      lids = std::max(lids, l.size());
    PathSls& sl = routes.path_sl;
    sl.lids = lids;
    sl.table.assign(topo.switches.size() * lids, 0);
    sl.layers = 2;
    sl.sls = 2;
    for (const Lid lid : pc.unreached) {
      if (lid >= owners.size() || lid >= lids) continue;
      const LidOwner o = owners[lid];
      std::uint32_t target = 0;
      PortNum port = 0;
      if (o.kind == LidOwner::Kind::kSwitch) {
        target = o.index;
        ++stats.switch_lids;
      } else if (o.kind == LidOwner::Kind::kEndPort && topo.end_ports[o.index].sw != UINT32_MAX) {
        target = topo.end_ports[o.index].sw;
        port = topo.end_ports[o.index].sw_port;
        ++stats.end_port_lids;
      } else {
        continue;
      }
      router.route(target, port, lid, routes.lfts);
      for (std::size_t s = 0; s < topo.switches.size(); ++s)
        sl.table[s * lids + lid] = kEscapeSl;
    }
  }

  // Answers: a switch that end ports can now reach must reach them back (ibroute's and
  // perfquery's replies travel from the switch to the requester's LID). Only traffic that
  // switches originate passes these entries: an end port's path to an end port is legal
  // from its first switch on, and a legal path's switches all have their own entry.
  // With the escape layer in place their paths go on SL 1 too, away from the data VL.
  // Filled entries make down->up turns, so even when no LID needed the escape layer
  // (updn on a degraded tree whose aggregation switches lost their legal path to a leaf)
  // they go on SL 1 where the fabric has a second data VL and the routes no SLs of their
  // own: VL 0 then carries only legal paths, whoever sends.
  FillIn fill(topo);
  PathSls& sl = routes.path_sl;
  const bool own_layer = sl.empty() && routes.sl2vl.empty() && max_vls >= 2;
  for (const EndPort& e : topo.end_ports) {
    if (e.sw >= topo.switches.size() || e.base_lid == 0) continue;
    for (unsigned k = 0; k < (1U << e.lmc); ++k) {
      const Lid lid = static_cast<Lid>(e.base_lid + k);
      stats.filled_entries += fill.fill(lid, e.sw, e.sw_port, routes.lfts);
      if (sl.empty() && own_layer && !fill.filled().empty()) {
        for (const Lft& l : routes.lfts)
          sl.lids = std::max<std::size_t>(sl.lids, l.size());
        sl.table.assign(topo.switches.size() * sl.lids, 0);
        sl.layers = 2;
        sl.sls = 2;
      }
      if (sl.empty() || lid >= sl.lids) continue;
      for (std::uint32_t s : fill.filled())
        sl.table[std::size_t{s} * sl.lids + lid] = kEscapeSl;
    }
  }
  if (!stats.used()) return stats;
  std::string what =
      pc.unreached.empty() ? std::string("every end port reaches every LID") : counts;
  if (!pc.unreached.empty())
    what += "; routed every switch to them on SL 1 (VL 1) by up/down around " +
            hex_guid(topo.switches[stats.root].guid) + " (" + std::to_string(stats.switch_lids) +
            " switch LIDs, " + std::to_string(stats.end_port_lids) + " end-port LIDs)";
  if (stats.filled_entries > 0)
    what += "; " + std::to_string(stats.filled_entries) +
            " entries of switches without a legal path to an end port filled along shortest "
            "paths, for switch-originated traffic (answers)";
  routes.warnings.push_back({kErrEscapeLayer, what});
  return stats;
}

}  // namespace ibsm::routing
