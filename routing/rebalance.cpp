// Route rebalancing by local search over minimal next hops (see rebalance.hpp).
//
// Model: for every counted destination LID the next hops form a tree towards its switch;
// flow(t, s) is the number of sources whose route to t crosses switch s (its own end ports
// plus what upstream switches send it), and a channel's load is the sum of the flows that
// leave on it over all destinations: exactly the all-to-all count the EFI grades
// (routing/analysis.hpp channel_loads) and the greedy engines balance.
//
// A move re-points switch x's entry for t from channel `old` to another minimal channel
// `alt`. The two paths from x descend one hop per step, so walking both in lock-step finds
// the switch where they merge; only the channels before it change, old ones losing
// flow(t, x) and new ones gaining it, and only the flows of the switches before it. A move
// is thus evaluated and applied in O(path length), not by recomputing the loads.
//
// Search: while some channel at the maximum load M can be relieved, apply a move that
// takes flow off it without bringing any channel to M. Candidates are the entries of the
// channel's sending switch u for every destination routed over it, then those of the
// switches upstream of u in that destination's tree (a smaller flow can fit where u's
// whole flow does not). Every applied move lowers (M, number of channels at M)
// lexicographically, so the search ends; a work budget proportional to the table size
// bounds it anyway. When no channel at M can be relieved, a sweep of sum-of-squares
// descent (each entry's best move that lowers the sum of squared loads and keeps every
// channel below M) spreads the load and makes room for further reliefs. The busiest
// channel therefore never gets busier than the engine left it.
//
// Skipped when M already equals the lower bound (routing/efi_bound.hpp), which the greedy
// engines reach on complete fat trees, so the pass costs one load computation there.
#include "routing/rebalance.hpp"

#include <algorithm>
#include <limits>

#include "routing/channel_index.hpp"
#include "routing/efi_bound.hpp"
#include "routing/in_channels.hpp"
#include "routing/sentinels.hpp"

namespace ibsm::routing {
namespace {

inline constexpr std::uint16_t kNoHop = UINT16_MAX;

class Rebalancer {
 public:
  Rebalancer(const Topology& topo, const HopMatrix& hops, const std::vector<std::uint32_t>& sources,
             const std::vector<RebalanceTarget>& targets, std::vector<PortNum>& by_lid)
      : hops_(hops),
        sources_(sources),
        targets_(targets),
        by_lid_(by_lid),
        n_(hops.num_switches()),
        ch_(topo) {
    in_ = InChannels(n_, ch_.size(), [this](std::uint32_t c) { return ch_.to(c); });
    load_.assign(ch_.size(), 0);
    // Targets grouped by destination switch: one distance order serves a whole group.
    by_switch_.resize(targets_.size());
    for (std::uint32_t t = 0; t < targets_.size(); ++t)
      by_switch_[t] = t;
    std::stable_sort(by_switch_.begin(), by_switch_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return targets_[a].sw < targets_[b].sw;
    });
  }

  RebalanceStats run() {
    RebalanceStats stats;
    std::uint64_t total_sources = 0;
    for (std::uint32_t s : sources_)
      total_sources += s;
    compute_loads(false);
    stats.max_before = stats.max_after = max_load();
    stats.lower_bound = lower_bound();
    // Flows and next-hop channels are kept in 16 bits (4 bytes per movable entry, 75 MB for
    // 11664 LIDs x 1620 switches): there are at most 48K unicast LIDs, hence sources, and a
    // fabric with more than 32K inter-switch links is left as routed.
    if (stats.max_before <= stats.lower_bound || total_sources > UINT16_MAX || ch_.size() == 0 ||
        ch_.size() >= kNoHop)
      return stats;
    compute_loads(true);
    // About 4 path steps per (switch, LID) entry: measured 2026-11-26, the search takes
    // 1-3x the greedy engine's own time (torus-6x6x6-432 minhop: 1204 -> 764 in 13 ms;
    // twice the budget gives 726, a quarter 994).
    budget_ = 4 * std::uint64_t{n_} * targets_.size() + 65536;
    relieve_round();
    while (budget_ > 0 && max_load() > stats.lower_bound && spread_round() && relieve_round()) {
    }
    stats.max_after = max_load();
    stats.moves = moves_;
    return stats;
  }

 private:
  struct Move {
    std::uint32_t target = kNone;
    std::uint32_t sw = kNone;
    std::uint32_t alt = kNone;
    std::uint64_t peak = std::numeric_limits<std::uint64_t>::max();
    std::int64_t delta = 0;  // change of the sum of squared loads
    bool better_than(const Move& o) const {
      return o.target == kNone || peak < o.peak || (peak == o.peak && delta < o.delta);
    }
  };

