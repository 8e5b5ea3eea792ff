// The path resolver (path_resolver.hpp, "The resolver"): walks through the LFTs from
// one port to a LID, what a walk offers under a request's constraints (QoS level,
// selectors, P_Key, SL), both directions of a path, the ports a path crosses for
// TraceRecord, and the PathRecord written from a resolved path. The rules it applies
// are in path_rules.cpp, the tables it walks are built in path_tables.cpp.
#include "sa/path_resolver.hpp"

#include <algorithm>

#include "sa/records/record_util.hpp"

namespace ibsm::sa {

PathResolver::PathResolver(const Snapshot& snap, const SaSettings& settings)
    : snap_(snap), settings_(settings) {
  if (snap.path_tables) {
    t_ = snap.path_tables.get();
  } else {
    own_ = build_path_tables(snap);
    t_ = own_.get();
  }
  // max_rate_enum (0: none); use_original_extended_sa_rates_only keeps rates at or
  // below 300 Gb/s, the last rate old clients know (OpenSM folds it into the cap).
  rate_cap_ = settings.max_rate_enum;
  if (settings.use_original_extended_sa_rates_only && (rate_cap_ == 0 || rate_cap_ > kRate300))
    rate_cap_ = kRate300;
}

template <class Visit>
void PathResolver::begin(Walk& w, std::uint32_t s, std::uint32_t d, Lid dlid, Visit& visit) const {
  const PathTables& t = *t_;
  // Ports counted, as OpenSM counts them: the source, each switch's ingress and egress
  // port, the destination. A switch source's egress port is not (OpenSM starts from
  // its port 0).
  w.mtu = t.links[s].self_mtu;
  w.rank = t.links[s].self_rank;
  w.hops = 0;
  w.dlid = dlid;
  w.cur = s;
  w.dst = d;
  w.state = Walk::State::kRunning;
  // A switch source leaves through the port its LFT names; a switch destination is
  // reached at the port its LFT names for its own LID (port 0).
  const std::uint32_t s_node = t.ports[s].node;
  if (t.is_switch[s_node] != 0) {
    w.cur = t.egress(s_node, dlid);
    if (w.cur == kNone) {
      w.state = Walk::State::kFailed;
      return;
    }
  }
  const std::uint32_t d_node = t.ports[d].node;
  if (t.is_switch[d_node] != 0) {
    w.dst = t.egress(d_node, dlid);
    if (w.dst == kNone) {
      w.state = Walk::State::kFailed;
      return;
    }
  }
  visit.start(w.cur, w.cur == w.dst);
}

template <class Visit>
void PathResolver::step(Walk& w, Visit& visit) const {
  const PathTables& t = *t_;
  if (w.cur == w.dst) {
    w.state = Walk::State::kArrived;
    visit.end(w.cur);
    return;
  }
  const PathTables::Link& l = t.links[w.cur];
  if (l.next_node == kNone) {  // the link is gone
    w.state = Walk::State::kFailed;
    return;
  }
  w.mtu = std::min(w.mtu, l.peer_mtu);
  w.rank = std::min(w.rank, l.peer_rank);
  const std::uint32_t in = t.node_base[l.next_node] + l.next_port;
  if (in == w.dst) {
    w.cur = in;
    w.state = Walk::State::kArrived;
    visit.end(in);
    return;
  }
  const std::uint32_t out = t.is_switch[l.next_node] != 0 ? t.egress(l.next_node, w.dlid) : kNone;
  // Another end port where a switch was due, a dead end, or a loop in the LFTs.
  if (out == kNone || ++w.hops > kMaxPathHops) {
    w.state = Walk::State::kFailed;
    return;
  }
  w.mtu = std::min(w.mtu, t.links[out].self_mtu);
  w.rank = std::min(w.rank, t.links[out].self_rank);
  visit.hop(in, out);
  w.cur = out;
}

template <class Visit>
bool PathResolver::walk(Walk& w, std::uint32_t s, std::uint32_t d, Lid dlid, Visit& visit) const {
  begin(w, s, d, dlid, visit);
  while (w.state == Walk::State::kRunning)
    step(w, visit);
  return w.state == Walk::State::kArrived;
}

namespace {

struct NoVisit {
  void start(std::uint32_t, bool) {}
  void hop(std::uint32_t, std::uint32_t) {}
  void end(std::uint32_t) {}
};

// With QoS, the SLs a path may use: those no port on it maps to VL15, the drop VL
// (IBA 7.6.6; OpenSM checks the source's table for input port 0 and each switch's
// egress table for the ingress port, not the destination's).
struct SlMask {
  const Snapshot& s;
  const PathTables& t;
  std::uint16_t valid = 0xffff;
  void apply(std::uint32_t fp, PortNum in) {
    const PathTables::Port& p = t.ports[fp];
    const auto& vl = s.nodes[p.node].ports[p.num].vl_tables;
    if (!vl || in >= vl->sl2vl.size()) return;  // unknown table: every SL on VL0
    const std::uint64_t map = vl->sl2vl[in];
    for (unsigned sl = 0; sl < 16; ++sl) {
      if ((map >> (60 - 4 * sl) & 0xf) == 15)
        valid = static_cast<std::uint16_t>(valid & ~(1u << sl));
    }
  }
  void start(std::uint32_t fp, bool) { apply(fp, 0); }
  void hop(std::uint32_t in, std::uint32_t out) { apply(out, t.ports[in].num); }
  void end(std::uint32_t) {}
};

}  // namespace

std::uint16_t PathResolver::common_pkey(std::uint32_t a, std::uint32_t b) const {
  const auto ta = t_->pkeys_of(a);
  const auto tb = t_->pkeys_of(b);
  const bool both = settings_.allow_both_pkeys;
  // OpenSM walks both sorted tables and returns the source's entry of the first base
  // both hold with one side a full member; without allow_both_pkeys a table holds
  // one entry per base (its first).
  const PathTables::PKey* best = nullptr;
  for (const PathTables::PKey& x : ta) {
    if (!both && !x.first) continue;
    if (best != nullptr && x.order > best->order) break;  // sorted: nothing better follows
    for (const PathTables::PKey& y : tb) {
      if (y.order > x.order) break;
      if (y.order != x.order || (!both && !y.first)) continue;
      if (((x.value | y.value) & 0x8000) == 0) continue;
      // With allow_both_pkeys a full entry of the source is preferred over its
      // limited one of the same base.
      if (best == nullptr || x.order < best->order ||
          ((x.value & 0x8000) != 0 && (best->value & 0x8000) == 0))
        best = &x;
      break;
    }
  }
  return best == nullptr ? 0 : best->value;
}

std::uint16_t PathResolver::level_pkey(std::uint32_t a, std::uint32_t b,
                                       const qos_policy::Ranges& r) const {
  std::uint16_t best = 0;
  for (const PathTables::PKey& x : t_->pkeys_of(a)) {
    const std::uint16_t base = x.value & 0x7fff;
    if (base == 0 || (best != 0 && base >= best) || !qos_policy::contains(r, base)) continue;
    if (share_this_pkey(a, b, base)) best = base;
  }
  return best;
}

bool PathResolver::share_this_pkey(std::uint32_t a, std::uint32_t b, std::uint16_t pkey) const {
  const std::uint16_t base = pkey & 0x7fff;
  if (base == 0) return false;
  const std::uint16_t order = PathTables::pkey_order(base);
  const bool both = settings_.allow_both_pkeys;
  // The entry a table answers for this P_Key: with allow_both_pkeys the full one
  // first, else the one the table keeps for the base.
  auto find = [&](std::uint32_t fp) -> const PathTables::PKey* {
    const PathTables::PKey* found = nullptr;
    for (const PathTables::PKey& x : t_->pkeys_of(fp)) {
      if (x.order != order) continue;
      if (!both) return x.first ? &x : found;
      if ((x.value & 0x8000) != 0) return &x;
      if (found == nullptr) found = &x;
    }
    return found;
  };
  const PathTables::PKey* x = find(a);
  const PathTables::PKey* y = find(b);
  return x != nullptr && y != nullptr && ((x->value | y->value) & 0x8000) != 0;
}

bool PathResolver::share_pkey(PortRef a, PortRef b) const {
  if (!a.valid() || !b.valid()) return false;
  const std::uint32_t fa = t_->flat(a);
  const std::uint32_t fb = t_->flat(b);
  if (fa == fb) return true;
  // A table that was not read hides nothing (OpenSM: no P_Key table, no check).
  if (t_->ports[fa].pkey_count == 0 || t_->ports[fb].pkey_count == 0) return true;
  return common_pkey(fa, fb) != 0;
}

std::uint8_t PathResolver::partition_sl(std::uint16_t pkey) const {
  const std::uint16_t base = pkey & 0x7fff;
  const auto& parts = snap_.partitions;
  auto it = std::lower_bound(parts.begin(), parts.end(), base,
                             [](const SnapPartition& p, std::uint16_t k) { return p.pkey < k; });
  // A P_Key no partition defines (a table programmed by another SM) gets the default SL.
  return it != parts.end() && it->pkey == base ? it->sl : 0;
}

std::optional<PathParams> PathResolver::one_way(PortRef src, Lid slid, PortRef dst, Lid dlid,
                                                const PathQuery& q) const {
  const std::uint32_t s = t_->flat(src);
  const std::uint32_t d = t_->flat(dst);
  Walk w;
  if (settings_.qos && t_->sl2vl_drops) {
    SlMask mask{snap_, *t_};
    if (!walk(w, s, d, dlid, mask) || mask.valid == 0) return std::nullopt;
    return finish(w, s, d, slid, dlid, mask.valid, q);
  }
  NoVisit none;
  if (!walk(w, s, d, dlid, none)) return std::nullopt;
  return finish(w, s, d, slid, dlid, 0xffff, q);
}

std::optional<PathParams> PathResolver::finish(const Walk& w, std::uint32_t s, std::uint32_t d,
                                               Lid slid, Lid dlid, std::uint16_t valid_sls,
                                               const PathQuery& q) const {
  PathParams p;
  p.mtu = w.mtu;
  p.hops = w.hops;
  p.rate = rate_of_rank(w.rank);
  // IBA 15.2.5.16 table 205: a loopback path has PacketLifeTime 0.
  p.life = s == d ? 0 : settings_.subnet_timeout;
  if (settings_.enable_quirks && p.mtu > kTavorMtuLimit &&
      tavor_mtu_limit_applies(snap_.nodes[t_->ports[s].node].info,
                              snap_.nodes[t_->ports[d].node].info, q.mtu))
    p.mtu = kTavorMtuLimit;

  // The QoS policy's level for this direction (OpenSM pr_rcv_get_path_parms): its
  // limits cap what the path offers before the request's selectors see it.
  const qos_policy::Level* level = nullptr;
  if (settings_.qos && snap_.qos_policy) {
    level = &snap_.qos_policy->match(s, d, {q.qos_class, q.service_id, q.pkey});
    if (level->mtu_limit && p.mtu > *level->mtu_limit) p.mtu = *level->mtu_limit;
    if (level->rate_limit && rate_rank(p.rate) > rate_rank(*level->rate_limit))
      p.rate = *level->rate_limit;
    if ((valid_sls >> *level->sl & 1u) == 0) return std::nullopt;
    if (s != d && level->packet_life) p.life = *level->packet_life;
  }

  if (q.mtu.set) {
    auto v = select_mtu(p.mtu, q.mtu.sel, q.mtu.value);
    if (!v) return std::nullopt;
    p.mtu = *v;
  }
  if (q.rate.set) {
    auto v = select_rate(p.rate, q.rate.sel, q.rate.value);
    if (!v) return std::nullopt;
    p.rate = *v;
  }
  if (q.life.set) {
    auto v = select_life(p.life, q.life.sel, q.life.value);
    if (!v) return std::nullopt;
    p.life = *v;
  }

  // P_Key (IBA C15-0.1.x, OpenSM's order): raw traffic needs no partition; a
  // requested P_Key must be shared; else the first shared one.
  if (q.raw_traffic) {
    p.pkey = common_pkey(s, d);
  } else if (q.pkey) {
    if (!share_this_pkey(s, d, *q.pkey)) return std::nullopt;
    // A level with P_Keys serves only those (OpenSM ERR 1F1D).
    if (level != nullptr && !level->pkeys.empty() &&
        !qos_policy::contains(level->pkeys, *q.pkey & 0x7fffu))
      return std::nullopt;
    p.pkey = *q.pkey;
  } else if (level != nullptr && !level->pkeys.empty()) {
    p.pkey = level_pkey(s, d, level->pkeys);
    if (p.pkey == 0) return std::nullopt;
  } else {
    p.pkey = common_pkey(s, d);
    if (p.pkey == 0) return std::nullopt;
  }

  // SL: the requested one (which must be the level's, OpenSM ERR 1F1F), else the QoS
  // level's, else the partition's, else (QoS) the first usable one.
  if (q.sl) {
    p.sl = *q.sl & 0x0f;
    if (level != nullptr && *level->sl != p.sl) return std::nullopt;
  } else if (level != nullptr) {
    p.sl = *level->sl;
  } else if (p.pkey != 0) {
    p.sl = partition_sl(p.pkey);
  } else if ((valid_sls & 1u) == 0) {
    p.sl = static_cast<std::uint8_t>(__builtin_ctz(valid_sls));
  }
  if ((valid_sls >> p.sl & 1u) == 0) return std::nullopt;
  // A routing engine that spreads paths over SLs has the last word on its bits; a
  // request for another SL cannot be served. The bits it leaves to the requester
  // (torus-2QoS: bit 3, the QoS level) come from the requested or partition SL.
  if (!snap_.path_sl.empty()) {
    if (auto engine = snap_.path_sl.find(slid, dlid)) {
      const std::uint8_t free = snap_.path_sl.requester_bits & 0x0f;
      const std::uint8_t fixed = *engine & 0x0f & static_cast<std::uint8_t>(~free);
      if (q.sl && (p.sl & ~free) != fixed) return std::nullopt;
      p.sl = static_cast<std::uint8_t>(fixed | (p.sl & free));
    }
  }
  if (q.raw_traffic) p.pkey = 0;
  return p;
}

std::optional<ResolvedPath> PathResolver::resolve(PortRef src, Lid slid, PortRef dst, Lid dlid,
                                                  const PathQuery& q,
                                                  std::uint8_t preference) const {
  std::optional<PathParams> fwd;
  bool reversible = false;
  // With QoS and an SL2VL table that drops some SL, each direction walks with the
  // tables; otherwise every SL is usable and the two walks run side by side.
  if (settings_.qos && t_->sl2vl_drops) {
    fwd = one_way(src, slid, dst, dlid, q);
    if (!fwd) return std::nullopt;
    reversible = one_way(dst, dlid, src, slid, q).has_value();
  } else {
    // Both directions at once: each hop is a cache miss on the LFTs, and two
    // independent walks let the CPU wait for two misses at a time.
    const std::uint32_t s = t_->flat(src);
    const std::uint32_t d = t_->flat(dst);
    Walk there, back;
    NoVisit none;
    begin(there, s, d, dlid, none);
    begin(back, d, s, slid, none);
    while (there.state == Walk::State::kRunning || back.state == Walk::State::kRunning) {
      if (there.state == Walk::State::kRunning) step(there, none);
      if (back.state == Walk::State::kRunning) step(back, none);
    }
    if (there.state != Walk::State::kArrived) return std::nullopt;
    fwd = finish(there, s, d, slid, dlid, 0xffff, q);
    if (!fwd) return std::nullopt;
    reversible = back.state == Walk::State::kArrived &&
                 finish(back, d, s, dlid, slid, 0xffff, q).has_value();
  }
  // Reversible=0 in a request means "don't care" (IBA 15.2.5.16), not "one-way only".
  if (q.reversible_required && !reversible) return std::nullopt;
  ResolvedPath r;
  r.src = src;
  r.dst = dst;
  r.slid = slid;
  r.dlid = dlid;
  r.params = *fwd;
  r.reversible = reversible;
  r.preference = preference;
  return r;
}

std::vector<TraceHop> PathResolver::trace(PortRef src, PortRef dst, Lid dlid) const {
  struct Collect {
    const PathTables& t;
    std::vector<TraceHop>& out;
    void start(std::uint32_t fp, bool arrived) {
      TraceHop h;
      h.node = t.ports[fp].node;
      h.exit = t.ports[fp].num;
      h.has_exit = true;
      if (arrived) {  // loopback: the path turns around in this port
        h.entry = h.exit;
        h.has_entry = true;
      }
      out.push_back(h);
    }
    void hop(std::uint32_t in, std::uint32_t out_port) {
      TraceHop h;
      h.node = t.ports[in].node;
      h.entry = t.ports[in].num;
      h.has_entry = true;
      h.exit = t.ports[out_port].num;
      h.has_exit = true;
      out.push_back(h);
    }
    void end(std::uint32_t fp) {
      if (out.size() == 1 && out.back().has_entry) return;  // loopback, already complete
      // A switch destination was entered in the last hop; its "exit" is port 0.
      if (out.size() > 1 && out.back().node == t.ports[fp].node) {
        out.back().exit = 0;
        out.back().has_exit = false;
        return;
      }
      TraceHop h;
      h.node = t.ports[fp].node;
      h.entry = t.ports[fp].num;
      h.has_entry = true;
      out.push_back(h);
    }
  };
  std::vector<TraceHop> hops;
  Collect c{*t_, hops};
  Walk w;
  if (!walk(w, t_->flat(src), t_->flat(dst), dlid, c)) hops.clear();
  return hops;
}

std::uint8_t PathResolver::reported_rate(const ResolvedPath& p) const {
  std::uint8_t rate = p.params.rate;
  if (rate_cap_ != 0) {
    if (rate_cap_ < rate) rate = limit_rate(rate, rate_cap_);
  } else if (rate >= kRate28) {
    // Rates only 2x or HDR/NDR links have: the end ports must support them too.
    rate = rate_2x_hdr_fixup(snap_.port(p.src).info, rate);
    if (p.reversible) rate = rate_2x_hdr_fixup(snap_.port(p.dst).info, rate);
  }
  return rate;
}

void write_path_record(std::span<std::uint8_t> rec, const PathResolver& r, const ResolvedPath& p,
                       const Gid* sgid) {
  const Snapshot& s = r.snapshot();
  const PathTables& t = r.tables();
  std::fill(rec.begin(), rec.begin() + 64, std::uint8_t{0});
  put_be(rec, 8, s.subnet_prefix, 8);
  put_be(rec, 16, t.ports[t.flat(p.dst)].guid, 8);
  if (sgid != nullptr) {
    std::copy(sgid->begin(), sgid->end(), rec.begin() + 24);
  } else {
    put_be(rec, 24, s.subnet_prefix, 8);
    put_be(rec, 32, t.ports[t.flat(p.src)].guid, 8);
  }
  put_be(rec, 40, p.dlid, 2);
  put_be(rec, 42, p.slid, 2);
  // 44: RawTraffic, FlowLabel, HopLimit all 0 (HopLimit > 1 only for off-subnet paths).
  rec[49] = p.reversible ? 0x80 : 0x00;  // NumbPath 0: this is only the Reversible bit
  put_be(rec, 50, p.params.pkey, 2);
  put_be(rec, 52, p.params.sl & 0x0f, 2);  // QoSClass 0
  const std::uint8_t exactly = selector::kExactly << 6;
  rec[54] = static_cast<std::uint8_t>(exactly | (p.params.mtu & 0x3f));
  rec[55] = static_cast<std::uint8_t>(exactly | (r.reported_rate(p) & 0x3f));
  rec[56] = static_cast<std::uint8_t>(exactly | (p.src == p.dst ? 0 : p.params.life & 0x3f));
  rec[57] = p.preference;
}

}  // namespace ibsm::sa
