#include "sa/server.hpp"

#include <algorithm>
#include <map>

#include "sa/errors.hpp"
#include "sa/handlers.hpp"

namespace ibsm::sa {

namespace {

// The response method for a request method (IBA 15.2.2 table 184; a Set is
// answered with GetResp, as OpenSM and the kernel's SA clients expect).
std::uint8_t response_method(std::uint8_t m) {
  switch (m) {
    case method::kGet:
    case method::kSet:
      return method::kGetResp;
    case method::kGetTable:
      return method::kGetTableResp;
    case method::kGetMulti:
      return method::kGetMultiResp;
    case method::kDelete:
      return method::kDeleteResp;
    default:
      return static_cast<std::uint8_t>(m | method::kResponseBit);
  }
}

bool method_known(std::uint8_t m) {
  return m == method::kGet || m == method::kSet || m == method::kGetTable ||
         m == method::kGetMulti || m == method::kDelete || m == method::kGetTraceTable;
}

// Attributes about nodes, ports, paths, groups and services: OpenSM does not
// answer them for a requester whose LID it does not know (osm_sa_*_record.c).
bool needs_requester(std::uint16_t a) {
  return a == attr::kNodeRecord || a == attr::kPortInfoRecord || a == attr::kPathRecord ||
         a == attr::kMcMemberRecord || a == attr::kServiceRecord || a == attr::kMultiPathRecord ||
         a == attr::kTraceRecord;
}

}  // namespace

SaServer::SaServer(mad::MadTransport& transport, const Clock& clock, Logger log,
                   SaSettings settings)
    : transport_(transport),
      clock_(clock),
      log_(std::move(log)),
      settings_(settings),
      state_(std::make_unique<SaState>()) {
  state_->informs.attach(transport_, log_);  // Reports leave through our transport
}

void SaServer::publish(MutableSnapshotPtr snapshot) {
  SnapshotPtr previous = std::move(snapshot_);
  snapshot_ = std::move(snapshot);
  publish_after(std::move(previous));
}

void SaServer::rebuild(const std::function<MutableSnapshotPtr()>& build) {
  // snapshot_ stays null while building: should `build` throw, the SA answers
  // nothing rather than answer from the cut-down copy.
  SnapshotPtr previous = std::move(snapshot_);
  if (previous && previous.use_count() == 1) previous = port_presence(*previous);
  snapshot_ = build();
  publish_after(std::move(previous));
}

void SaServer::amend(const std::function<void(Snapshot&)>& change) {
  if (!snapshot_) return;
  if (snapshot_.use_count() > 1) snapshot_ = std::make_shared<Snapshot>(*snapshot_);
  change(*snapshot_);
}

void SaServer::publish_after(SnapshotPtr previous) {
  if (!snapshot_) return;
  // Aliases of ports that left are dropped now, not at the next GUIDInfoRecord
  // request, so that the dump after this sweep no longer holds them.
  state_->aliases.sync(*snapshot_);
  restore_db_aliases();
  report_port_changes(previous.get(), *snapshot_);
  publish_groups();
}

void SaServer::publish_groups() {
  const Snapshot& snap = *snapshot_;
  McGroupStore& mcast = state_->mcast;
  mcast.apply_configured(snap.groups);
  // MLIDs the smallest multicast table of the subnet can hold (IBA 14.2.5.4
  // SwitchInfo.MulticastFDBCap; OpenSM's max_mcast_lid_ho). Switches without
  // multicast support (capacity 0) do not limit it.
  std::uint32_t cap = 0;
  for (const SnapNode& n : snap.nodes) {
    if (!n.is_switch() || !n.switch_info || n.switch_info->multicast_fdb_cap == 0) continue;
    const std::uint32_t c = n.switch_info->multicast_fdb_cap;
    if (cap == 0 || c < cap) cap = c;
  }
  const std::uint32_t last = cap == 0 ? 0xFFFE : std::min<std::uint32_t>(0xC000 + cap - 1, 0xFFFE);
  mcast.set_mlid_limit(static_cast<Lid>(last));
  // Members whose ports left are dropped (OpenSM's drop manager, osm_mgrp_delete_port);
  // a group that loses its last full member that way is over: trap 67, and a
  // configured group loses its remaining members as after a leave.
  std::map<Gid, std::uint16_t> had_full;
  for (const auto& [mgid, g] : mcast.groups())
    if (g.has_full_member()) had_full.emplace(mgid, g.pkey);
  mcast.drop_absent_ports(snap);
  mcast.forget_absent_requesters(snap);
  for (const auto& [mgid, pkey] : had_full) {
    McGroupRec* g = mcast.find(mgid);
    if (g != nullptr && g->has_full_member()) continue;
    if (g != nullptr && !g->members.empty()) {
      g->members.clear();
      mcast.mark_dirty(g->mlid);
    }
    report_group_change(false, mgid, pkey);
  }
}

void SaServer::log_dropped(std::uint64_t count, std::string_view what, const mad::IncomingMad& in) {
  if ((count & (count - 1)) != 0) return;  // 1, 2, 4, 8, ...: a flood stays quiet
  log_->info("SA: dropped a MAD from LID {}: {} ({} so far)", in.slid, what, count);
}

bool SaServer::respond(const SaResponse& r, const mad::MadAddress& to) {
  if (r.records < r.records_total) {
    ++counters_.trimmed;
    if (!trim_logged_) {
      trim_logged_ = true;
      log_->warn(
          "{}: SA answers are trimmed to one MAD on this transport (first: {} of {} "
          "records sent); see docs/sa.md",
          format_error_id(kErrSaTrimmed), r.records, r.records_total);
    }
  }
  if (auto st = transport_.send_gsi(r.bytes, to, 0); !st.ok()) {
    ++counters_.send_failed;
    if ((counters_.send_failed & (counters_.send_failed - 1)) == 0)
      log_->warn("{}: {}", format_error_id(kErrSaSendFailed), st.error().message);
    return false;
  }
  ++counters_.answered;
  return true;
}

SaResponse SaServer::answer(const SaMad& request, const mad::MadAddress& from) {
  const SaHeader& h = request.header;
  SaResponse none;
  const AttrEntry* entry = find_attr(h.attr_id);
  if (entry == nullptr || !method_known(h.method)) {
    ++counters_.unsupported;
    return none;
  }
  const std::uint8_t resp = response_method(h.method);
  if (h.class_version != kClassVersion) {
    ++counters_.errors;
    return build_sa_response(h, resp, status::kBadVersion, 0, {}, 0, framing());
  }
  if (!entry->accepts(h.method)) {
    ++counters_.errors;
    return build_sa_response(h, resp, status::kMethodAttrUnsupported, 0, {}, 0, framing());
  }
  if (!snapshot_) return none;
  const Snapshot& snap = *snapshot_;
  PortRef requester = snap.find_lid(from.lid);
  if (!requester.valid() && needs_requester(h.attr_id)) {
    ++counters_.unknown_requester;
    return none;
  }
  RequestContext ctx{snap,         settings_, request,
                     from,         requester, h.sm_key == settings_.sa_key,
                     clock_.now(), *state_,   log_};
  ctx.framing = framing();
  HandlerResult r = entry->handler(ctx);
  // Traps 66/67 for groups a join or leave created or ended, sent before the
  // response as OpenSM does (osm_mgrp_add_port / osm_mgrp_remove_port).
  for (const McGroupStore::Change& c : state_->mcast.take_changes())
    report_group_change(c.created, c.mgid, c.pkey);
  if (r.drop) return none;
  SaHeader out = h;
  if (r.attr_id != 0) out.attr_id = r.attr_id;
  std::uint16_t st = r.status;
  std::size_t count = r.count;
  if (st == status::kOk && h.method == method::kGet) {
    // IBA 15.4.1 / C15-0.1.30: a Get names exactly one record.
    if (count == 0) st = status::kNoRecords;
    if (count > 1) st = status::kTooManyRecords;
  }
  if (st != status::kOk) {
    ++counters_.errors;
    // An error response carries no records (Get), but a Delete or Set may echo one.
    if (h.method == method::kGet || h.method == method::kGetTable || count == 0)
      return build_sa_response(out, resp, st, 0, {}, 0, framing());
  }
  return build_sa_response(out, resp, st, r.words, r.records, count, framing());
}

void SaServer::handle(const mad::IncomingMad& in) {
  ++counters_.received;
  std::vector<std::uint8_t> whole(
      in.bytes.begin(),
      in.bytes.begin() + static_cast<std::ptrdiff_t>(std::min(in.length, in.bytes.size())));
  whole.insert(whole.end(), in.tail.begin(), in.tail.end());
  auto parsed = parse_sa_mad(whole);
  if (!parsed.ok()) {
    ++counters_.malformed;
    log_dropped(counters_.malformed, parsed.error().message, in);
    return;
  }
  const SaMad& req = *parsed;
  const SaHeader& h = req.header;
  if (in.status != 0) return;  // the kernel returning a Report it gave up on
  if (h.is_response()) {
    ++counters_.responses_in;
    state_->informs.on_response(req, in.from);
    return;
  }
  ++counters_.by_attr[h.attr_id & 0xff];
  if (!serving_ || !snapshot_) {
    ++counters_.not_serving;
    log_dropped(counters_.not_serving, "SA not serving (not master, or before the first sweep)",
                in);
    return;
  }
  if (h.sm_key != 0 && h.sm_key != settings_.sa_key) {
    ++counters_.bad_key;
    if ((counters_.bad_key & (counters_.bad_key - 1)) == 0) {
      log_->warn("{}: SA request from LID {} with SM_Key 0x{:016x} dropped ({} so far)",
                 format_error_id(kErrSaBadKey), in.slid, h.sm_key, counters_.bad_key);
    }
    return;
  }
  SaResponse r = answer(req, in.from);
  if (r.bytes.empty()) return;
  respond(r, in.from);
}

void SaServer::tick() {
  const auto now = clock_.now();
  state_->services.expire(now);
  state_->informs.tick(now);
}

}  // namespace ibsm::sa
