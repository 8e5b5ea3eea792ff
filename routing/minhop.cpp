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
#include "routing/minhop.hpp"

#include <algorithm>
#include <string>

#include "routing/errors.hpp"
#include "routing/hop_matrix.hpp"
#include "routing/lid_owners.hpp"
#include "routing/topology_check.hpp"

namespace ibsm::routing {
namespace {

struct Channel {
  PortNum port = 0;
  std::uint32_t peer = 0;  // switch index
};

// A destination port: 2^lmc LIDs, delivered by switch `sw` on `port` (0 = the switch).
struct Target {
  std::uint32_t sw = 0;
  PortNum port = 0;
  Lid base = 0;
  std::uint8_t lmc = 0;
  bool is_switch = false;
};

class Router {
 public:
  Router(const Topology& topo, const HopMatrix& hops) : topo_(topo), hops_(hops) {
    const std::size_t n = topo.switches.size();
    first_.assign(n + 1, 0);
    sources_.assign(n, 0);
    for (std::size_t s = 0; s < n; ++s) {
      std::vector<Channel> mine;
      for (const Link& l : topo.switches[s].links)
        if (l.kind == Link::Kind::kSwitch) mine.push_back({l.port, l.peer});
      std::sort(mine.begin(), mine.end(),
                [](const Channel& a, const Channel& b) { return a.port < b.port; });
      channels_.insert(channels_.end(), mine.begin(), mine.end());
      first_[s + 1] = static_cast<std::uint32_t>(channels_.size());
    }
    for (const EndPort& e : topo.end_ports)
      if (e.sw != UINT32_MAX && e.base_lid != 0) ++sources_[e.sw];
    load_.assign(channels_.size(), 0);
    mgmt_.assign(channels_.size(), 0);
    flow_.assign(n, 0);
    lft_size_ = std::size_t{max_lid(topo)} + 1;
    by_lid_.assign(lft_size_ * n, kNoPath);
  }

  Routes run() {
    const std::vector<Target> targets = make_targets();
    for (std::uint32_t seq = 0; seq < targets.size(); ++seq) {
      const Target& t = targets[seq];
      for (unsigned k = 0; k < (1U << t.lmc); ++k)
        route_lid(t, k, seq);
    }
    return transpose();
  }

 private:
  // End ports first, grouped by switch and port so the hosts of a leaf get consecutive
  // sequence numbers (the d-mod-k tie-break relies on it); switch LIDs last so that
  // management routes see the data traffic's loads.
  std::vector<Target> make_targets() const {
    std::vector<Target> out;
    for (const EndPort& e : topo_.end_ports)
      if (e.sw != UINT32_MAX && e.base_lid != 0)
        out.push_back({e.sw, e.sw_port, e.base_lid, e.lmc, false});
    std::stable_sort(out.begin(), out.end(), [](const Target& a, const Target& b) {
      return a.sw != b.sw ? a.sw < b.sw : a.port < b.port;
    });
    for (std::uint32_t s = 0; s < topo_.switches.size(); ++s)
      if (topo_.switches[s].lid != 0)
        out.push_back({s, 0, topo_.switches[s].lid, topo_.switches[s].lmc, true});
    return out;
  }

  // Switches that reach `dst`, farthest first (counting sort; stable in index order), each
  // with its minimal channels towards dst. Every LID delivered by dst shares this, so it
  // is computed once per destination switch rather than once per LID.
  void order_by_distance(std::uint32_t dst) {
    if (order_for_ == dst) return;
    order_for_ = dst;
    const std::uint8_t* row = hops_.row(dst);
    const std::uint32_t n = hops_.num_switches();
    std::vector<std::uint32_t> count(HopMatrix::kUnreachable + 1, 0);
    for (std::uint32_t s = 0; s < n; ++s)
      ++count[row[s]];
    // Bucket starts for distances from high to low, skipping unreachable and dst itself.
    std::vector<std::uint32_t> start(HopMatrix::kUnreachable + 1, 0);
    std::uint32_t pos = 0;
    for (int d = HopMatrix::kUnreachable - 1; d >= 1; --d) {
      start[d] = pos;
      pos += count[d];
    }
    order_.assign(pos, 0);
    for (std::uint32_t s = 0; s < n; ++s)
      if (row[s] != 0 && row[s] != HopMatrix::kUnreachable) order_[start[row[s]]++] = s;
    cand_.clear();
    cand_first_.assign(order_.size() + 1, 0);
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const std::uint32_t s = order_[i];
      for (std::uint32_t c = first_[s]; c < first_[s + 1]; ++c)
        if (row[channels_[c].peer] + 1U == row[s]) cand_.push_back(c);
      cand_first_[i + 1] = static_cast<std::uint32_t>(cand_.size());
    }
  }

