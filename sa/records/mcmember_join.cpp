// MCMemberRecord Set (join, creating the group when needed) and Delete (leave),
// IBA 15.2.5.17 and o15-0.1.x / o15-0.2.x, with OpenSM 3.3's choices
// (osm_sa_mcmember_record.c mcmr_rcv_join_mgrp / mcmr_rcv_leave_mgrp,
// osm_multicast.c osm_mgrp_add_port / osm_mgrp_remove_port). The rules themselves
// are in sa/mcast/join_rules.hpp; this file applies them in OpenSM's order (which
// decides the status when several fail) against the group store in SaState.
//
// Every change of a group's member set marks its MLID dirty in the store (the SM
// reprograms those MFTs after the reply left); a group whose full-member count goes
// 0→1 or back to 0 is queued for trap 66/67, which the SaServer delivers once this
// handler returns. A created group goes with its last full member and gives its
// MLID back to the store; the groups partitions.conf creates stay.
//
// disable_multicast: OpenSM's SA serves joins and leaves regardless (the option
// only clears ClassPortInfo's UD-multicast bit and skips MFT programming), and so
// does this handler; the SM side does not program the MFTs.
#include <algorithm>
#include <array>
#include <cstring>

#include "sa/handlers.hpp"
#include "sa/mcast/join_rules.hpp"
#include "sa/path_resolver.hpp"
#include "sa/records/record_util.hpp"
#include "sa/state.hpp"

