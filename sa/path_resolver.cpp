#include "sa/path_resolver.hpp"

#include <algorithm>
#include <array>

#include "sa/records/record_util.hpp"

namespace ibsm::sa {

namespace {

// Rank of each rate enum by bandwidth (IBA 15.2.5.16 table 206 and its 1.3/1.5/1.7
// additions; the effective data rate after encoding decides: 14 Gb/s FDR 1x sits
// between 10 and 20 Gb/s SDR/DDR). Index = enum; 0 = not a rate.
constexpr std::array<std::uint8_t, kRateMax + 1> kRankOfRate = {
    0,  0,  // 0, 1: reserved
    1,      // 2: 2.5
    3,      // 3: 10
    6,      // 4: 30
    2,      // 5: 5
    5,      // 6: 20
    9,      // 7: 40
    10,     // 8: 60
    13,     // 9: 80
    14,     // 10: 120
    4,      // 11: 14 (FDR 1x)
    12,     // 12: 56
    16,     // 13: 112
    17,     // 14: 168
    7,      // 15: 25 (EDR 1x)
    15,     // 16: 100
    18,     // 17: 200
    19,     // 18: 300
    8,      // 19: 28 (FDR 2x)
    11,     // 20: 50
    20,     // 21: 400
    21,     // 22: 600
    22,     // 23: 800
    23,     // 24: 1200
    24,     // 25: 1600 (XDR 8x)
};

constexpr std::array<std::uint8_t, kRateMax> make_rate_of_rank() {
  std::array<std::uint8_t, kRateMax> r{};
  for (std::uint8_t e = kRateMin; e <= kRateMax; ++e)
    r[kRankOfRate[e]] = e;
  return r;
}
constexpr std::array<std::uint8_t, kRateMax> kRateOfRank = make_rate_of_rank();
static_assert(kRateOfRank[1] == kRateMin && kRateOfRank[kRateMax - 1] == kRateMax);

// PortInfo.LinkWidthActive bits (IBA 14.2.5.6): 1x, 4x, 8x, 12x, 2x.
enum WidthIndex : std::uint8_t { k1x, k4x, k8x, k12x, k2x };
WidthIndex width_index(std::uint8_t active) {
  switch (active) {
    case 2:
      return k4x;
    case 4:
      return k8x;
    case 8:
      return k12x;
    case 16:
      return k2x;
    default:
      return k1x;  // 1, or a value no table knows: counted as 1x
  }
}

// Rate enum by speed and width index (1x, 4x, 8x, 12x, 2x).
constexpr std::uint8_t kSdr[] = {2, 3, 6, 4, 5};       // 2.5 Gb/s lanes
constexpr std::uint8_t kDdr[] = {5, 6, 7, 8, 3};       // 5
constexpr std::uint8_t kQdr[] = {3, 7, 9, 10, 6};      // 10
constexpr std::uint8_t kFdr[] = {11, 12, 13, 14, 19};  // 14 (LinkSpeedExtActive 1)
constexpr std::uint8_t kEdr[] = {15, 16, 17, 18, 20};  // 25 (2)
constexpr std::uint8_t kHdr[] = {20, 17, 21, 22, 16};  // 50 (4)
constexpr std::uint8_t kNdr[] = {16, 21, 23, 24, 17};  // 100 (8)
constexpr std::uint8_t kXdr[] = {17, 23, 25, 25, 21};  // 200 (LinkSpeedExtActive2 1); 12x: 1600

std::uint16_t bswap16(std::uint16_t v) {
  return static_cast<std::uint16_t>((v << 8) | (v >> 8));
}
std::uint64_t bswap64(std::uint64_t v) {
  return __builtin_bswap64(v);
}

}  // namespace

std::uint8_t rate_rank(std::uint8_t rate) {
  return rate <= kRateMax ? kRankOfRate[rate] : 0;
}

std::uint8_t rate_of_rank(std::uint8_t rank) {
  return rank < kRateOfRank.size() ? kRateOfRank[rank] : 0;
}

std::uint8_t rate_below(std::uint8_t rate) {
  const std::uint8_t rank = rate_rank(rate);
  return rank <= 1 ? 0 : kRateOfRank[rank - 1];
}

std::uint8_t port_rate(const mad::PortInfo& pi, bool extended, bool extended2) {
  const WidthIndex w = width_index(pi.link_width_active);
  if (extended2 && pi.link_speed_ext_active2 == 1) return kXdr[w];
  if (extended) {
    switch (pi.link_speed_ext_active) {
      case 1:
        return kFdr[w];
      case 2:
        return kEdr[w];
      case 4:
        return kHdr[w];
      case 8:
        return kNdr[w];
      default:
        break;  // none active: the classic speeds decide
    }
  }
  switch (pi.link_speed_active) {
    case 1:
      return kSdr[w];
    case 2:
      return kDdr[w];
    case 4:
      return kQdr[w];
    default:
      return kSdr[k1x];  // OpenSM: an unknown speed is 2.5 Gb/s whatever the width
  }
}

std::uint8_t limit_rate(std::uint8_t rate, std::uint8_t limit) {
  if (!rate_valid(rate) || limit >= rate) return rate;
  // Step down until neither the bandwidth nor the enum value is above the limit
  // (older clients index tables by the enum, so a larger enum must not come back).
  std::uint8_t r = rate_below(rate);
  while (r > kRateMin && (rate_rank(r) > rate_rank(limit) || r > limit))
    r = rate_below(r);
  return r != 0 ? r : kRateMin;
}

std::uint8_t rate_2x_hdr_fixup(const mad::PortInfo& pi, std::uint8_t rate) {
  const bool cm2 = (pi.capability_mask & kCapHasCapMask2) != 0;
  const bool w2x = cm2 && (pi.capability_mask2 & kCap2Width2x) != 0;
  const bool hdr = cm2 && (pi.capability_mask2 & kCap2SpeedHdr) != 0;
  const bool ndr = cm2 && (pi.capability_mask2 & kCap2SpeedNdr) != 0;
  const bool xdr = cm2 && (pi.capability_mask2 & kCap2SpeedXdr) != 0;
  switch (rate) {
    case 19:  // 28 Gb/s exists only as FDR 2x
      if (!w2x) return (pi.capability_mask & kCapExtendedSpeeds) != 0 ? 15 : 6;
      return rate;
    case 20:  // 50 Gb/s: EDR 2x or HDR 1x
      return (!w2x && !hdr) ? 7 : rate;
    case 21:  // 400, 600 Gb/s: HDR, NDR (or XDR 2x) only
    case 22:
      return (!hdr && !ndr && !xdr) ? kRate300 : rate;
    case 23:  // 800 Gb/s: NDR 8x or XDR 4x
      if (ndr || xdr) return rate;
      return (cm2 && !hdr) ? kRate300 : 22;
    case 24:  // 1200 Gb/s: NDR 12x only
      if (ndr) return rate;
      return (cm2 && !hdr) ? kRate300 : 22;
    case 25:  // 1600 Gb/s: XDR only
      return xdr ? rate : rate_2x_hdr_fixup(pi, ndr ? kRate1200 : 23);
    default:
      return rate;
  }
}

bool is_tavor(const mad::NodeInfo& node) {
  constexpr std::uint16_t kTavorDeviceId = 23108;
  // Mellanox, Topspin, SilverStorm and Voltaire sold it under their own vendor IDs.
  constexpr std::uint32_t kVendors[] = {0x0002c9, 0x0005ad, 0x00066a, 0x0008f1};
  return node.device_id == kTavorDeviceId &&
         std::find(std::begin(kVendors), std::end(kVendors), node.vendor_id) != std::end(kVendors);
}

bool tavor_mtu_limit_applies(const mad::NodeInfo& src, const mad::NodeInfo& dst,
                             const PathQuery::Selected& mtu) {
  if (!is_tavor(src) && !is_tavor(dst)) return false;
  if (!mtu.set) return true;
  switch (mtu.sel) {
    case 0:  // greater than
    case 2:  // exactly
      return mtu.value <= kTavorMtuLimit;
    case 1:  // less than: 1K never disqualifies it
      return true;
    default:  // 3: the largest there is, asked for on purpose
      return false;
  }
}

std::optional<std::uint8_t> select_mtu(std::uint8_t have, std::uint8_t sel, std::uint8_t want) {
  switch (sel) {
    case selector::kGreater:
      if (have <= want) return std::nullopt;
      return have;
    case selector::kLess:
      if (have < want) return have;
      if (want > 1) return static_cast<std::uint8_t>(want - 1);
      return std::nullopt;
    case selector::kExactly:
      if (have < want) return std::nullopt;
      return want;
    default:
      return have;
  }
}

std::optional<std::uint8_t> select_rate(std::uint8_t have, std::uint8_t sel, std::uint8_t want) {
  switch (sel) {
    case selector::kGreater:
      if (rate_rank(have) <= rate_rank(want)) return std::nullopt;
      return have;
    case selector::kLess: {
      if (rate_rank(have) < rate_rank(want)) return have;
      const std::uint8_t below = rate_below(want);
      if (below == 0) return std::nullopt;
      return below;
    }
    case selector::kExactly:
      // OpenSM asks the path for exactly this rate, not for at least it.
      if (rate_rank(have) != rate_rank(want)) return std::nullopt;
      return want;
    default:
      return have;
  }
}

std::optional<std::uint8_t> select_life(std::uint8_t have, std::uint8_t sel, std::uint8_t want) {
  // Same reading as the MTU; "best" is the smallest lifetime, which is what the path has.
  return select_mtu(have, sel, want);
}

// ---------------------------------------------------------------------------

std::size_t PathTables::bytes() const {
  return sizeof(*this) + node_base.capacity() * sizeof(std::uint32_t) + is_switch.capacity() +
         lft_row.capacity() * sizeof(std::uint32_t) + lft.capacity() +
         ports.capacity() * sizeof(Port) + links.capacity() * sizeof(Link) +
         pkeys.capacity() * sizeof(PKey) + endpoints.capacity() * sizeof(std::uint32_t) +
         by_guid.capacity() * sizeof(GuidSlot);
}

std::shared_ptr<const PathTables> build_path_tables(const Snapshot& s) {
  auto t = std::make_shared<PathTables>();
  const std::size_t n = s.nodes.size();
  t->node_base.resize(n + 1);
  t->is_switch.resize(n);
  std::uint32_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t->node_base[i] = total;
    t->is_switch[i] = s.nodes[i].is_switch() ? 1 : 0;
    total += static_cast<std::uint32_t>(s.nodes[i].ports.size());
  }
  t->node_base[n] = total;
  t->ports.resize(total);

