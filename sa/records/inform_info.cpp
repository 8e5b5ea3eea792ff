// InformInfo (IBA 13.4.8.3, Set only) and InformInfoRecord (15.2.5.12), as
// OpenSM's osm_sa_informinfo.c serves them.
//
// Set(InformInfo) subscribes (Subscribe 1) or unsubscribes (0) the sender's
// port, at the address the Set came from, to the notices the InformInfo
// describes. The answer is a GetResp echoing the InformInfo (o13-12.1.1); a
// refused subscribe or unsubscribe echoes it with Subscribe 0 (o13-13.1.1).
// Refused with 0x0200: a sender whose LID no port holds, Subscribe > 1, the
// security traps 256-259 from an untrusted requester (C15-0.2-1.16), a source
// (GID, or LID range unless it begins at 0xFFFF) the sender shares no partition
// with (o13-14.1.1), and an unsubscribe that names no subscription.
//
// InformInfoRecord lists the subscriptions (SubscriberGID and Enum are the only
// selectable fields, as in OpenSM) of ports the requester shares a partition
// with; the QPN reads 0 unless the request is trusted (C15-0.2-1.16).
#include <algorithm>

#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"
#include "sa/state.hpp"

namespace ibsm::sa {

namespace {

constexpr unsigned kBitSubscriberGid = 0;
constexpr unsigned kBitEnum = 1;
constexpr std::size_t kRecordInfoOffset = 24;  // InformInfo inside an InformInfoRecord

bool is_security_trap(const InformInfoBytes& info) {
  const std::uint16_t t = be16(info, inform_field::kTrapNumber);
  return info[inform_field::kIsGeneric] != 0 && t >= trap::kBadMKey && t <= trap::kBadSwitchPKey;
}

// The highest LID a port holds: OpenSM's LID table reaches no further, and a
// LID range beginning beyond it names nothing that exists.
Lid highest_lid(const Snapshot& s) {
  for (std::size_t l = s.by_lid.size(); l-- > 1;)
    if (s.by_lid[l].valid()) return static_cast<Lid>(l);
  return 0;
}

// o13-14.1.1 (OpenSM validate_ports_access_rights): the subscriber must share a
// partition with the trap source it names, or with every port of its LID range;
// LIDRangeBegin 0xFFFF asks for all sources and is not checked.
bool may_subscribe(const RequestContext& ctx, const InformInfoBytes& info) {
  const Snapshot& s = ctx.snap;
  const std::span<const std::uint8_t, 16> gid(info.data() + inform_field::kGid, 16);
  if (std::any_of(gid.begin(), gid.end(), [](std::uint8_t b) { return b != 0; })) {
    const PortRef source = s.find_port_guid(gid_interface_id(gid));
    return source.valid() && ports_share_pkey(s, source, ctx.requester);
  }
  const std::uint16_t begin = be16(info, inform_field::kLidBegin);
  if (begin == 0xFFFF) return true;
  const std::size_t size = std::size_t{highest_lid(s)} + 1;
  std::size_t end = be16(info, inform_field::kLidEnd);
  if (end == 0) {
    end = begin;  // LIDRangeEnd 0: a single LID
  } else if (end >= size) {
    end = size - 1;
  }
  if (begin >= size) return false;
  for (std::size_t lid = begin; lid <= end; ++lid) {
    const PortRef p = s.find_lid(static_cast<Lid>(lid));
    if (p.valid() && !ports_share_pkey(s, p, ctx.requester)) return false;
  }
  return true;
}

HandlerResult echo(std::uint16_t st, const InformInfoBytes& info, bool clear_subscribe) {
  HandlerResult r;
  r.words = static_cast<std::uint16_t>((kInformInfoSize + 7) / 8);
  r.status = st;
  auto out = r.add();
  std::copy(info.begin(), info.end(), out.begin());
  if (clear_subscribe) out[inform_field::kSubscribe] = 0;
  return r;
}

}  // namespace

HandlerResult handle_inform_info(RequestContext& ctx) {
  InformInfoBytes info{};
  const auto q = ctx.query(kInformInfoSize);
  std::copy(q.begin(), q.end(), info.begin());
  if (!ctx.requester.valid()) {
    ctx.log->info("SA: InformInfo Set from LID {}, which no port holds, refused", ctx.from.lid);
    return echo(status::kReqInvalid, info, false);
  }
  const std::uint8_t subscribe = info[inform_field::kSubscribe];
  if (subscribe > 1) return echo(status::kReqInvalid, info, false);
  if (!ctx.trusted && is_security_trap(info)) {
    ctx.log->info("SA: subscription to security trap {} from untrusted LID {} refused",
                  be16(info, inform_field::kTrapNumber), ctx.from.lid);
    return echo(status::kReqInvalid, info, false);
  }

  Subscription s;
  s.subscriber_gid = make_gid(ctx.snap.subnet_prefix, ctx.snap.port(ctx.requester).guid);
  s.report_addr = ctx.from;
  s.info = info;
  InformStore& store = ctx.state.informs;
  if (subscribe == 1) {
    // Reports go to the QP the Set came from (C13-32.1.2): the stored QPN is
    // that one, whatever the request carried; RespTimeValue is kept.
    put_be(s.info, inform_field::kQpnRespTime, ctx.from.qpn & 0xFFFFFF, 3);
    if (!may_subscribe(ctx, s.info)) return echo(status::kReqInvalid, info, true);
    // The subscriber port is charged for it (sa/limits.hpp); OpenSM answers a
    // subscription it cannot allocate with ERR_NO_RESOURCES and Subscribe 0 (o13-13.1.1).
    const InformStore::Bounds bounds{ctx.settings.max_inform_info_per_port,
                                     ctx.settings.max_inform_info};
    if (const Admit a = store.subscribe(s, bounds); a != Admit::kYes) {
      note_refusal(ctx.log, ctx.state.refused.inform_infos, "InformInfo subscriptions", a,
                   ctx.snap.port(ctx.requester).guid, ctx.from.lid,
                   a == Admit::kPortFull ? bounds.per_port : bounds.total);
      return echo(status::kNoResources, info, true);
    }
    ctx.log->debug("SA: LID {} QPN 0x{:x} subscribed to trap 0x{:x} (type 0x{:x})", ctx.from.lid,
                   ctx.from.qpn, be16(info, inform_field::kTrapNumber),
                   be16(info, inform_field::kType));
  } else {
    // An unsubscribe names the subscription with the QPN it was made from.
    if (!store.unsubscribe(s)) return echo(status::kReqInvalid, info, true);
    ctx.log->debug("SA: LID {} unsubscribed from trap 0x{:x}", ctx.from.lid,
                   be16(info, inform_field::kTrapNumber));
  }
  return echo(status::kOk, info, false);
}

HandlerResult handle_inform_info_record(RequestContext& ctx) {
  // OpenSM does not answer a requester whose LID it does not know (ERR 4309).
  if (!ctx.requester.valid()) return HandlerResult::silent();
  const RecordLayout& layout = *find_layout(attr::kInformInfoRecord);
  const auto query = ctx.query(layout.padded_size());
  HandlerResult r;
  r.words = layout.words();
  for (const Subscription& s : ctx.state.informs.subscriptions()) {
    if (ctx.has(kBitSubscriberGid) &&
        !std::equal(s.subscriber_gid.begin(), s.subscriber_gid.end(), query.begin()))
      continue;
    if (ctx.has(kBitEnum) && be16(query, 16) != s.subscriber_enum) continue;
    const PortRef subscriber = ctx.snap.find_port_guid(gid_interface_id(s.subscriber_gid));
    if (!subscriber.valid()) continue;  // OpenSM ERR 430D: not listed
    if (!ports_share_pkey(ctx.snap, ctx.requester, subscriber)) continue;
    auto out = r.add();
    std::copy(s.subscriber_gid.begin(), s.subscriber_gid.end(), out.begin());
    put_be(out, 16, s.subscriber_enum, 2);
    std::copy(s.info.begin(), s.info.end(), out.begin() + kRecordInfoOffset);
    if (!ctx.trusted) put_be(out, kRecordInfoOffset + inform_field::kQpnRespTime, 0, 3);
    if (enough(ctx, r)) break;
  }
  return r;
}

}  // namespace ibsm::sa
