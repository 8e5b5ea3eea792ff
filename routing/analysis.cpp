#include "routing/analysis.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <random>

#include "routing/lid_owners.hpp"

namespace ibsm::routing {
namespace {

// What a switch port leads to.
struct PortPeer {
  Link::Kind kind = Link::Kind::kSwitch;
  bool linked = false;
  std::uint32_t index = 0;    // switch or end port index
  std::uint32_t channel = 0;  // inter-switch channel id (kind == kSwitch)
};

struct ForwardStep {
  enum class Kind : std::uint8_t { kDeliver, kHole, kForward };
  Kind kind = Kind::kHole;
  std::uint32_t next = 0;     // switch, when forwarding
  std::uint32_t channel = 0;  // channel used, when forwarding
};

// Lookup tables shared by all analyses of one (topology, routes) pair.
class Fabric {
 public:
  Fabric(const Topology& topo, const Routes& routes)
      : topo_(topo), routes_(routes), owners_(lid_owners(topo)) {
    ports_.resize(topo.switches.size());
    for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
      const Switch& sw = topo.switches[s];
      ports_[s].resize(std::size_t{sw.num_ports} + 1);
      for (const Link& l : sw.links) {
        if (l.port > sw.num_ports) continue;
        PortPeer& p = ports_[s][l.port];
        p = {l.kind, true, l.peer, 0};
        if (l.kind == Link::Kind::kSwitch) {
          p.channel = static_cast<std::uint32_t>(channels_.size());
          channels_.push_back({s, l.port, l.peer, 0});
        }
      }
    }
  }

  const Topology& topo() const { return topo_; }
  std::vector<ChannelLoad>& channels() { return channels_; }
  const std::vector<ChannelLoad>& channels() const { return channels_; }
  const std::vector<LidOwner>& owners() const { return owners_; }

  ForwardStep step(std::uint32_t s, Lid dlid) const {
    const Lft& lft = routes_.lfts[s];
    if (dlid >= lft.size()) return {};
    const PortNum port = lft[dlid];
    const LidOwner owner = dlid < owners_.size() ? owners_[dlid] : LidOwner{};
    if (port == 0) {
      const bool mine = owner.kind == LidOwner::Kind::kSwitch && owner.index == s;
      return {mine ? ForwardStep::Kind::kDeliver : ForwardStep::Kind::kHole};
    }
    if (port >= ports_[s].size() || !ports_[s][port].linked) return {};
    const PortPeer& p = ports_[s][port];
    if (p.kind == Link::Kind::kEndPort) {
      const bool right = owner.kind == LidOwner::Kind::kEndPort && owner.index == p.index;
      return {right ? ForwardStep::Kind::kDeliver : ForwardStep::Kind::kHole};
    }
    return {ForwardStep::Kind::kForward, p.index, p.channel};
  }

 private:
  const Topology& topo_;
  const Routes& routes_;
  std::vector<LidOwner> owners_;
  std::vector<std::vector<PortPeer>> ports_;
  std::vector<ChannelLoad> channels_;
};

// Outcome and distance (switches still to traverse) of every switch for one DLID,
// memoised so each switch is walked once per destination.
class Resolver {
 public:
  explicit Resolver(const Fabric& f) : f_(f) {
    const std::size_t n = f.topo().switches.size();
    stamp_.assign(n, 0);
    state_.assign(n, State::kVisiting);
    dist_.assign(n, 0);
  }

  void reset(Lid dlid) {
    dlid_ = dlid;
    ++gen_;
  }

  Delivery resolve(std::uint32_t s) {
    stack_.clear();
    std::uint32_t cur = s;
    State result = State::kHole;
    std::uint32_t d = 0;
    while (true) {
      if (stamp_[cur] == gen_) {
        result = state_[cur] == State::kVisiting ? State::kLoop : state_[cur];
        d = dist_[cur];
        break;
      }
      stamp_[cur] = gen_;
      state_[cur] = State::kVisiting;
      stack_.push_back(cur);
      const ForwardStep st = f_.step(cur, dlid_);
      if (st.kind == ForwardStep::Kind::kDeliver) {
        result = State::kDelivered;
        break;
      }
      if (st.kind == ForwardStep::Kind::kHole) {
        result = State::kHole;
        break;
      }
      cur = st.next;
    }
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
      state_[*it] = result;
      dist_[*it] = ++d;
    }
    return to_delivery(state_[s]);
  }

  std::uint32_t distance(std::uint32_t s) const { return dist_[s]; }

