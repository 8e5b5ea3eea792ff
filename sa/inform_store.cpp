#include "sa/inform_store.hpp"

#include <algorithm>
#include <cstring>

#include "mad/transport.hpp"
#include "sa/bytes.hpp"
#include "sa/errors.hpp"
#include "sa/pkey_access.hpp"

namespace ibsm::sa {

namespace {

std::uint32_t be24(std::span<const std::uint8_t> b, std::size_t off) {
  return (std::uint32_t{b[off]} << 16) | (std::uint32_t{b[off + 1]} << 8) | b[off + 2];
}
bool gid_is_zero(std::span<const std::uint8_t> g) {
  return std::all_of(g.begin(), g.begin() + 16, [](std::uint8_t b) { return b == 0; });
}

// The subscriber's address as the identity of a subscription. The P_Key index is
// left out: it says which table entry the sender's QP1 used, not who it is (GSI
// QP1 may send with any index), and ibsim's umad2sim leaves it uninitialised, so
// comparing it made an unsubscribe miss its own subscription.
bool same_address(const mad::MadAddress& a, const mad::MadAddress& b) {
  return a.lid == b.lid && a.qpn == b.qpn && a.qkey == b.qkey && a.sl == b.sl && a.grh == b.grh &&
         (!a.grh || (a.gid == b.gid && a.hop_limit == b.hop_limit &&
                     a.traffic_class == b.traffic_class && a.flow_label == b.flow_label));
}

// At most this many Reports wait for their ReportResp; beyond it the oldest is
// abandoned, so a dead subscriber and a trap storm cannot grow memory without bound.
constexpr std::size_t kMaxPending = std::size_t{1} << 16;

// The P_Key rules of event forwarding (o13-17.1.1), on tables that may come from
// two snapshots: a port shares with itself, an unread (empty) table hides nothing.
bool share_pkey(Guid ga, std::span<const std::uint16_t> ta, Guid gb,
                std::span<const std::uint16_t> tb) {
  if (ga == gb) return true;
  if (ta.empty() || tb.empty()) return true;
  return tables_share_pkey(ta, tb);
}

}  // namespace

Gid NoticeView::issuer_gid() const {
  Gid g{};
  std::copy_n(n.begin() + 64, 16, g.begin());
  return g;
}

Gid NoticeView::details_gid() const {
  Gid g{};
  std::copy_n(n.begin() + 16, 16, g.begin());
  return g;
}

NoticeBytes sm_notice(std::uint16_t trap_number, Lid sm_lid, const Gid& sm_gid,
                      const Gid& subject) {
  constexpr std::uint8_t kTypeSubnetManagement = 3;  // IBA 13.4.8.2 table 120
  constexpr std::uint32_t kProducerClassManager = 4;
  NoticeBytes n{};
  n[0] = static_cast<std::uint8_t>(0x80 | kTypeSubnetManagement);
  n[1] = static_cast<std::uint8_t>(kProducerClassManager >> 16);
  n[2] = static_cast<std::uint8_t>(kProducerClassManager >> 8);
  n[3] = static_cast<std::uint8_t>(kProducerClassManager);
  n[4] = static_cast<std::uint8_t>(trap_number >> 8);
  n[5] = static_cast<std::uint8_t>(trap_number);
  n[6] = static_cast<std::uint8_t>(sm_lid >> 8);
  n[7] = static_cast<std::uint8_t>(sm_lid);
  std::copy(subject.begin(), subject.end(), n.begin() + 16);  // DataDetails: 6 reserved, GID
  std::copy(sm_gid.begin(), sm_gid.end(), n.begin() + 64);    // the SM issued it (o14-12.1.11)
  return n;
}

bool same_subscription(const Subscription& stored, const Subscription& probe) {
  if (!same_address(stored.report_addr, probe.report_addr)) return false;
  const auto& a = stored.info;
  const auto& b = probe.info;
  using namespace inform_field;
  // A non-zero GID in the probe names the source; then the LID range is not looked at.
  if (!gid_is_zero(b)) {
    if (std::memcmp(a.data() + kGid, b.data() + kGid, 16) != 0) return false;
  } else if (std::memcmp(a.data() + kLidBegin, b.data() + kLidBegin, 4) != 0) {
    return false;
  }
  return be16(a, kType) == be16(b, kType) && a[kIsGeneric] == b[kIsGeneric] &&
         std::memcmp(a.data() + kTrapNumber, b.data() + kTrapNumber, 6) == 0 &&
         std::memcmp(a.data() + kProducer, b.data() + kProducer, 3) == 0;
}

bool notice_matches(std::span<const std::uint8_t, kInformInfoSize> info, const NoticeView& n) {
  using namespace inform_field;
  if (!gid_is_zero(info)) {
    if (std::memcmp(info.data() + kGid, n.n.data() + 64, 16) != 0) return false;
  } else {
    const std::uint16_t begin = be16(info, kLidBegin);
    if (begin != 0xFFFF) {
      // LIDRangeEnd 0 means the single LID LIDRangeBegin (13.4.8.3), as OpenSM's
      // subscription check reads it (its notice matching compares against 0).
      const std::uint16_t end = be16(info, kLidEnd) == 0 ? begin : be16(info, kLidEnd);
      if (n.issuer_lid() < begin || n.issuer_lid() > end) return false;
    }
  }
  if ((info[kIsGeneric] != 0) != n.is_generic()) return false;
  const std::uint16_t type = be16(info, kType);
  if (type != 0xFFFF && type != n.type()) return false;
  const std::uint16_t number = be16(info, kTrapNumber);
  if (number != 0xFFFF && number != n.trap_number()) return false;
  const std::uint32_t producer = be24(info, kProducer);
  if (producer != 0xFFFFFF && producer != n.producer()) return false;
  return true;
}

std::vector<std::uint8_t> build_report(std::uint64_t tid, const NoticeBytes& notice) {
  std::vector<std::uint8_t> mad(kMadSize, 0);
  SaHeader h;
  h.method = method::kReport;
  h.tid = tid;
  h.attr_id = attr::kNotice;
  encode_header(h, mad);
  std::copy(notice.begin(), notice.end(), mad.begin() + kHeaderSize);
  return mad;
}

void InformStore::attach(mad::MadTransport& transport, Logger log) {
  transport_ = &transport;
  log_ = std::move(log);
}

const Subscription* InformStore::find(const Subscription& probe) const {
  for (const Subscription& s : subs_)
    if (same_subscription(s, probe)) return &s;
  return nullptr;
}

Admit InformStore::subscribe(const Subscription& s, Bounds bounds) {
  const Guid owner = gid_interface_id(s.subscriber_gid);
  std::size_t held = 0;
  for (Subscription& old : subs_) {
    if (same_subscription(old, s)) {
      old = s;
      dirty_ = true;
      return Admit::kYes;
    }
    if (gid_interface_id(old.subscriber_gid) == owner) ++held;
  }
  const Admit a = admit(held, bounds.per_port, subs_.size(), bounds.total);
  if (a != Admit::kYes) return a;
  subs_.insert(subs_.begin(), s);
  dirty_ = true;
  return a;
}

std::size_t InformStore::held_by(Guid port_guid) const {
  return static_cast<std::size_t>(std::count_if(
      subs_.begin(), subs_.end(),
      [&](const Subscription& s) { return gid_interface_id(s.subscriber_gid) == port_guid; }));
}

bool InformStore::unsubscribe(const Subscription& probe) {
  auto it = std::find_if(subs_.begin(), subs_.end(),
                         [&](const Subscription& s) { return same_subscription(s, probe); });
  if (it == subs_.end()) return false;
  subs_.erase(it);
  dirty_ = true;
  return true;
}

std::size_t InformStore::remove_subscriber(Guid port_guid) {
  const std::size_t n = std::erase_if(subs_, [&](const Subscription& s) {
    return gid_interface_id(s.subscriber_gid) == port_guid;
  });
  if (n != 0) dirty_ = true;
  return n;
}

bool InformStore::restore(const Subscription& s) {
  if (find(s) != nullptr) return false;
  subs_.push_back(s);
  dirty_ = true;
  return true;
}

std::size_t InformStore::deliver(const NoticeBytes& notice, const Snapshot& snap,
                                 const Snapshot& source_snap,
                                 std::optional<std::uint16_t> group_pkey, Clock::TimePoint now,
                                 std::uint32_t timeout_ms, std::uint32_t retries) {
  const NoticeView view{notice};
  const std::uint16_t number = view.trap_number();
  const bool about_sm_subject =
      view.is_generic() && number >= trap::kGidInService && number <= trap::kMgidDeleted;
  // Traps 64-67 are issued by the SM about another port or a group: the
  // partition check is about that subject, not about the SM (o13-17.1.1).
  const Gid source_gid = about_sm_subject ? view.details_gid() : view.issuer_gid();
  const bool group_event =
      view.is_generic() && (number == trap::kMgidCreated || number == trap::kMgidDeleted);
  const PortRef source = source_snap.find_port_guid(gid_interface_id(source_gid));

  std::size_t sent = 0;
  std::vector<std::size_t> revoke;
  for (std::size_t i = 0; i < subs_.size(); ++i) {
    const Subscription& s = subs_[i];
    if (!notice_matches(s.info, view)) continue;
    const PortRef dest = snap.find_lid(s.report_addr.lid);
    if (!dest.valid()) continue;  // the subscriber's port is not in the fabric now
    if (group_event) {
      if (!group_pkey) continue;
      const auto table = access_table(snap, dest);
      if (!table.empty() && (*group_pkey & kPKeyBaseMask) != 0 &&
          !table_has_pkey(table, *group_pkey))
        continue;
    } else {
      if (!source.valid()) continue;
      const Guid dest_guid = snap.port(dest).guid;
      const Guid src_guid = source_snap.port(source).guid;
      if (!share_pkey(src_guid, access_table(source_snap, source), dest_guid,
                      access_table(snap, dest))) {
        // o13-17.1.2: a subscription for a source it may not see is removed,
        // unless it asked for "all sources" (LIDRangeBegin 0xFFFF).
        if (be16(s.info, inform_field::kLidBegin) != 0xFFFF) revoke.push_back(i);
        continue;
      }
    }
    send_report(s, notice, now, timeout_ms, retries);
    ++sent;
  }
  for (auto it = revoke.rbegin(); it != revoke.rend(); ++it) {
    subs_.erase(subs_.begin() + static_cast<std::ptrdiff_t>(*it));
    ++counters_.revoked;
    dirty_ = true;
  }
  return sent;
}

void InformStore::send_report(const Subscription& s, const NoticeBytes& notice,
                              Clock::TimePoint now, std::uint32_t timeout_ms,
                              std::uint32_t retries) {
  if (++last_tid_ == 0) ++last_tid_;  // TID 0 is never used
  Pending p;
  p.tid = last_tid_;
  p.mad = build_report(p.tid, notice);
  p.to = s.report_addr;
  // Reports go to a GSI QP: the GSI Q_Key, whatever the received address said
  // (kernels report none; OpenSM's vendor layer does the same).
  p.to.qkey = mad::kGsiQKey;
  p.timeout_ms = timeout_ms;
  p.retries_left = retries;
  p.deadline = now + std::chrono::milliseconds(timeout_ms);
  ++counters_.reports;
  transmit(p);
  if (pending_.size() >= kMaxPending) {
    ++counters_.given_up;
    pending_.erase(pending_.begin());
  }
  pending_.push_back(std::move(p));
}

bool InformStore::transmit(const Pending& p) {
  if (transport_ == nullptr) return false;
  // The kernel is given the timeout too, so it keeps the send outstanding and
  // hands the ReportResp up to us (it drops responses to sends it does not track).
  if (auto st = transport_->send_gsi(p.mad, p.to, p.timeout_ms); !st.ok()) {
    ++counters_.send_failed;
    if (log_ && (counters_.send_failed & (counters_.send_failed - 1)) == 0)
      log_->warn("{}: Report to LID {}: {}", format_error_id(kErrSaSendFailed), p.to.lid,
                 st.error().message);
    return false;
  }
  return true;
}

void InformStore::tick(Clock::TimePoint now) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->deadline > now) {
      ++it;
      continue;
    }
    if (it->retries_left == 0) {
      ++counters_.given_up;
      if (log_)
        log_->info("SA: Report TID 0x{:08x} to LID {} QPN 0x{:x} not acknowledged; given up",
                   it->tid, it->to.lid, it->to.qpn);
      it = pending_.erase(it);
      continue;
    }
    --it->retries_left;
    ++counters_.retransmits;
    it->deadline = now + std::chrono::milliseconds(it->timeout_ms);
    transmit(*it);  // the same TID: it is the same transaction (IBA 13.4.6.4)
    ++it;
  }
}

void InformStore::on_response(const SaMad& response, const mad::MadAddress& from) {
  (void)from;  // a ReportResp may come back through another path; the TID decides
  if (response.header.attr_id != attr::kNotice) return;
  const auto low = static_cast<std::uint32_t>(response.header.tid);
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [&](const Pending& p) { return p.tid == low; });
  if (it == pending_.end()) return;
  pending_.erase(it);
  ++counters_.acknowledged;
}

}  // namespace ibsm::sa
