// GUIDInfoRecord (IBA 15.2.5.18): the GUID table of every end port and switch
// port 0, as OpenSM's osm_sa_guidinfo_record.c serves it. Without alias GUIDs a
// port's block 0 holds its port GUID at index 0 and zeros; with them, the alias
// table the SA keeps (sa/alias_guids.hpp). Set and Delete change alias GUIDs of
// the port a LID names and answer with the block as it now stands.
#include "sa/alias_guids.hpp"
#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"
#include "sa/records/topology_util.hpp"
#include "sa/state.hpp"

namespace ibsm::sa {

namespace {

constexpr unsigned kGuidInfoBitLid = 0;
constexpr unsigned kGuidInfoBitBlock = 1;
constexpr unsigned kGuidInfoBitGuid0 = 4;
constexpr std::uint64_t kGuidBits = 0xFFull << kGuidInfoBitGuid0;
constexpr std::size_t kOffGuids = 8;

// The GUID component bits of a mask as a byte, bit i = GUID i.
std::uint8_t guid_mask(std::uint64_t comp_mask) {
  return static_cast<std::uint8_t>((comp_mask & kGuidBits) >> kGuidInfoBitGuid0);
}

GuidBlock query_guids(std::span<const std::uint8_t> q) {
  GuidBlock b{};
  for (std::size_t i = 0; i < kGuidsPerBlock; ++i)
    b[i] = get_be(q, kOffGuids + 8 * i, 8);
  return b;
}

void put_guids(std::span<std::uint8_t> rec, const GuidBlock& b) {
  for (std::size_t i = 0; i < kGuidsPerBlock; ++i)
    put_be(rec, kOffGuids + 8 * i, b[i], 8);
}

// True when a multicast group holds `alias` as a member GUID (such an alias may
// not be deleted, OpenSM's osm_mgrp_get_mcm_alias_guid check).
bool group_holds(const McGroupStore& groups, Guid alias) {
  for (const auto& [mgid, g] : groups.groups())
    for (const McMember& m : g.members)
      if (get_be(m.port_gid, 8, 8) == alias) return true;
  return false;
}

HandlerResult get_records(RequestContext& ctx, const RecordLayout& layout) {
  HandlerResult r;
  r.words = layout.words();
  const auto query = ctx.query(layout.padded_size());
  const Lid want_lid = ctx.has(kGuidInfoBitLid) ? static_cast<Lid>(get_be(query, 0, 2)) : 0;
  const std::uint8_t want_block = query[2];
  const GuidBlock want = query_guids(query);
  // OpenSM's rules for the GUID components of a query: GUID0 of block 0 must be
  // the requester's own port GUID and then selects that port only; every other
  // selected GUID must be 0 in the query and selects nothing.
  Guid only_port = 0;
  if (ctx.has(kGuidInfoBitGuid0)) {
    if (want_block == 0) only_port = ctx.snap.port(ctx.requester).guid;
    if (want[0] != only_port) return r;
  }
  for (std::size_t i = 1; i < kGuidsPerBlock; ++i)
    if (ctx.has(kGuidInfoBitGuid0 + static_cast<unsigned>(i)) && want[i] != 0) return r;

  std::vector<std::uint8_t> cand(layout.padded_size());
  auto consider = [&](PortRef p) {
    const SnapPort& port = ctx.snap.port(p);
    if (!visible(ctx, p)) return;
    if (only_port != 0 && port.guid != only_port) return;
    // GUIDCap 0: no GUID table here (OpenSM's stand-in for "switch external port").
    if (port.info.guid_cap == 0) return;
    const std::size_t blocks =
        (std::size_t{port.info.guid_cap} + kGuidsPerBlock - 1) / kGuidsPerBlock;
    std::size_t first = 0;
    std::size_t last = blocks - 1;
    if (ctx.has(kGuidInfoBitBlock)) {
      if (want_block >= blocks) return;
      first = last = want_block;
    }
    const LidRange range = lid_range(ctx.snap, p);
    if (want_lid != 0 && !range.contains(want_lid)) return;
    const std::vector<Guid>* aliases = ctx.state.aliases.table(port.guid);
    for (std::size_t b = first; b <= last; ++b) {
      std::fill(cand.begin(), cand.end(), 0);
      put_be(cand, 0, range.base, 2);
      cand[2] = static_cast<std::uint8_t>(b);
      GuidBlock guids{};
      if (aliases != nullptr) {
        for (std::size_t i = 0; i < kGuidsPerBlock; ++i) {
          const std::size_t at = b * kGuidsPerBlock + i;
          if (at < aliases->size()) guids[i] = (*aliases)[at];
        }
      } else if (b == 0) {
        guids[0] = port.guid;
      }
      put_guids(cand, guids);
      const std::uint64_t custom =
          (1ull << kGuidInfoBitLid) | (1ull << kGuidInfoBitBlock) | kGuidBits;
      if (!matches_except(layout, ctx, query, cand, custom)) continue;
      auto out = r.add();
      std::copy(cand.begin(), cand.end(), out.begin());
      if (enough(ctx, r)) return;
    }
  };
  for (std::uint32_t idx : nodes_in_opensm_order(ctx.snap, false)) {
    const SnapNode& n = ctx.snap.nodes[idx];
    // A switch has one GUID table, port 0's.
    const std::size_t ports =
        n.is_switch() ? std::min<std::size_t>(1, n.ports.size()) : n.ports.size();
    for (std::size_t p = 0; p < ports; ++p) {
      if (!n.ports[p].present || (!n.is_switch() && p == 0)) continue;
      consider(PortRef{n.index, static_cast<PortNum>(p)});
      if (enough(ctx, r)) return r;
    }
  }
  return r;
}

// Set/Delete (IBA 15.2.5.18, OpenSM set_guidinfo/del_guidinfo): LID and BlockNum
// name the block; the GUID components select the entries.
HandlerResult modify(RequestContext& ctx, const RecordLayout& layout) {
  if ((ctx.comp_mask() & ((1ull << kGuidInfoBitLid) | (1ull << kGuidInfoBitBlock))) !=
      ((1ull << kGuidInfoBitLid) | (1ull << kGuidInfoBitBlock)))
    return HandlerResult::error(status::kInsufficientComponents);
  if (!ctx.requester.valid()) return HandlerResult::silent();
  const auto query = ctx.query(layout.padded_size());
  const PortRef port = ctx.snap.find_lid(static_cast<Lid>(get_be(query, 0, 2)));
  if (!port.valid()) return HandlerResult::error(status::kNoRecords);
  // Outside the requester's partitions the port does not exist: no answer (OpenSM).
  if (!visible(ctx, port)) return HandlerResult::silent();
  ctx.state.aliases.sync(ctx.snap);
  const std::uint8_t block = query[2];
  const std::uint8_t mask = guid_mask(ctx.comp_mask());
  const AliasGuids::Outcome o =
      ctx.method() == method::kSet
          ? ctx.state.aliases.set(ctx.snap, port, block, mask, query_guids(query),
                                  ctx.settings.sm_assigned_guid)
          : ctx.state.aliases.remove(ctx.snap, port, block, mask,
                                     [&](Guid g) { return group_holds(ctx.state.mcast, g); });
  if (o.status != status::kOk) return HandlerResult::error(o.status);
  HandlerResult r;
  r.words = layout.words();
  auto out = r.add();
  std::copy(query.begin(), query.end(), out.begin());
  if (!o.echo) put_guids(out, o.block);
  if (o.status == status::kOk && !o.echo)
    ctx.log->debug("SA: GUIDInfo {} of port 0x{:016x} block {} by LID {}",
                   ctx.method() == method::kSet ? "set" : "delete", ctx.snap.port(port).guid, block,
                   ctx.from.lid);
  return r;
}

}  // namespace

HandlerResult handle_guid_info_record(RequestContext& ctx) {
  const RecordLayout& layout = *find_layout(attr::kGuidInfoRecord);
  if (ctx.method() == method::kSet || ctx.method() == method::kDelete) return modify(ctx, layout);
  // OpenSM answers no GUIDInfoRecord query from a LID it does not know.
  if (!ctx.requester.valid()) return HandlerResult::silent();
  ctx.state.aliases.sync(ctx.snap);
  return get_records(ctx, layout);
}

}  // namespace ibsm::sa