  const PortNum* row(std::uint32_t t) const { return &by_lid_[std::size_t{targets_[t].lid} * n_]; }
  std::uint32_t next(std::uint32_t t, std::uint32_t s) const { return ch_.at(s, row(t)[s]); }
  std::uint16_t& flow(std::uint32_t t, std::uint32_t s) {
    return flows_[std::size_t{s} * slots_ + slot_[t]];
  }
  // Next-hop channel of every switch towards movable target t.
  // Switch-major, so that relieve() finds the targets a switch sends over a channel in one
  // contiguous scan; a path walk touches one entry per switch either way.
  std::uint16_t& hop_entry(std::uint32_t t, std::uint32_t s) {
    return next_hops_[std::size_t{s} * slots_ + slot_[t]];
  }
  std::uint32_t hop(std::uint32_t t, std::uint32_t s) { return hop_entry(t, s); }

  std::uint64_t max_load() const {
    std::uint64_t m = 0;
    for (std::uint64_t l : load_)
      m = std::max(m, l);
    return m;
  }

  // Farthest-first order of the switches that reach `dst` (counting sort by distance).
  void order_towards(std::uint32_t dst) { hops_.farthest_first(dst, order_); }

  // True when every switch that reaches t's switch forwards on a minimal channel.
  bool minimal(std::uint32_t t) const {
    const std::uint8_t* dist = hops_.row(targets_[t].sw);
    for (std::uint32_t s : order_) {
      const std::uint32_t c = next(t, s);
      if (c == kNone || dist[ch_.to(c)] + 1U != dist[s]) return false;
    }
    return true;
  }

  // Loads of every target's routes; with `keep`, also each movable target's flows.
  void compute_loads(bool keep) {
    std::fill(load_.begin(), load_.end(), 0);
    if (keep) {
      slot_.assign(targets_.size(), kNone);
      slots_ = 0;  // movable targets; those with a non-minimal entry leave theirs unused
      for (const RebalanceTarget& t : targets_)
        slots_ += t.movable ? 1 : 0;
      flows_.assign(std::size_t{slots_} * n_, 0);
      next_hops_.assign(flows_.size(), kNoHop);
      slot_of_.clear();
    }
    std::vector<std::uint64_t> scratch(n_, 0);
    std::uint32_t order_for = kNone;
    for (std::uint32_t t : by_switch_) {
      const std::uint32_t dst = targets_[t].sw;
      if (dst >= n_) continue;
      if (order_for != dst) {
        order_towards(dst);
        order_for = dst;
      }
      if (!minimal(t)) {
        walk_loads(t);
        continue;
      }
      for (std::uint32_t s : order_)
        scratch[s] = sources_[s];
      scratch[dst] = sources_[dst];
      for (std::uint32_t s : order_) {
        if (scratch[s] == 0) continue;
        const std::uint32_t c = next(t, s);
        load_[c] += scratch[s];
        scratch[ch_.to(c)] += scratch[s];
      }
      if (!keep || !targets_[t].movable) continue;
      slot_[t] = static_cast<std::uint32_t>(slot_of_.size());
      slot_of_.push_back(t);
      for (std::uint32_t s : order_) {
        flow(t, s) = static_cast<std::uint16_t>(scratch[s]);
        hop_entry(t, s) = static_cast<std::uint16_t>(next(t, s));
      }
      flow(t, dst) = static_cast<std::uint16_t>(scratch[dst]);
    }
  }

  // Loads of a target whose routes are not all minimal: each source switch's path walked
  // (at most n hops, so a forwarding loop cannot hang the pass).
  void walk_loads(std::uint32_t t) {
    for (std::uint32_t s = 0; s < n_; ++s) {
      if (sources_[s] == 0) continue;
      std::uint32_t x = s;
      for (std::uint32_t steps = 0; x != targets_[t].sw && steps < n_; ++steps) {
        const std::uint32_t c = next(t, x);
        if (c == kNone) break;
        load_[c] += sources_[s];
        x = ch_.to(c);
      }
    }
  }

  std::uint64_t lower_bound() const {
    std::vector<std::uint32_t> lids_at(n_, 0);
    for (const RebalanceTarget& t : targets_)
      if (t.sw < n_) ++lids_at[t.sw];
    return efi_lower_bound(ch_, sources_, lids_at);
  }

