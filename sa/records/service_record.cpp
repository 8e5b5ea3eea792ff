// ServiceRecord (IBA 15.2.5.14) as OpenSM's osm_sa_service_record.c serves it:
//  - Set registers a service, or updates the one with the same RID (ServiceID,
//    ServiceGID, ServiceP_Key); ServiceID and ServiceGID must be in the
//    component mask; without ServiceLease the lease is infinite; the answer
//    shows ServiceP_Key 0xFFFF when the mask had none.
//  - Delete removes the record with the request's RID and returns it.
//  - Get/GetTable match every masked field (the reserved field and the lease
//    excepted, as OpenSM) and hide records whose ServiceP_Key the requester
//    does not hold.
//  - Set and Delete with ServiceP_Key masked need the requester, and the port
//    of a unicast ServiceGID, to hold that P_Key.
//  - ServiceKey reads 0 unless the request is trusted (IBA C15-0.2-1.x, p. 923).
#include "common/display_text.hpp"
#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"
#include "sa/state.hpp"

namespace ibsm::sa {

namespace {

constexpr unsigned kServiceBitId = 0;
constexpr unsigned kServiceBitGid = 1;
constexpr unsigned kServiceBitPKey = 2;
constexpr unsigned kServiceBitReserved = 3;
constexpr unsigned kServiceBitLease = 4;

// OpenSM's osm_physp_has_pkey: the base P_Key is in the port's table, whatever
// the membership; an invalid P_Key (base 0, IBA C10-116) restricts nothing.
// A table that was not read hides nothing (sa/pkey_access.hpp).
bool holds_pkey(const Snapshot& s, PortRef p, std::uint16_t pkey) {
  if ((pkey & kPKeyBaseMask) == 0) return true;
  const auto table = access_table(s, p);
  return table.empty() || table_has_pkey(table, pkey);
}

std::uint16_t record_pkey(std::span<const std::uint8_t> rec) {
  return static_cast<std::uint16_t>(get_be(rec, service_field::kPKey, 2));
}

// OpenSM's validate_sr for Set and Delete: with ServiceP_Key in the mask, the
// requester and the port of a unicast ServiceGID must hold it.
bool pkey_rules_allow(const RequestContext& ctx, std::span<const std::uint8_t> rec) {
  if (!ctx.requester.valid()) return false;
  if (!ctx.has(kServiceBitPKey)) return true;
  const std::uint16_t pkey = record_pkey(rec);
  if (!holds_pkey(ctx.snap, ctx.requester, pkey)) return false;
  const bool multicast = rec[service_field::kGid] == 0xFF;
  if (ctx.has(kServiceBitGid) && !multicast) {
    const PortRef port = ctx.snap.find_port_guid(get_be(rec, service_field::kGid + 8, 8));
    if (!port.valid() || !holds_pkey(ctx.snap, port, pkey)) return false;
  }
  return true;
}

// Appends a record to the answer, ServiceKey cleared for an untrusted requester.
void add_record(HandlerResult& r, const RequestContext& ctx, std::span<const std::uint8_t> rec) {
  auto out = r.add();
  std::copy_n(rec.begin(), kServiceRecordSize, out.begin());
  if (!ctx.trusted) std::fill_n(out.begin() + service_field::kKey, 16, std::uint8_t{0});
}

// An error answer echoing the request's record, as OpenSM's osm_sa_send_error does.
HandlerResult refuse(std::uint16_t st, std::span<const std::uint8_t> query) {
  HandlerResult r;
  r.words = static_cast<std::uint16_t>(kServiceRecordSize / 8);
  r.status = st;
  auto out = r.add();
  std::copy_n(query.begin(), kServiceRecordSize, out.begin());
  return r;
}

// ServiceName (64 bytes, NUL-padded) as the log shows it: display text. The record
// itself keeps the bytes the client registered (they are its key).
std::string service_name(std::span<const std::uint8_t> rec) {
  return text::display_text({reinterpret_cast<const char*>(rec.data() + service_field::kName), 64});
}

HandlerResult set_service(RequestContext& ctx, const std::vector<std::uint8_t>& query) {
  if (!pkey_rules_allow(ctx, query)) return refuse(status::kReqInvalid, query);
  // 15.2.5.14.2: the RID must be named (OpenSM: ServiceID and ServiceGID).
  if (!ctx.has(kServiceBitId) || !ctx.has(kServiceBitGid))
    return refuse(status::kReqInvalid, query);
  ServiceRecordBytes rec{};
  std::copy_n(query.begin(), kServiceRecordSize, rec.begin());
  if (!ctx.has(kServiceBitLease)) put_be(rec, service_field::kLease, kInfiniteLease, 4);
  // The port that registers a record is charged for it (sa/limits.hpp); an update of
  // an existing RID is not a new record.
  const std::uint64_t owner = ctx.snap.port(ctx.requester).guid;
  const ServiceStore::Bounds bounds{ctx.settings.max_service_records_per_port,
                                    ctx.settings.max_service_records};
  const auto put = ctx.state.services.put(rec, owner, ctx.now, bounds);
  if (put.admit != Admit::kYes) {
    note_refusal(ctx.log, ctx.state.refused.service_records, "ServiceRecords", put.admit, owner,
                 ctx.from.lid, put.admit == Admit::kPortFull ? bounds.per_port : bounds.total);
    return refuse(status::kNoResources, query);
  }
  const bool added = put.added;
  ctx.log->debug("SA: service 0x{:016x} '{}' {} by LID {} (lease {})",
                 get_be(rec, service_field::kId, 8), service_name(rec),
                 added ? "registered" : "updated", ctx.from.lid, service_lease(rec));
  if (!ctx.has(kServiceBitPKey)) put_be(rec, service_field::kPKey, 0xFFFF, 2);  // the default P_Key
  HandlerResult r;
  r.words = static_cast<std::uint16_t>(kServiceRecordSize / 8);
  add_record(r, ctx, rec);
  return r;
}

HandlerResult delete_service(RequestContext& ctx, const std::vector<std::uint8_t>& query) {
  if (!pkey_rules_allow(ctx, query)) return refuse(status::kReqInvalid, query);
  const auto removed = ctx.state.services.erase(query);
  if (!removed) return refuse(status::kNoRecords, query);
  ctx.log->debug("SA: service 0x{:016x} '{}' deleted by LID {}",
                 get_be(*removed, service_field::kId, 8), service_name(*removed), ctx.from.lid);
  HandlerResult r;
  r.words = static_cast<std::uint16_t>(kServiceRecordSize / 8);
  add_record(r, ctx, *removed);
  return r;
}

HandlerResult get_services(RequestContext& ctx, const std::vector<std::uint8_t>& query) {
  const RecordLayout& layout = *find_layout(attr::kServiceRecord);
  HandlerResult r;
  r.words = layout.words();
  // OpenSM compares neither the reserved field nor the lease (which it keeps as
  // registered): a client's mask bits there select nothing.
  const std::uint64_t ignored = (1ull << kServiceBitReserved) | (1ull << kServiceBitLease);
  for (const ServiceStore::Entry& e : ctx.state.services.entries()) {
    if (!matches_except(layout, ctx, query, e.record, ignored)) continue;
    if (!holds_pkey(ctx.snap, ctx.requester, record_pkey(e.record))) continue;
    add_record(r, ctx, e.record);
    if (enough(ctx, r)) break;
  }
  return r;
}

}  // namespace

HandlerResult handle_service_record(RequestContext& ctx) {
  // OpenSM answers nobody whose LID it does not know (the server drops those too).
  if (!ctx.requester.valid()) return HandlerResult::silent();
  // A lease that ran out since the last timer tick ends before the request is
  // looked at: no client sees (or updates) a record past its lease.
  ctx.state.services.expire(ctx.now);
  const auto query = ctx.query(kServiceRecordSize);
  switch (ctx.method()) {
    case method::kSet:
      return set_service(ctx, query);
    case method::kDelete:
      return delete_service(ctx, query);
    default:
      return get_services(ctx, query);
  }
}

}  // namespace ibsm::sa
