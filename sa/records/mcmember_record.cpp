// MCMemberRecord (IBA 15.2.5.17) queries: Get and GetTable answered from the
// multicast group store (SaState::mcast, so a join shows at once) with OpenSM 3.3's rules
// (osm_sa_mcmember_record.c, mcmr_query_mgrp):
//  - a group is a candidate only if the requester's port holds its P_Key (any
//    membership; OpenSM's osm_physp_has_pkey), trusted or not;
//  - MGID, MLID, Q_Key, P_Key (base equal, one side full), TClass, SL, FlowLabel,
//    HopLimit and ProxyJoin are compared when masked; MTU and rate by their selector
//    (> < = or "any" for 3) when the selector bit is masked; PacketLifeTime never
//    (OpenSM ignores it);
//  - with PortGID masked the port must be a member and its join state is reported;
//    a trusted request (non-zero SM_Key, the server has already dropped wrong keys)
//    without PortGID gets one record per member of every group; everyone else gets
//    one record per group;
//  - untrusted answers have PortGID, JoinState and ProxyJoin zeroed (IBA 15.2.5.17,
//    o15-0.2.x: "shall be zero, except in the case of a trusted request");
//  - the record carries MTU, rate and PacketLifeTime with selector 2 ("exactly"),
//    as OpenSM stores every group.
// Set (join) and Delete (leave) are in sa/records/mcmember_join.cpp.
#include <algorithm>
#include <numeric>

#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"
#include "sa/state.hpp"