  std::vector<std::pair<std::uint64_t, std::uint32_t>> order;  // OpenSM key, flat index
  struct Entry {
    std::uint16_t order;
    std::uint16_t index;
    std::uint16_t value;
  };
  std::vector<Entry> entries;
  for (std::uint32_t ni = 0; ni < n; ++ni) {
    const SnapNode& node = s.nodes[ni];
    // A switch's external ports carry no CapabilityMask of their own: port 0's says
    // whether their extended speeds count (OpenSM reads it the same way).
    const bool sw_ext = node.is_switch() && !node.ports.empty() &&
                        (node.ports[0].info.capability_mask & kCapExtendedSpeeds) != 0;
    const bool sw_ext2 =
        node.is_switch() && !node.ports.empty() && extended_speeds2(node.ports[0].info);
    for (std::size_t pi = 0; pi < node.ports.size(); ++pi) {
      const SnapPort& sp = node.ports[pi];
      if (sp.vl_tables && !t->sl2vl_drops) {
        for (std::uint64_t map : sp.vl_tables->sl2vl) {
          for (unsigned sl = 0; sl < 16 && !t->sl2vl_drops; ++sl)
            t->sl2vl_drops = (map >> (4 * sl) & 0xf) == 15;
        }
      }
      PathTables::Port& p = t->ports[t->node_base[ni] + pi];
      p.node = ni;
      p.num = static_cast<PortNum>(pi);
      p.present = sp.present;
      if (sp.peer.valid() && sp.peer.node < n && sp.peer.port < s.nodes[sp.peer.node].ports.size())
        p.peer = t->node_base[sp.peer.node] + sp.peer.port;
      p.mtu = sp.info.mtu_cap & 0x0f;
      const bool ext =
          node.is_switch() ? sw_ext : (sp.info.capability_mask & kCapExtendedSpeeds) != 0;
      const bool ext2 = node.is_switch() ? sw_ext2 : extended_speeds2(sp.info);
      p.rate_rank = rate_rank(port_rate(sp.info, ext, ext2));
      p.holder = sp.present && sp.guid != 0 && (node.is_switch() ? pi == 0 : pi != 0);
      if (!p.holder) continue;
      p.guid = sp.guid;
      p.lid = sp.lid;
      p.lmc = sp.lmc;
      order.emplace_back(bswap64(sp.guid), t->node_base[ni] + static_cast<std::uint32_t>(pi));

      entries.clear();
      for (std::size_t k = 0; k < sp.pkeys.size() && k < 0xffff; ++k) {
        const std::uint16_t v = sp.pkeys[k];
        if ((v & 0x7fff) == 0) continue;  // an empty entry
        entries.push_back(
            {bswap16(static_cast<std::uint16_t>(v & 0x7fff)), static_cast<std::uint16_t>(k), v});
      }
      std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return a.order != b.order ? a.order < b.order : a.index < b.index;
      });
      p.pkey_begin = static_cast<std::uint32_t>(t->pkeys.size());
      p.pkey_count = static_cast<std::uint16_t>(entries.size());
      for (std::size_t k = 0; k < entries.size(); ++k) {
        const bool first = k == 0 || entries[k - 1].order != entries[k].order;
        t->pkeys.push_back({entries[k].order, entries[k].value, first});
      }
    }
  }
  t->links.resize(total);
  for (std::uint32_t fp = 0; fp < total; ++fp) {
    const PathTables::Port& p = t->ports[fp];
    PathTables::Link& l = t->links[fp];
    l.self_mtu = p.mtu;
    l.self_rank = p.rate_rank;
    l.present = p.present;
    if (p.peer == kNone) continue;
    const PathTables::Port& q = t->ports[p.peer];
    l.next_node = q.node;
    l.next_port = q.num;
    l.peer_mtu = q.mtu;
    l.peer_rank = q.rate_rank;
  }

  std::sort(order.begin(), order.end());
  t->endpoints.reserve(order.size());
  Lid top = 0;
  for (const auto& [key, fp] : order) {
    t->endpoints.push_back(fp);
    const PathTables::Port& p = t->ports[fp];
    top = static_cast<Lid>(std::max<unsigned>(top, std::min(p.lid + (1u << p.lmc) - 1, 0xbfffu)));
  }

  std::size_t slots = 16;
  while (slots < order.size() * 2)
    slots *= 2;
  t->by_guid.assign(slots, {});
  for (std::uint32_t fp : t->endpoints) {
    const Guid g = t->ports[fp].guid;
    for (std::size_t i = PathTables::guid_hash(g) & (slots - 1);; i = (i + 1) & (slots - 1)) {
      if (t->by_guid[i].guid == g) break;  // a duplicate GUID: the first port keeps it
      if (t->by_guid[i].guid != 0) continue;
      t->by_guid[i] = {g, fp};
      break;
    }
  }

  t->lft_stride = std::size_t{top} + 1;
  t->lft_row.assign(n, 0);
  std::size_t switches = 0;
  for (std::size_t i = 0; i < n; ++i)
    switches += t->is_switch[i];
  t->lft.assign(switches * t->lft_stride, PortNum{0xff});
  std::size_t row = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (t->is_switch[i] == 0) continue;
    t->lft_row[i] = static_cast<std::uint32_t>(row);
    const std::vector<PortNum>& lft = s.nodes[i].lft;
    std::copy_n(lft.begin(), std::min(lft.size(), t->lft_stride), t->lft.begin() + row);
    row += t->lft_stride;
  }
  return t;
}

// ---------------------------------------------------------------------------

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
  const std::uint16_t order = bswap16(base);
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