  void route_lid(const Target& t, unsigned k, std::uint32_t seq) {
    const Lid lid = static_cast<Lid>(t.base + k);
    PortNum* out = &by_lid_[std::size_t{lid} * hops_.num_switches()];
    out[t.sw] = t.port;
    order_by_distance(t.sw);
    for (std::uint32_t s : order_)
      flow_[s] = t.is_switch ? 0 : sources_[s];
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const std::uint32_t s = order_[i];
      const std::uint32_t c =
          pick(s, &cand_[cand_first_[i]], cand_first_[i + 1] - cand_first_[i], t, k, seq);
      out[s] = channels_[c].port;
      if (t.is_switch) {
        ++mgmt_[c];
      } else {
        load_[c] += flow_[s];
        flow_[channels_[c].peer] += flow_[s];
      }
    }
  }

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
    const std::uint32_t r = seq % ncand;
    // A switch no source's traffic crosses cannot change any load: take the d-mod-k
    // choice without scanning (most switches of a big tree, for any one destination).
    if (!t.is_switch && k == 0) {
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
      Key key{0, 0, t.is_switch ? mgmt_[c] : load_[c], t.is_switch ? load_[c] : 0,
              i >= r ? i - r : i + ncand - r};
      if (k > 0) lmc_reuse(s, t, k, channels_[c], key);
      if (best == UINT32_MAX || key < best_key) {
        best = c;
        best_key = key;
      }
    }
    return best;  // a switch at distance h >= 1 always has a neighbour at h - 1
  }

  struct Key {
    std::uint32_t same_peer;
    std::uint32_t same_port;
    std::uint64_t primary;
    std::uint64_t secondary;
    std::uint32_t rotation;
    auto operator<=>(const Key&) const = default;
  };

  // How many of LIDs base..base+k-1 already leave switch s over this channel's port and
  // towards its peer switch.
  void lmc_reuse(std::uint32_t s, const Target& t, unsigned k, const Channel& ch, Key& key) const {
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
  std::vector<std::uint32_t> first_;    // channels_ of switch s: [first_[s], first_[s + 1])
  std::vector<Channel> channels_;       // inter-switch channels, per switch in port order
  std::vector<std::uint32_t> sources_;  // routable end ports per switch
  std::vector<std::uint64_t> load_;     // per channel: all-to-all end-port routes
  std::vector<std::uint32_t> mgmt_;     // per channel: switch LIDs routed over it
  std::vector<std::uint64_t> flow_;     // per switch: sources funnelling into it (scratch)
  std::vector<std::uint32_t> order_;
  std::vector<std::uint32_t> cand_;        // minimal channels of order_[i]:
  std::vector<std::uint32_t> cand_first_;  // cand_[cand_first_[i] .. cand_first_[i + 1])
  std::uint32_t order_for_ = UINT32_MAX;
  // Next hops are produced one LID at a time for all switches; storing them LID-major
  // keeps those writes in one cache line run instead of one line per switch.
  Routes transpose() const {
    const std::size_t n = hops_.num_switches();
    Routes routes;
    routes.lfts.assign(n, Lft(lft_size_, kNoPath));
    constexpr std::size_t kBlock = 64;
    for (std::size_t l0 = 0; l0 < lft_size_; l0 += kBlock)
      for (std::size_t s = 0; s < n; ++s) {
        PortNum* dst = routes.lfts[s].data();
        const std::size_t l1 = std::min(lft_size_, l0 + kBlock);
        for (std::size_t lid = l0; lid < l1; ++lid)
          dst[lid] = by_lid_[lid * n + s];
      }
    return routes;
  }

  std::size_t lft_size_ = 0;
  std::vector<PortNum> by_lid_;  // [lid * switches + switch] -> port
};

class MinHopEngine final : public Engine {
 public:
  std::string_view name() const override { return "minhop"; }

  Result<Routes> route(const Topology& topo) override {
    if (Status st = validate_topology(topo); !st) return fail(st.error());
    Result<HopMatrix> hops = HopMatrix::compute(topo);
    if (!hops) return fail(hops.error());
    return Router(topo, *hops).run();
  }
};

}  // namespace

std::unique_ptr<Engine> make_minhop_engine() {
  return std::make_unique<MinHopEngine>();
}

}  // namespace ibsm::routing
