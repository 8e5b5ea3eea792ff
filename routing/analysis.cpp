#include "routing/analysis.hpp"

#include <algorithm>

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

struct Step {
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
  const std::vector<LidOwner>& owners() const { return owners_; }

  Step step(std::uint32_t s, Lid dlid) const {
    const Lft& lft = routes_.lfts[s];
    if (dlid >= lft.size()) return {};
    const PortNum port = lft[dlid];
    const LidOwner owner = dlid < owners_.size() ? owners_[dlid] : LidOwner{};
    if (port == 0) {
      const bool mine = owner.kind == LidOwner::Kind::kSwitch && owner.index == s;
      return {mine ? Step::Kind::kDeliver : Step::Kind::kHole};
    }
    if (port >= ports_[s].size() || !ports_[s][port].linked) return {};
    const PortPeer& p = ports_[s][port];
    if (p.kind == Link::Kind::kEndPort) {
      const bool right = owner.kind == LidOwner::Kind::kEndPort && owner.index == p.index;
      return {right ? Step::Kind::kDeliver : Step::Kind::kHole};
    }
    return {Step::Kind::kForward, p.index, p.channel};
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
      const Step st = f_.step(cur, dlid_);
      if (st.kind == Step::Kind::kDeliver) {
        result = State::kDelivered;
        break;
      }
      if (st.kind == Step::Kind::kHole) {
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
    const Step st = f.step(s, dlid);
    if (st.kind == Step::Kind::kDeliver) {
      t.outcome = Delivery::kDelivered;
      return t;
    }
    if (st.kind == Step::Kind::kHole) return t;
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
  for (std::uint32_t dst : ends) {
    const EndPort& de = topo.end_ports[dst];
    for (unsigned k = 0; k < (1U << de.lmc); ++k) {
      const Lid dlid = static_cast<Lid>(de.base_lid + k);
      r.reset(dlid);
      for (std::uint32_t sw : source_switches) {
        const std::size_t sources = per_switch[sw] - (sw == de.sw ? 1U : 0U);
        out.pairs += sources;
        const Delivery d = r.resolve(sw);
        if (d == Delivery::kDelivered) {
          out.delivered += sources;
          continue;
        }
        (d == Delivery::kLoop ? out.loops : out.black_holes) += sources;
        for (std::uint32_t src : ends) {
          if (out.examples.size() >= 10) break;
          if (src == dst || topo.end_ports[src].sw != sw) continue;
          out.examples.push_back(topo.end_ports[src].description + " -> LID " +
                                 std::to_string(dlid) + " (" + de.description +
                                 "): " + outcome_name(d));
        }
      }
    }
  }
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
        const Step st = f.step(cur, de.base_lid);
        if (st.kind != Step::Kind::kForward) break;
        cur = st.next;
      }
    }
    std::stable_sort(on_path.begin(), on_path.end(), [&](std::uint32_t a, std::uint32_t b) {
      return r.distance(a) > r.distance(b);
    });
    for (std::uint32_t s : on_path)
      flow[s] = sources[s] - (s == de.sw ? 1U : 0U);
    for (std::uint32_t s : on_path) {
      const Step st = f.step(s, de.base_lid);
      if (st.kind != Step::Kind::kForward) continue;
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

}  // namespace ibsm::routing