namespace ibsm::sa {

namespace {

using mcast::McRequest;
namespace bit = mcast::bit;

constexpr std::uint64_t kDefaultPrefix = 0xfe80000000000000ull;  // IBA 4.1.1 link-local
constexpr std::size_t kRecordBytes = 52;
constexpr unsigned kMgidTries = 1000;  // OpenSM build_new_mgid's bound

std::uint64_t gid_prefix(const Gid& g) {
  return get_be(g, 0, 8);
}
void set_prefix(Gid& g, std::uint64_t prefix) {
  put_be(g, 0, prefix, 8);
}

// The PortGID as the group keeps it: OpenSM replaces the link-local prefix by the
// subnet's (o15-0.2.x GIDs are compared with the subnet prefix); any other prefix
// must be the subnet's, else ERR_REQ_INVALID_GID.
bool normalize_port_gid(const RequestContext& ctx, McRequest& r) {
  if (gid_prefix(r.port_gid) == kDefaultPrefix) set_prefix(r.port_gid, ctx.snap.subnet_prefix);
  return gid_prefix(r.port_gid) == ctx.snap.subnet_prefix;
}

// The end port (or switch port 0) a PortGID names, alias GUIDs included
// (IBA 15.2.5.18: alias GUIDs are port GUIDs as far as the SA is concerned).
PortRef port_of_gid(const RequestContext& ctx, const Gid& gid, Guid& base) {
  base = gid_interface_id(gid);
  PortRef p = ctx.snap.find_port_guid(base);
  if (p.valid()) return p;
  base = ctx.state.aliases.port_of(gid_interface_id(gid));
  if (base == 0) return {};
  return ctx.snap.find_port_guid(base);
}

// osm_physp_has_pkey: a P_Key with base 0 lets everyone in; an empty table (never
// read) hides nothing, as everywhere in the SA.
bool port_holds(const Snapshot& snap, PortRef p, std::uint16_t pkey) {
  if ((pkey & kPKeyBaseMask) == 0) return true;
  const auto table = access_table(snap, p);
  return table.empty() || table_has_pkey(table, pkey);
}

// Members are the ports by the GUID half of their PortGID (McMembers' index).
McMember* find_member(McGroupRec& g, Guid guid) {
  return g.members.find(guid);
}

// o15-0.2.1 (OpenSM validate_modify): a member that joined for itself is changed
// only by its own port; a proxy member by any port of the group's partition.
bool may_modify(const RequestContext& ctx, const McGroupRec& g, const McMember& m) {
  if (!m.proxy) return ctx.snap.port(ctx.requester).guid == m.port_guid;
  return port_holds(ctx.snap, ctx.requester, g.pkey);
}

// The reply: the request's record with the group's fields (a join; OpenSM's
// copy_from_create_mc_rec), the member's JoinState and the group's scope; the
// PortGID keeps the prefix the request used.
void put_reply(HandlerResult& out, std::span<const std::uint8_t> q, const McGroupRec* g,
               std::uint8_t join_state, std::uint8_t scope) {
  auto rec = out.add();
  std::copy_n(q.begin(), std::min(q.size(), rec.size()), rec.begin());
  if (g != nullptr) {
    std::copy(g->mgid.begin(), g->mgid.end(), rec.begin());
    put_be(rec, 32, g->qkey, 4);
    put_be(rec, 36, g->mlid, 2);
    rec[38] = static_cast<std::uint8_t>(selector::kExactly << 6 | (g->mtu & 0x3f));
    rec[39] = g->tclass;
    put_be(rec, 40, g->pkey, 2);
    rec[42] = static_cast<std::uint8_t>(selector::kExactly << 6 | (g->rate & 0x3f));
    rec[43] = static_cast<std::uint8_t>(selector::kExactly << 6 | (g->packet_life & 0x3f));
    put_be(rec, 44,
           (std::uint32_t{g->sl} & 0xf) << 28 | (g->flow_label & 0xfffff) << 8 | g->hop_limit, 4);
  }
  // Every reply, a leave's echo included, carries selector 2 (OpenSM mcmr_rcv_respond).
  for (const std::size_t off : {38u, 42u, 43u})
    rec[off] = static_cast<std::uint8_t>(selector::kExactly << 6 | (rec[off] & 0x3f));
  rec[48] = static_cast<std::uint8_t>((scope & 0x0f) << 4 | (join_state & 0x0f));
}

// An SA-chosen MGID no group has (OpenSM build_new_mgid), nullopt after its tries.
std::optional<Gid> new_mgid(RequestContext& ctx, const McRequest& r) {
  // Link-local unless the request names a scope: such an MGID cannot collide with
  // another subnet's.
  const std::uint8_t scope = r.has(bit::kScope) ? r.scope : 2;
  for (unsigned i = 0; i < kMgidTries; ++i) {
    const Gid g =
        mcast::sa_assigned_mgid(scope, ctx.snap.subnet_prefix, ctx.state.mcast.next_mgid_counter());
    if (ctx.state.mcast.find(g) == nullptr) return g;
  }
  return std::nullopt;
}

// The group a create would make (not yet in the store), or a status.
std::uint16_t plan_group(RequestContext& ctx, McRequest& r, const SnapPort& port, McGroupRec& g) {
  if (std::all_of(r.mgid.begin(), r.mgid.end(), [](std::uint8_t b) { return b == 0; })) {
    const auto mgid = new_mgid(ctx, r);
    if (!mgid) return status::kNoResources;
    r.mgid = *mgid;
  } else if (ctx.settings.ipoib_mcgroup_creation_validation) {
    if (!mcast::requested_mgid_valid(r.mgid)) return status::kReqInvalid;
    // RFC 4391: every IPoIB group of a partition uses the broadcast group's
    // parameters; a create that names others would split the IPoIB link.
    if (const auto bcast = mcast::ipoib_broadcast_for(r.mgid)) {
      const McGroupRec* b = ctx.state.mcast.find(*bcast);
      if (b == nullptr || !mcast::other_fields_match(r, *b)) return status::kReqInvalid;
    }
  }
  const bool extended = (port.info.capability_mask & kCapExtendedSpeeds) != 0;
  const auto mtu = mcast::create_mtu(r, port.info.neighbor_mtu);
  auto rate = mcast::create_rate(r, port_rate(port.info, extended, extended_speeds2(port.info)));
  if (!mtu || !rate) return status::kReqInvalid;
  if (ctx.settings.max_rate_enum != 0) rate = limit_rate(*rate, ctx.settings.max_rate_enum);
  // The group takes the request's record as it came (OpenSM copies it whole), so
  // unmasked fields count with the values the client left in them.
  g.mgid = r.mgid;
  g.qkey = r.qkey;
  g.pkey = r.pkey;
  g.mtu = *mtu;
  g.rate = *rate;
  g.packet_life = r.life;
  g.sl = r.sl;
  g.flow_label = r.flow_label;
  g.hop_limit = r.hop_limit;
  g.tclass = r.tclass;
  g.scope = r.scope;
  g.well_known = false;
  return status::kOk;
}

// Puts a planned group in the store with an MLID: the requested one when free, a
// consolidated IPv6 solicited-node MLID when configured, else the lowest free.
McGroupRec* create_group(RequestContext& ctx, const McRequest& r, McGroupRec g) {
  McGroupStore& store = ctx.state.mcast;
  if (ctx.settings.consolidate_ipv6_snm_req && mcast::is_ipv6_snm(g.mgid)) {
    const bool wanted_free = r.mlid >= 0xC000 && store.by_mlid(r.mlid).empty();
    if (!wanted_free) {
      for (const auto& [mgid, other] : store.groups()) {
        if (mcast::same_snm_family(mgid, g.mgid))
          return store.create_shared(std::move(g), other.mlid);
      }
    }
  }
  std::optional<Lid> wanted;
  if (r.mlid != 0) wanted = r.mlid;
  return store.create(std::move(g), wanted);
}

// The limits of sa/limits.hpp for a join by `requester` that would create a group
// and/or add a membership: ERR_NO_RESOURCES (OpenSM's status when it cannot
// allocate a group or a member) when one is reached.
std::uint16_t within_limits(RequestContext& ctx, Guid requester, bool create, bool new_member) {
  McGroupStore& store = ctx.state.mcast;
  const SaSettings& s = ctx.settings;
  if (create) {
    const Admit a = admit(store.groups_created_by(requester), s.max_mcast_groups_per_port, 0, 1);
    if (a != Admit::kYes) {
      note_refusal(ctx.log, ctx.state.refused.mcast_groups, "created multicast groups", a,
                   requester, ctx.from.lid, s.max_mcast_groups_per_port);
      return status::kNoResources;
    }
  }
  if (new_member) {
    const std::size_t total = s.max_mcast_memberships;
    const Admit a = admit(store.memberships_of(requester), s.max_mcast_memberships_per_port,
                          store.memberships_total(total), total);
    if (a != Admit::kYes) {
      note_refusal(ctx.log, ctx.state.refused.mcast_memberships, "multicast memberships", a,
                   requester, ctx.from.lid,
                   a == Admit::kPortFull ? s.max_mcast_memberships_per_port : total);
      return status::kNoResources;
    }
  }
  return status::kOk;
}

HandlerResult do_join(RequestContext& ctx) {
  const auto q = ctx.query(kRecordBytes);
  McRequest r = mcast::decode_request(q, ctx.comp_mask());
  if (!r.has(mcast::kJoinMask)) return HandlerResult::error(status::kInsufficientComponents);
  if (!mcast::enums_valid(r)) return HandlerResult::error(status::kReqInvalid);
  if (!normalize_port_gid(ctx, r)) return HandlerResult::error(status::kReqInvalidGid);
  Guid base = 0;
  const PortRef port = port_of_gid(ctx, r.port_gid, base);
  if (!port.valid()) return HandlerResult::error(status::kReqInvalid);
  // A join for another port (proxy join, o15-0.1.2) needs a partition in common.
  const bool proxy = ctx.snap.port(ctx.requester).guid != base;
  if (proxy && !ports_share_pkey(ctx.snap, port, ctx.requester))
    return HandlerResult::error(status::kReqInvalid);
  if (r.has(bit::kPKey) && (r.pkey & kPKeyBaseMask) == 0)
    return HandlerResult::error(status::kReqInvalid);

  McGroupStore& store = ctx.state.mcast;
  const SnapPort& sp = ctx.snap.port(port);
  McGroupRec* g = store.find(r.mgid);
  McGroupRec planned;
  const bool create = g == nullptr;
  if (create) {
    // o15-0.1.9: only a full member may create a group.
    if ((r.join_state & mcast::kFullBits) == 0) return HandlerResult::error(status::kReqInvalid);
    if (!r.has(mcast::kCreateMask)) return HandlerResult::error(status::kInsufficientComponents);
    if (const auto st = plan_group(ctx, r, sp, planned); st != status::kOk)
      return HandlerResult::error(st);
    g = &planned;
  } else if (ctx.settings.mcgroup_join_validation && !mcast::other_fields_match(r, *g)) {
    return HandlerResult::error(status::kReqInvalid);
  }
  // o15-0.2.4 items 3 and 5, and a port that can carry the group's MTU and rate.
  const bool extended = (sp.info.capability_mask & kCapExtendedSpeeds) != 0;
  if (!mcast::selectors_match(r, *g) ||
      !mcast::port_can_carry(*g, sp.info.neighbor_mtu,
                             port_rate(sp.info, extended, extended_speeds2(sp.info))) ||
      r.join_state == 0)
    return HandlerResult::error(status::kReqInvalid);
  // C15-0.1.x: a port joins only groups of partitions it is in.
  if (!port_holds(ctx.snap, port, g->pkey)) return HandlerResult::error(status::kReqInvalid);
  if (!create) {
    if (const McMember* m = find_member(*g, gid_interface_id(r.port_gid));
        m && !may_modify(ctx, *g, *m))
      return HandlerResult::error(status::kReqInvalid);
  }
  const Guid requester = ctx.snap.port(ctx.requester).guid;
  const bool new_member = create || find_member(*g, gid_interface_id(r.port_gid)) == nullptr;
  if (const auto st = within_limits(ctx, requester, create, new_member); st != status::kOk)
    return HandlerResult::error(st);
  if (create) {
    planned.creator = requester;
    g = create_group(ctx, r, std::move(planned));
    if (g == nullptr) return HandlerResult::error(status::kNoResources);
    store.note_created(requester, g->mgid);
  }

  const bool had_full = g->has_full_member();
  McMember* m = find_member(*g, gid_interface_id(r.port_gid));
  if (m == nullptr) {
    m = &g->members.push_back({r.port_gid, base, r.join_state, proxy, requester});
    store.note_membership(requester, g->mgid, gid_interface_id(r.port_gid));
    store.mark_dirty(g->mlid);
  } else if ((m->join_state | r.join_state) != m->join_state) {
    m->join_state = static_cast<std::uint8_t>(m->join_state | r.join_state);
    store.mark_dirty(g->mlid);
  }
  if (!had_full && g->has_full_member()) store.note_change(true, *g);
  ctx.log->debug("SA: port 0x{:016x} joined MLID 0x{:04x} with JoinState 0x{:x} (now 0x{:x})", base,
                 g->mlid, r.join_state, m->join_state);

  HandlerResult out;
  out.words = static_cast<std::uint16_t>((kRecordBytes + 7) / 8);
  put_reply(out, q, g, m->join_state, g->scope);
  return out;
}

HandlerResult do_leave(RequestContext& ctx) {
  const auto q = ctx.query(kRecordBytes);
  McRequest r = mcast::decode_request(q, ctx.comp_mask());
  if (!r.has(mcast::kJoinMask)) return HandlerResult::error(status::kInsufficientComponents);
  if (!mcast::enums_valid(r)) return HandlerResult::error(status::kReqInvalid);
  if (!normalize_port_gid(ctx, r)) return HandlerResult::error(status::kReqInvalidGid);
  McGroupStore& store = ctx.state.mcast;
  McGroupRec* g = store.find(r.mgid);
  if (g == nullptr) return HandlerResult::error(status::kReqInvalid);
  // o15-0.1.14: a member, bits it holds, from a port allowed to change it.
  const Guid guid = gid_interface_id(r.port_gid);
  McMember* m = find_member(*g, guid);
  if (m == nullptr || !mcast::leave_bits_valid(m->join_state, r.join_state) ||
      !may_modify(ctx, *g, *m))
    return HandlerResult::error(status::kReqInvalid);

  const bool had_full = g->has_full_member();
  const bool others_full = std::any_of(
      g->members.begin(), g->members.end(),
      [&](const McMember& o) { return &o != m && (o.join_state & mcast::kFullBits) != 0; });
  const std::uint8_t left = mcast::state_after_leave(m->join_state, r.join_state, others_full);
  const Guid base = m->port_guid;
  if (left != 0)
    m->join_state = left;
  else
    g->members.erase_if([&](const McMember& o) { return gid_interface_id(o.port_gid) == guid; });
  store.mark_dirty(g->mlid);
  ctx.log->debug("SA: port 0x{:016x} left MLID 0x{:04x} with JoinState 0x{:x} (now 0x{:x})", base,
                 g->mlid, r.join_state, left);

  HandlerResult out;
  out.words = static_cast<std::uint16_t>((kRecordBytes + 7) / 8);
  put_reply(out, q, nullptr, left, g->scope);
  if (had_full && !g->has_full_member()) {
    store.note_change(false, *g);
    // The group is over with its last full member (IBA 15.2.5.17.2): a created group
    // goes, MLID and all; a configured one stays but loses its remaining members,
    // as OpenSM's osm_mgrp_cleanup does.
    if (g->well_known) {
      g->members.clear();
    } else {
      store.erase(g->mgid);
    }
  }
  return out;
}

}  // namespace

HandlerResult handle_mcmember_join(RequestContext& ctx) {
  return do_join(ctx);
}

HandlerResult handle_mcmember_leave(RequestContext& ctx) {
  return do_leave(ctx);
}

}  // namespace ibsm::sa