 private:
  enum class State : std::uint8_t { kVisiting, kDelivered, kLoop, kHole };
  static Delivery to_delivery(State st) {
    if (st == State::kDelivered) return Delivery::kDelivered;
    return st == State::kLoop ? Delivery::kLoop : Delivery::kBlackHole;
  }

  const Fabric& f_;
  Lid dlid_ = 0;
  std::uint32_t gen_ = 0;
  std::vector<std::uint32_t> stamp_;
  std::vector<State> state_;
  std::vector<std::uint32_t> dist_;
  std::vector<std::uint32_t> stack_;
};

// End ports that take part in switched traffic: attached to a switch, with a LID.
std::vector<std::uint32_t> routable_end_ports(const Topology& topo) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < topo.end_ports.size(); ++i)
    if (topo.end_ports[i].sw != UINT32_MAX && topo.end_ports[i].base_lid != 0) out.push_back(i);
  return out;
}

const char* outcome_name(Delivery d) {
  switch (d) {
    case Delivery::kDelivered:
      return "delivered";
    case Delivery::kLoop:
      return "loop";
    case Delivery::kBlackHole:
      return "black hole";
  }
  return "?";
}

// The next inter-switch channel of every switch towards every destination end port's
// base LID, looked up once so that permutation patterns walk millions of flows cheaply.
// Rows are per destination (destination-major): a pattern's flows to one destination read
// one row.
class NextHops {
 public:
  static constexpr std::uint32_t kArrived = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::uint32_t kDropped = kArrived - 1;

  explicit NextHops(const Fabric& f) : f_(f), n_(f.topo().switches.size()) {
    const Topology& topo = f.topo();
    row_of_.assign(topo.end_ports.size(), kDropped);
    const std::vector<std::uint32_t> ends = routable_end_ports(topo);
    next_.resize(ends.size() * n_);
    for (std::size_t row = 0; row < ends.size(); ++row) {
      row_of_[ends[row]] = static_cast<std::uint32_t>(row);
      const Lid dlid = topo.end_ports[ends[row]].base_lid;
      for (std::uint32_t s = 0; s < n_; ++s) {
        const ForwardStep st = f.step(s, dlid);
        next_[row * n_ + s] = st.kind == ForwardStep::Kind::kForward   ? st.channel
                              : st.kind == ForwardStep::Kind::kDeliver ? kArrived
                                                                       : kDropped;
      }
    }
  }

  // Appends the channels of the path from end port `src` to end port `dst` to `out`;
  // false (and `out` as it was) when the LFTs drop or loop the flow.
  bool path(std::uint32_t src, std::uint32_t dst, std::vector<std::uint32_t>& out) const {
    const std::size_t mark = out.size();
    const std::uint32_t row = row_of_[dst];
    if (row == kDropped) return false;
    const std::uint32_t* next = next_.data() + std::size_t{row} * n_;
    std::uint32_t s = f_.topo().end_ports[src].sw;
    for (std::size_t hops = 0; hops <= n_; ++hops) {
      const std::uint32_t c = next[s];
      if (c == kArrived) return true;
      if (c == kDropped) break;
      out.push_back(c);
      s = f_.channels()[c].peer;
    }
    out.resize(mark);  // dropped, or more hops than switches: a loop
    return false;
  }

 private:
  const Fabric& f_;
  std::size_t n_;
  std::vector<std::uint32_t> row_of_;
  std::vector<std::uint32_t> next_;
};

// One permutation's flows: their paths as channel lists, the congestion they cause.
struct FlowSet {
  std::vector<std::uint32_t> channels;  // all paths, back to back
  std::vector<std::uint32_t> begin;     // path i = channels[begin[i], begin[i + 1])
  std::vector<bool> delivered;
  std::uint64_t undelivered = 0;
};

class CongestionCounter {
 public:
  explicit CongestionCounter(std::size_t channels) : count_(channels, 0) {}

  void route(const NextHops& hops,
             const std::vector<std::pair<std::uint32_t, std::uint32_t>>& flows, FlowSet& set) {
    set.channels.clear();
    set.begin.assign(1, 0);
    set.delivered.clear();
    set.undelivered = 0;
    for (const auto& [src, dst] : flows) {
      const bool ok = hops.path(src, dst, set.channels);
      set.delivered.push_back(ok);
      if (!ok) ++set.undelivered;
      set.begin.push_back(static_cast<std::uint32_t>(set.channels.size()));
    }
    for (std::uint32_t c : set.channels)
      ++count_[c];
  }