  // LMC: how many other LIDs of t's port leave switch s towards switch `peer`.
  unsigned siblings_towards(std::uint32_t t, std::uint32_t s, std::uint32_t peer) const {
    const RebalanceTarget& tg = targets_[t];
    unsigned n = 0;
    for (unsigned k = 0; k < (1U << tg.lmc); ++k) {
      const Lid lid = static_cast<Lid>(tg.port_base + k);
      if (lid == tg.lid) continue;
      const std::uint32_t c = ch_.at(s, by_lid_[std::size_t{lid} * n_ + s]);
      if (c != kNone && ch_.to(c) == peer) ++n;
    }
    return n;
  }

  // The channels of the current path from x and of the path through `alt`, walked in
  // lock-step up to where they merge (old_path_, new_path_). False as soon as a new channel
  // would reach `limit` with x's flow `f` on it.
  bool diverging_paths(std::uint32_t t, std::uint32_t x, std::uint32_t alt, std::uint64_t f,
                       std::uint64_t limit) {
    old_path_.clear();
    new_path_.clear();
    const std::uint32_t dst = targets_[t].sw;
    std::uint32_t a = hop(t, x), b = alt;
    for (;;) {
      if (budget_ > 0) --budget_;
      if (load_[b] + f >= limit) return false;
      old_path_.push_back(a);
      new_path_.push_back(b);
      const std::uint32_t ya = ch_.to(a), yb = ch_.to(b);
      if (ya == yb || ya == dst) return true;
      a = hop(t, ya);
      b = hop(t, yb);
    }
  }

  // Scores moving x's entry for t onto `alt` into `move`: false unless no channel reaches
  // `limit`, `hot` (if not kNone) loses load, and (without `hot`) the sum of squares falls.
  bool consider(std::uint32_t t, std::uint32_t x, std::uint32_t alt, std::uint32_t hot,
                std::uint64_t limit, Move& move) {
    const std::uint64_t f = flow(t, x);
    if (f == 0 || !diverging_paths(t, x, alt, f, limit)) return false;
    if (hot != kNone && std::find(old_path_.begin(), old_path_.end(), hot) == old_path_.end())
      return false;
    std::uint64_t peak = 0;
    std::int64_t delta = 0;
    const auto sf = static_cast<std::int64_t>(f);
    for (std::size_t i = 0; i < new_path_.size(); ++i) {
      // A channel the greedy step loaded stays in use: an idle cable is bandwidth that
      // permutation traffic cannot use (minhop's "no idle channel" property).
      if (load_[old_path_[i]] == f) return false;
      peak = std::max(peak, load_[new_path_[i]] + f);
      delta += 2 *
                   (static_cast<std::int64_t>(load_[new_path_[i]]) -
                    static_cast<std::int64_t>(load_[old_path_[i]])) *
                   sf +
               2 * sf * sf;
    }
    if (hot == kNone && delta >= 0) return false;
    move = {t, x, alt, peak, delta};
    return true;
  }

  // The moves of x's entry for t onto another minimal channel: the best into `best`, or,
  // with `first`, the first feasible one (then true).
  bool consider_all(std::uint32_t t, std::uint32_t x, std::uint32_t hot, std::uint64_t limit,
                    bool first, Move& best) {
    const std::uint8_t* dist = hops_.row(targets_[t].sw);
    const std::uint32_t cur = hop(t, x);
    const unsigned lmc_here = targets_[t].lmc ? siblings_towards(t, x, ch_.to(cur)) : 0;
    for (std::uint32_t alt : ch_.out(x)) {
      if (alt == cur || dist[ch_.to(alt)] + 1U != dist[x]) continue;
      if (targets_[t].lmc && siblings_towards(t, x, ch_.to(alt)) > lmc_here) continue;
      Move m;
      if (!consider(t, x, alt, hot, limit, m)) continue;
      if (m.better_than(best)) best = m;
      if (first) return true;
    }
    return false;
  }

  void apply(const Move& m) {
    const std::uint64_t f = flow(m.target, m.sw);
    diverging_paths(m.target, m.sw, m.alt, f, std::numeric_limits<std::uint64_t>::max());
    for (std::size_t i = 0; i < old_path_.size(); ++i) {
      load_[old_path_[i]] -= f;
      load_[new_path_[i]] += f;
      if (i + 1 < old_path_.size()) {  // the switches before the merge
        flow(m.target, ch_.to(old_path_[i])) -= static_cast<std::uint16_t>(f);
        flow(m.target, ch_.to(new_path_[i])) += static_cast<std::uint16_t>(f);
      }
    }
    hop_entry(m.target, m.sw) = static_cast<std::uint16_t>(m.alt);
    by_lid_[std::size_t{targets_[m.target].lid} * n_ + m.sw] = ch_.port(m.alt);
    ++moves_;
  }