namespace ibsm::sa {

namespace {

// ComponentMask bits (field order of the layout in sa/layouts_multicast.cpp).
constexpr unsigned kMcMemberBitMgid = 0;
constexpr unsigned kMcMemberBitPortGid = 1;
constexpr unsigned kMcMemberBitQKey = 2;
constexpr unsigned kMcMemberBitMlid = 3;
constexpr unsigned kMcMemberBitMtuSel = 4;
constexpr unsigned kMcMemberBitMtu = 5;
constexpr unsigned kMcMemberBitTClass = 6;
constexpr unsigned kMcMemberBitPKey = 7;
constexpr unsigned kMcMemberBitRateSel = 8;
constexpr unsigned kMcMemberBitRate = 9;
constexpr unsigned kMcMemberBitSl = 12;
constexpr unsigned kMcMemberBitFlowLabel = 13;
constexpr unsigned kMcMemberBitHopLimit = 14;
constexpr unsigned kMcMemberBitScope = 15;
constexpr unsigned kMcMemberBitJoinState = 16;
constexpr unsigned kMcMemberBitProxyJoin = 17;

// Byte offsets in the 52-byte record.
constexpr std::size_t kOffMgid = 0;
constexpr std::size_t kOffPortGid = 16;
constexpr std::size_t kOffQKey = 32;
constexpr std::size_t kOffMlid = 36;
constexpr std::size_t kOffMtu = 38;
constexpr std::size_t kOffTClass = 39;
constexpr std::size_t kOffPKey = 40;
constexpr std::size_t kOffRate = 42;
constexpr std::size_t kOffLife = 43;
constexpr std::size_t kOffSlFlowHop = 44;
constexpr std::size_t kOffScopeState = 48;
constexpr std::size_t kOffProxy = 49;
// ProxyJoin where OpenSM and saquery put it: the low bit of byte 49 (IBA says the
// top bit; see sa/layouts_multicast.cpp).
constexpr std::uint8_t kProxyBit = 0x01;

constexpr std::uint8_t kSelGreater = 0;
constexpr std::uint8_t kSelLess = 1;
constexpr std::uint8_t kSelExactly = 2;
constexpr std::uint8_t kJoinFull = 0x1;

// Valid enums when a selector and its value are both given (OpenSM rejects the
// query with ERR_REQ_INVALID otherwise): MTU 256..4096, rate 2.5..1200 Gb/s.
constexpr std::uint8_t kMinMtu = 1;
constexpr std::uint8_t kMaxMtu = 5;
constexpr std::uint8_t kMinRate = 2;
constexpr std::uint8_t kMaxRate = 24;

// Rate enums are not ordered by speed (IBA added them over time); this ranks them
// by bandwidth, as OpenSM's ib_path_compare_rates does. Out-of-range enums rank 0.
int rate_rank(std::uint8_t rate) {
  static constexpr std::array<std::uint8_t, 25> kRank = {
      0, 0, 1, 3, 6, 2, 5, 9, 10, 13, 14, 4, 12, 16, 17, 7, 15, 18, 19, 8, 11, 20, 21, 22, 23};
  return rate < kRank.size() ? kRank[rate] : 0;
}

// True when `have` satisfies `want` under `selector` (IBA 15.2.5.17: 0 greater
// than, 1 less than, 2 exactly, 3 anything).
bool selector_ok(std::uint8_t selector, int have, int want) {
  switch (selector) {
    case kSelGreater:
      return have > want;
    case kSelLess:
      return have < want;
    case kSelExactly:
      return have == want;
    default:
      return true;
  }
}

bool gid_equal(std::span<const std::uint8_t> rec, std::size_t off, const Gid& g) {
  return std::equal(g.begin(), g.end(), rec.begin() + static_cast<std::ptrdiff_t>(off));
}

// The group's own scope/JoinState byte. OpenSM stores the creator's state with
// the group; every group the SM creates (partitions.conf) is created as a full
// member, and joins do not exist yet.
std::uint8_t group_scope_state(const McGroupRec& g) {
  return static_cast<std::uint8_t>((g.scope & 0xf) << 4 | kJoinFull);
}

void fill_record(const McGroupRec& g, std::span<std::uint8_t> rec, std::uint8_t scope_state,
                 const Gid* port_gid, bool proxy) {
  std::copy(g.mgid.begin(), g.mgid.end(), rec.begin() + kOffMgid);
  if (port_gid != nullptr) std::copy(port_gid->begin(), port_gid->end(), rec.begin() + kOffPortGid);
  put_be(rec, kOffQKey, g.qkey, 4);
  put_be(rec, kOffMlid, g.mlid, 2);
  rec[kOffMtu] = static_cast<std::uint8_t>(kSelExactly << 6 | (g.mtu & 0x3f));
  rec[kOffTClass] = g.tclass;
  put_be(rec, kOffPKey, g.pkey, 2);
  rec[kOffRate] = static_cast<std::uint8_t>(kSelExactly << 6 | (g.rate & 0x3f));
  rec[kOffLife] = static_cast<std::uint8_t>(kSelExactly << 6 | (g.packet_life & 0x3f));
  put_be(rec, kOffSlFlowHop,
         (std::uint32_t{g.sl} & 0xf) << 28 | (g.flow_label & 0xfffff) << 8 | g.hop_limit, 4);
  rec[kOffScopeState] = scope_state;
  rec[kOffProxy] = proxy ? kProxyBit : 0;
}

// OpenSM's osm_physp_has_pkey: the requester's table holds the group's P_Key base
// (full or limited). A P_Key with base 0 is invalid and lets everyone through; an
// empty table (never read) hides nothing, as everywhere in the SA.
bool requester_holds(const RequestContext& ctx, std::uint16_t pkey) {
  if ((pkey & kPKeyBaseMask) == 0) return true;
  const auto table = access_table(ctx.snap, ctx.requester);
  return table.empty() || table_has_pkey(table, pkey);
}

// The group-wide fields of the query (everything but PortGID, Scope, JoinState).
bool group_matches(const RequestContext& ctx, std::span<const std::uint8_t> q,
                   const McGroupRec& g) {
  if (ctx.has(kMcMemberBitMgid) && !gid_equal(q, kOffMgid, g.mgid)) return false;
  if (ctx.has(kMcMemberBitMlid) && get_be(q, kOffMlid, 2) != g.mlid) return false;
  if (!requester_holds(ctx, g.pkey)) return false;
  if (ctx.has(kMcMemberBitQKey) && get_be(q, kOffQKey, 4) != g.qkey) return false;
  if (ctx.has(kMcMemberBitPKey)) {
    const auto pkey = static_cast<std::uint16_t>(get_be(q, kOffPKey, 2));
    if (((pkey | g.pkey) & kPKeyFullBit) == 0) return false;
    if ((pkey & kPKeyBaseMask) != (g.pkey & kPKeyBaseMask)) return false;
  }
  if (ctx.has(kMcMemberBitTClass) && q[kOffTClass] != g.tclass) return false;
  const auto sfh = static_cast<std::uint32_t>(get_be(q, kOffSlFlowHop, 4));
  if (ctx.has(kMcMemberBitSl) && (sfh >> 28) != (g.sl & 0xfu)) return false;
  if (ctx.has(kMcMemberBitFlowLabel) && (sfh >> 8 & 0xfffff) != (g.flow_label & 0xfffff))
    return false;
  if (ctx.has(kMcMemberBitHopLimit) && (sfh & 0xff) != g.hop_limit) return false;
  // The group record itself is never a proxy join.
  if (ctx.has(kMcMemberBitProxyJoin) && (q[kOffProxy] & kProxyBit) != 0) return false;
  if (ctx.has(kMcMemberBitMtuSel) &&
      !selector_ok(static_cast<std::uint8_t>(q[kOffMtu] >> 6), g.mtu & 0x3f, q[kOffMtu] & 0x3f))
    return false;
  if (ctx.has(kMcMemberBitRateSel) &&
      !selector_ok(static_cast<std::uint8_t>(q[kOffRate] >> 6), rate_rank(g.rate & 0x3f),
                   rate_rank(q[kOffRate] & 0x3f)))
    return false;
  return true;
}

bool enum_valid(const RequestContext& ctx, std::span<const std::uint8_t> q) {
  if (ctx.has(kMcMemberBitMtuSel) && ctx.has(kMcMemberBitMtu)) {
    const std::uint8_t mtu = q[kOffMtu] & 0x3f;
    if (mtu < kMinMtu || mtu > kMaxMtu) return false;
  }
  if (ctx.has(kMcMemberBitRateSel) && ctx.has(kMcMemberBitRate)) {
    const std::uint8_t rate = q[kOffRate] & 0x3f;
    if (rate < kMinRate || rate > kMaxRate) return false;
  }
  return true;
}

HandlerResult query(RequestContext& ctx) {
  // OpenSM answers nothing when it cannot find the requester's port (ERR 1B04); the
  // server already drops those, this keeps the P_Key test below on a real port.
  if (!ctx.requester.valid()) return HandlerResult::silent();
  const RecordLayout& layout = *find_layout(attr::kMcMemberRecord);
  const auto q = ctx.query(layout.padded_size());
  if (!enum_valid(ctx, q)) return HandlerResult::error(status::kReqInvalid);
  HandlerResult r;
  r.words = layout.words();
  // OpenSM's test is "SM_Key non-zero": a wrong key never gets this far.
  const bool trusted = ctx.trusted && ctx.request.header.sm_key != 0;
  std::uint8_t state_mask = 0;
  if (ctx.has(kMcMemberBitScope)) state_mask |= 0xf0;
  if (ctx.has(kMcMemberBitJoinState)) state_mask |= 0x0f;
  const std::uint8_t want_state = q[kOffScopeState] & state_mask;
  Gid want_port{};
  std::copy_n(q.begin() + kOffPortGid, want_port.size(), want_port.begin());
  const Guid want_guid = gid_interface_id(want_port);

  // OpenSM walks its groups in MGID order; the store keeps them in that order, and
  // holds the joins made since the last sweep (sa/mcast/group_store.hpp).
  for (const auto& [mgid, g] : ctx.state.mcast.groups()) {
    if (!group_matches(ctx, q, g)) continue;
    const std::uint8_t scope = static_cast<std::uint8_t>((g.scope & 0xf) << 4);
    if (ctx.has(kMcMemberBitPortGid)) {
      // Ports are members by GUID (OpenSM keys members by the PortGID's interface ID).
      const auto m = std::find_if(g.members.begin(), g.members.end(), [&](const auto& mem) {
        return gid_interface_id(mem.port_gid) == want_guid;
      });
      if (m == g.members.end()) continue;
      const auto state = static_cast<std::uint8_t>(scope | (m->join_state & 0xf));
      if ((state & state_mask) != want_state) continue;
      fill_record(g, r.add(), state, &m->port_gid, m->proxy);
    } else if (trusted) {
      for (const McMember& m : g.members) {
        const auto state = static_cast<std::uint8_t>(scope | (m.join_state & 0xf));
        if ((state & state_mask) != want_state) continue;
        fill_record(g, r.add(), state, &m.port_gid, m.proxy);
      }
    } else {
      const std::uint8_t state = group_scope_state(g);
      if ((state & state_mask) != want_state) continue;
      fill_record(g, r.add(), state, nullptr, false);
    }
    if (enough(ctx, r)) break;
  }
  if (!trusted) {
    const std::size_t size = layout.padded_size();
    for (std::size_t i = 0; i < r.count; ++i) {
      const std::span<std::uint8_t> rec(r.records.data() + i * size, size);
      std::fill_n(rec.begin() + kOffPortGid, 16, std::uint8_t{0});
      rec[kOffScopeState] &= 0xf0;
      rec[kOffProxy] = 0;
    }
  }
  return r;
}

}  // namespace

HandlerResult handle_mcmember_record(RequestContext& ctx) {
  switch (ctx.method()) {
    case method::kGet:
    case method::kGetTable:
      return query(ctx);
    case method::kSet:
      return handle_mcmember_join(ctx);
    case method::kDelete:
      return handle_mcmember_leave(ctx);
    default:
      return HandlerResult::error(status::kMethodAttrUnsupported);
  }
}

}  // namespace ibsm::sa