  std::uint32_t max_on(const FlowSet& set, std::size_t flow) const {
    std::uint32_t m = 1;  // the end-port links: one flow each way
    for (std::uint32_t i = set.begin[flow]; i < set.begin[flow + 1]; ++i)
      m = std::max(m, count_[set.channels[i]]);
    return m;
  }

  std::uint32_t max_overall(const FlowSet& set) const {
    std::uint32_t m = 0;
    for (std::uint32_t c : set.channels)
      m = std::max(m, count_[c]);
    return m;
  }

  void clear(const FlowSet& set) {
    for (std::uint32_t c : set.channels)
      count_[c] = 0;
  }

 private:
  std::vector<std::uint32_t> count_;
};

// Breadth-first inter-switch hop counts from `from` to every switch (UINT32_MAX: unreachable).
std::vector<std::uint32_t> switch_distances(const Topology& topo, std::uint32_t from) {
  std::vector<std::uint32_t> dist(topo.switches.size(), UINT32_MAX);
  std::deque<std::uint32_t> todo{from};
  dist[from] = 0;
  while (!todo.empty()) {
    const std::uint32_t s = todo.front();
    todo.pop_front();
    for (const Link& l : topo.switches[s].links) {
      if (l.kind != Link::Kind::kSwitch || dist[l.peer] != UINT32_MAX) continue;
      dist[l.peer] = dist[s] + 1;
      todo.push_back(l.peer);
    }
  }
  return dist;
}

}  // namespace

Trace trace_route(const Topology& topo, const Routes& routes, std::uint32_t src, Lid dlid) {
  Fabric f(topo, routes);
  Trace t;
  if (src >= topo.end_ports.size() || topo.end_ports[src].sw == UINT32_MAX) return t;
  std::vector<bool> seen(topo.switches.size(), false);
  std::uint32_t s = topo.end_ports[src].sw;
  while (true) {
    if (seen[s]) {
      t.outcome = Delivery::kLoop;
      return t;
    }
    seen[s] = true;
    const Lft& lft = routes.lfts[s];
    t.hops.push_back({s, dlid < lft.size() ? lft[dlid] : kNoPath});
    const ForwardStep st = f.step(s, dlid);
    if (st.kind == ForwardStep::Kind::kDeliver) {
      t.outcome = Delivery::kDelivered;
      return t;
    }
    if (st.kind == ForwardStep::Kind::kHole) return t;
    s = st.next;
  }
}

PairCheck check_all_pairs(const Topology& topo, const Routes& routes) {
  Fabric f(topo, routes);
  Resolver r(f);
  PairCheck out;
  const std::vector<std::uint32_t> ends = routable_end_ports(topo);
  // Every end port behind one switch shares that switch's outcome, so each destination
  // resolves each source switch once: O(LIDs * switches), not O(LIDs * end ports).
  std::vector<std::uint32_t> per_switch(topo.switches.size(), 0);
  std::vector<std::uint32_t> source_switches;
  for (std::uint32_t e : ends)
    if (per_switch[topo.end_ports[e].sw]++ == 0) source_switches.push_back(topo.end_ports[e].sw);
  // Connected groups of switches: a pair with no cable path between them is no pair.
  std::vector<std::uint32_t> group(topo.switches.size(), UINT32_MAX);
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
    if (group[s] != UINT32_MAX) continue;
    std::vector<std::uint32_t> todo{s};
    group[s] = s;
    while (!todo.empty()) {
      const std::uint32_t x = todo.back();
      todo.pop_back();
      for (const Link& l : topo.switches[x].links)
        if (l.kind == Link::Kind::kSwitch && group[l.peer] == UINT32_MAX) {
          group[l.peer] = s;
          todo.push_back(l.peer);
        }
    }
  }
  // One destination LID on switch `home`: of end port `self` (no source of its own LIDs),
  // or of the switch's port 0 (self == UINT32_MAX).
  const auto check = [&](Lid dlid, std::uint32_t home, std::uint32_t self,
                         const std::string& name) {
    const bool to_switch = self == UINT32_MAX;
    const std::uint32_t own_switch = to_switch ? UINT32_MAX : home;
    r.reset(dlid);
    bool missed = false;
    for (std::uint32_t sw : source_switches) {
      if (group[sw] != group[home]) continue;
      const std::size_t sources = per_switch[sw] - (sw == own_switch ? 1U : 0U);
      out.pairs += sources;
      if (to_switch) out.switch_pairs += sources;
      const Delivery d = r.resolve(sw);
      if (d == Delivery::kDelivered) {
        out.delivered += sources;
        if (to_switch) out.switch_delivered += sources;
        continue;
      }
      if (sources == 0) continue;
      missed = true;
      (d == Delivery::kLoop ? out.loops : out.black_holes) += sources;
      for (std::uint32_t src : ends) {
        if (out.examples.size() >= 10) break;
        if (topo.end_ports[src].sw != sw || src == self) continue;
        out.examples.push_back(topo.end_ports[src].description + " -> LID " + std::to_string(dlid) +
                               " (" + name + "): " + outcome_name(d));
        break;  // one example per (source switch, destination)
      }
    }
    if (missed) out.unreached.push_back(dlid);
  };
  for (std::uint32_t dst : ends) {
    const EndPort& de = topo.end_ports[dst];
    for (unsigned k = 0; k < (1U << de.lmc); ++k)
      check(static_cast<Lid>(de.base_lid + k), de.sw, dst, de.description);
  }
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
    const Switch& sw = topo.switches[s];
    if (sw.lid == 0) continue;
    const std::string name = sw.description.empty() ? "switch" : sw.description;
    for (unsigned k = 0; k < (1U << sw.lmc); ++k)
      check(static_cast<Lid>(sw.lid + k), s, UINT32_MAX, name + " port 0");
  }
  std::sort(out.unreached.begin(), out.unreached.end());
  return out;
}