  // A move taking load off channel `hot` (at the maximum) without bringing any channel to
  // the maximum. Candidates are the entries of its sending switch u for every destination
  // routed over it, then those of the switches 1, 2, ... hops upstream of u in that
  // destination's tree (a smaller flow fits where u's whole flow does not). The first
  // feasible move wins: for the same work that relieves 4-7x more channels than taking
  // the best of all candidates, and ends lower (torus-6x6x6-432 minhop, same budget: 740
  // against 910; ft3-5184 with 2 % of its links removed: 7956 against 9486).
  bool relieve(std::uint32_t hot) {
    const std::uint64_t limit = load_[hot];
    const std::uint32_t u = ch_.from(hot);
    level_.clear();
    const std::uint16_t* row = &next_hops_[std::size_t{u} * slots_];
    for (std::uint32_t i = 0; i < slot_of_.size(); ++i)
      if (row[i] == hot && flow(slot_of_[i], u) > 0) level_.push_back({slot_of_[i], u});
    budget_ -= std::min<std::uint64_t>(budget_, slot_of_.size() / 16);
    Move found;
    while (!level_.empty() && budget_ > 0 && found.target == kNone) {
      for (const Entry& e : level_)
        if (consider_all(e.target, e.sw, hot, limit, true, found)) break;
      if (found.target != kNone) break;
      upper_.clear();  // the next level: switches that forward into this one's
      for (const Entry& e : level_) {
        budget_ -= std::min<std::uint64_t>(budget_, in_.of(e.sw).size());
        for (const std::uint32_t c : in_.of(e.sw)) {
          const std::uint32_t y = ch_.from(c);
          if (hop(e.target, y) == c && flow(e.target, y) > 0) upper_.push_back({e.target, y});
        }
      }
      level_.swap(upper_);
    }
    if (found.target == kNone) return false;
    apply(found);
    return true;
  }

  // Relieves the channels at the maximum, one move each, in channel order.
  bool relieve_round() {
    bool any = false;
    for (;;) {
      const std::uint64_t m = max_load();
      hot_.clear();
      for (std::uint32_t c = 0; c < load_.size(); ++c)
        if (load_[c] == m) hot_.push_back(c);
      bool progress = false;
      for (std::uint32_t c : hot_)
        if (budget_ > 0 && load_[c] == m && relieve(c)) progress = true;
      if (!progress) return any;
      any = true;
    }
  }

  // One sweep of sum-of-squares descent below the maximum: every movable entry that
  // carries flow takes its best improving move.
  bool spread_round() {
    const std::uint64_t limit = max_load();
    bool any = false;
    for (std::uint32_t x = 0; x < n_ && budget_ > 0; ++x) {
      for (std::uint32_t t : slot_of_) {
        if (x == targets_[t].sw || flow(t, x) == 0) continue;
        Move best;
        consider_all(t, x, kNone, limit, false, best);
        if (best.target == kNone) continue;
        apply(best);
        any = true;
      }
    }
    return any;
  }

  const HopMatrix& hops_;
  const std::vector<std::uint32_t>& sources_;
  const std::vector<RebalanceTarget>& targets_;
  std::vector<PortNum>& by_lid_;
  std::uint32_t n_;
  ChannelIndex ch_;
  InChannels in_;                         // channels entering each switch
  std::vector<std::uint32_t> by_switch_;  // target indexes grouped by destination switch
  std::vector<std::uint64_t> load_;       // per channel
  std::vector<std::uint32_t> slot_;       // per target: row of flows_, kNone = frozen
  std::vector<std::uint32_t> slot_of_;    // per slot: the target
  std::uint32_t slots_ = 0;               // movable targets
  std::vector<std::uint16_t> flows_;      // [switch * slots_ + slot]
  std::vector<std::uint16_t> next_hops_;  // [switch * slots_ + slot]: channel, kNoHop at dst
  struct Entry {                          // a switch whose entry for `target` may move
    std::uint32_t target, sw;
  };
  std::vector<Entry> level_, upper_;  // relieve(): candidates at one upstream distance
  std::vector<std::uint32_t> order_;  // scratch: farthest-first switches
  std::vector<std::uint32_t> old_path_, new_path_, hot_;
  std::uint64_t budget_ = 0;  // path steps the search may still walk
  std::uint32_t moves_ = 0;
};

}  // namespace

RebalanceStats rebalance_routes(const Topology& topo, const HopMatrix& hops,
                                const std::vector<std::uint32_t>& sources,
                                const std::vector<RebalanceTarget>& targets,
                                std::vector<PortNum>& by_lid) {
  return Rebalancer(topo, hops, sources, targets, by_lid).run();
}

}  // namespace ibsm::routing