ChannelLoads channel_loads(const Topology& topo, const Routes& routes) {
  Fabric f(topo, routes);
  Resolver r(f);
  const std::size_t n = topo.switches.size();
  std::vector<std::uint32_t> sources(n, 0);
  const std::vector<std::uint32_t> ends = routable_end_ports(topo);
  for (std::uint32_t e : ends)
    ++sources[topo.end_ports[e].sw];

  std::vector<ChannelLoad>& ch = f.channels();
  std::vector<std::uint64_t> flow(n, 0);
  std::vector<std::uint32_t> active;
  std::vector<std::uint32_t> on_path;
  std::vector<std::uint32_t> mark(n, UINT32_MAX);  // == dst: already on this dst's paths
  for (std::uint32_t dst : ends) {
    const EndPort& de = topo.end_ports[dst];
    r.reset(de.base_lid);
    active.clear();
    for (std::uint32_t s = 0; s < n; ++s) {
      if (sources[s] == 0) continue;
      if (r.resolve(s) == Delivery::kDelivered) active.push_back(s);
    }
    // Switches on delivered paths, farthest first, so each passes on its full flow.
    on_path.clear();
    for (std::uint32_t s : active) {
      for (std::uint32_t cur = s; mark[cur] != dst;) {
        mark[cur] = dst;
        on_path.push_back(cur);
        const ForwardStep st = f.step(cur, de.base_lid);
        if (st.kind != ForwardStep::Kind::kForward) break;
        cur = st.next;
      }
    }
    std::stable_sort(on_path.begin(), on_path.end(), [&](std::uint32_t a, std::uint32_t b) {
      return r.distance(a) > r.distance(b);
    });
    for (std::uint32_t s : on_path)
      flow[s] = sources[s] - (s == de.sw ? 1U : 0U);
    for (std::uint32_t s : on_path) {
      const ForwardStep st = f.step(s, de.base_lid);
      if (st.kind != ForwardStep::Kind::kForward) continue;
      ch[st.channel].routes += flow[s];
      flow[st.next] += flow[s];
    }
    for (std::uint32_t s : on_path)
      flow[s] = 0;
  }

  ChannelLoads out;
  out.channels = ch;
  if (ch.empty()) return out;
  out.min = UINT64_MAX;
  double sum = 0;
  for (const ChannelLoad& c : ch) {
    out.max = std::max(out.max, c.routes);
    out.min = std::min(out.min, c.routes);
    if (c.routes == 0) ++out.unused;
    sum += static_cast<double>(c.routes);
  }
  out.mean = sum / static_cast<double>(ch.size());
  return out;
}

std::vector<std::uint32_t> leaf_major_order(const Topology& topo) {
  std::vector<std::uint32_t> order = routable_end_ports(topo);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const EndPort& x = topo.end_ports[a];
    const EndPort& y = topo.end_ports[b];
    return x.sw != y.sw ? x.sw < y.sw : x.sw_port < y.sw_port;
  });
  return order;
}

EbbResult effective_bisection_bandwidth(const Topology& topo, const Routes& routes,
                                        const EbbOptions& options) {
  const Fabric f(topo, routes);
  const NextHops hops(f);
  CongestionCounter counter(f.channels().size());
  std::vector<std::uint32_t> hosts = routable_end_ports(topo);
  EbbResult out;
  const std::size_t half = hosts.size() / 2;
  if (half == 0 || options.patterns == 0) return out;
  // Our own Fisher-Yates over a fixed engine: std::shuffle's draws differ between
  // standard libraries, and the same seed must give the same bisections everywhere.
  std::mt19937_64 rng(options.seed);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> flows;
  FlowSet set;
  double sum = 0;
  out.min = std::numeric_limits<double>::max();
  for (unsigned p = 0; p < options.patterns; ++p) {
    for (std::size_t i = hosts.size() - 1; i > 0; --i)
      std::swap(hosts[i], hosts[rng() % (i + 1)]);
    flows.clear();
    for (std::size_t i = 0; i < half; ++i) {
      flows.emplace_back(hosts[i], hosts[half + i]);
      flows.emplace_back(hosts[half + i], hosts[i]);
    }
    counter.route(hops, flows, set);
    double pattern = 0;
    for (std::size_t i = 0; i < flows.size(); ++i)
      if (set.delivered[i]) pattern += 1.0 / counter.max_on(set, i);  // undelivered: 0
    counter.clear(set);
    out.flows += flows.size();
    out.undelivered += set.undelivered;
    sum += pattern;
    pattern /= static_cast<double>(flows.size());
    out.min = std::min(out.min, pattern);
    out.max = std::max(out.max, pattern);
  }
  out.patterns = options.patterns;
  out.mean = sum / static_cast<double>(out.flows);
  return out;
}

ShiftResult shift_congestion(const Topology& topo, const Routes& routes,
                             const ShiftOptions& options) {
  const Fabric f(topo, routes);
  const NextHops hops(f);
  CongestionCounter counter(f.channels().size());
  const std::vector<std::uint32_t> order =
      options.order.empty() ? leaf_major_order(topo) : options.order;
  ShiftResult out;
  const std::size_t n = order.size();
  if (n < 2) return out;
  const std::size_t shifts =
      options.max_shifts == 0 ? n - 1 : std::min<std::size_t>(options.max_shifts, n - 1);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> flows(n);
  FlowSet set;
  double sum = 0;
  for (std::size_t j = 0; j < shifts; ++j) {
    const std::size_t k = 1 + j * (n - 1) / shifts;  // evenly spaced when sampling
    for (std::size_t i = 0; i < n; ++i)
      flows[i] = {order[i], order[(i + k) % n]};
    counter.route(hops, flows, set);
    const std::uint64_t worst = counter.max_overall(set);
    counter.clear(set);
    out.undelivered += set.undelivered;
    sum += static_cast<double>(worst);
    if (worst > out.worst) {
      out.worst = worst;
      out.worst_shift = static_cast<std::uint32_t>(k);
    }
  }
  out.shifts = static_cast<unsigned>(shifts);
  out.mean = sum / static_cast<double>(shifts);
  return out;
}

PathStats path_stats(const Topology& topo, const Routes& routes) {
  const Fabric f(topo, routes);
  Resolver r(f);
  std::vector<std::uint32_t> per_switch(topo.switches.size(), 0);
  std::vector<std::uint32_t> source_switches;
  const std::vector<std::uint32_t> dests = leaf_major_order(topo);  // grouped by switch
  for (std::uint32_t e : dests)
    if (per_switch[topo.end_ports[e].sw]++ == 0) source_switches.push_back(topo.end_ports[e].sw);
  PathStats out;
  std::uint64_t total_hops = 0;
  std::vector<std::uint32_t> minimum;
  std::uint32_t minimum_of = UINT32_MAX;
  for (std::uint32_t dst : dests) {
    const EndPort& de = topo.end_ports[dst];
    if (de.sw != minimum_of) {
      minimum = switch_distances(topo, de.sw);
      minimum_of = de.sw;
    }
    r.reset(de.base_lid);
    for (std::uint32_t sw : source_switches) {
      const std::uint64_t sources = per_switch[sw] - (sw == de.sw ? 1U : 0U);
      if (sources == 0 || r.resolve(sw) != Delivery::kDelivered) continue;
      const std::uint32_t hops_taken = r.distance(sw) - 1;  // switches traversed - 1
      out.paths += sources;
      total_hops += sources * hops_taken;
      out.max_hops = std::max(out.max_hops, hops_taken);
      if (hops_taken > minimum[sw]) out.non_minimal += sources;
    }
  }
  if (out.paths != 0)
    out.mean_hops = static_cast<double>(total_hops) / static_cast<double>(out.paths);
  return out;
}

}  // namespace ibsm::routing
