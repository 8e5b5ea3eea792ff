// Event subscriptions (InformInfo Set, IBA 13.4.8.3, 15.2.5.12) and the Reports
// that deliver notices to subscribers (IBA 13.4.8.2, 13.5.5.3).
//
// A subscription is what OpenSM keeps (osm_inform.c): the InformInfo as it was
// sent (with the QPN replaced by the subscriber's source QP), the subscriber's
// port GID, and the address vector the Set came from; Reports go back to that
// address. A notice is matched against every subscription (notice_matches), then
// partition access is checked (IBA o13-17.1.1) and a Report(Notice) is sent and
// kept until a ReportResp with its TID arrives or its retries run out.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "mad/transport.hpp"
#include "sa/limits.hpp"
#include "sa/sa_mad.hpp"
#include "sa/snapshot.hpp"

namespace ibsm::sa {

inline constexpr std::size_t kInformInfoSize = 36;
inline constexpr std::size_t kNoticeSize = 80;  // GMP Notice: 64 bytes as in SMPs + IssuerGID
using InformInfoBytes = std::array<std::uint8_t, kInformInfoSize>;
using NoticeBytes = std::array<std::uint8_t, kNoticeSize>;

// The traps the SA generates or singles out (IBA 14.2.5.1 table 119/120).
namespace trap {
inline constexpr std::uint16_t kGidInService = 64;
inline constexpr std::uint16_t kGidOutOfService = 65;
inline constexpr std::uint16_t kMgidCreated = 66;
inline constexpr std::uint16_t kMgidDeleted = 67;
inline constexpr std::uint16_t kLinkIntegrity = 129;
inline constexpr std::uint16_t kBufferOverrun = 130;
inline constexpr std::uint16_t kWatchdog = 131;
inline constexpr std::uint16_t kBadMKey = 256;
inline constexpr std::uint16_t kBadSwitchPKey = 259;
}  // namespace trap

// Byte offsets in an InformInfo (IBA 13.4.8.3 table 121).
namespace inform_field {
inline constexpr std::size_t kGid = 0;
inline constexpr std::size_t kLidBegin = 16;
inline constexpr std::size_t kLidEnd = 18;
inline constexpr std::size_t kIsGeneric = 22;
inline constexpr std::size_t kSubscribe = 23;
inline constexpr std::size_t kType = 24;
inline constexpr std::size_t kTrapNumber = 26;   // DeviceID when not generic
inline constexpr std::size_t kQpnRespTime = 28;  // QPN (24 bits), 3 reserved, RespTimeValue (5)
inline constexpr std::size_t kProducer = 33;     // 24 bits; VendorID when not generic
}  // namespace inform_field

// Typed reads of a GMP Notice (IBA 13.4.8.2 table 120).
struct NoticeView {
  std::span<const std::uint8_t, kNoticeSize> n;
  bool is_generic() const { return (n[0] & 0x80) != 0; }
  std::uint8_t type() const { return n[0] & 0x7f; }
  std::uint32_t producer() const {  // ProducerType, or VendorID for vendor notices
    return (std::uint32_t{n[1]} << 16) | (std::uint32_t{n[2]} << 8) | n[3];
  }
  std::uint16_t trap_number() const {  // TrapNumber, or DeviceID for vendor notices
    return static_cast<std::uint16_t>((n[4] << 8) | n[5]);
  }
  Lid issuer_lid() const { return static_cast<Lid>((n[6] << 8) | n[7]); }
  Gid issuer_gid() const;
  // Traps 64-67 carry a GID (port or multicast) at DataDetails byte 6.
  Gid details_gid() const;
};

// A notice the SM generates about a port or group (traps 64-67, IBA 14.2.5.1):
// generic, type Subnet Management, producer Class Manager, issued by the SM.
NoticeBytes sm_notice(std::uint16_t trap_number, Lid sm_lid, const Gid& sm_gid, const Gid& subject);

struct Subscription {
  Gid subscriber_gid{};
  std::uint16_t subscriber_enum = 0;  // always 0 (as OpenSM)
  InformInfoBytes info{};             // as sent; QPN = the subscriber's source QP
  mad::MadAddress report_addr;        // where Reports go
};

// OpenSM's identical-subscription test (osm_inform.c match_inf_rec): same source
// address, the same GID (or LID range when the probe's GID is zero), Type,
// IsGeneric, TrapNumber/DeviceID, QPN+RespTimeValue and ProducerType/VendorID.
bool same_subscription(const Subscription& stored, const Subscription& probe);

// IBA 13.4.8.3 table 121 / o13-14: does a subscription ask for this notice?
// GID (when non-zero) equals IssuerGID, else IssuerLID within LIDRange (begin
// 0xFFFF: all; end 0: begin only); IsGeneric equal; Type, TrapNumber/DeviceID
// 0xFFFF and ProducerType/VendorID 0xFFFFFF are wildcards.
bool notice_matches(std::span<const std::uint8_t, kInformInfoSize> info, const NoticeView& n);

// The Report(Notice) MAD (IBA 13.4.8.2, 15.2.2): SubnAdm class version 2,
// method Report, attribute Notice, the notice as data. 256 bytes.
std::vector<std::uint8_t> build_report(std::uint64_t tid, const NoticeBytes& notice);

struct InformCounters {
  std::uint64_t reports = 0;       // Reports sent (first transmissions)
  std::uint64_t retransmits = 0;   // resent after transaction_timeout
  std::uint64_t acknowledged = 0;  // retired by a ReportResp
  std::uint64_t given_up = 0;      // no ReportResp after the last retry
  std::uint64_t send_failed = 0;   // the transport refused a send
  std::uint64_t revoked = 0;       // subscriptions removed for a partition mismatch (o13-17.1.2)
};

class InformStore {
 public:
  // The transport Reports leave through and the log (SaServer does this once).
  void attach(mad::MadTransport& transport, Logger log);

  // Subscriptions, newest first.
  const std::vector<Subscription>& subscriptions() const { return subs_; }
  const Subscription* find(const Subscription& probe) const;
  struct Bounds {
    std::size_t per_port = SIZE_MAX;
    std::size_t total = SIZE_MAX;
  };
  // Adds a subscription or replaces the identical one (a renewal, which counts
  // once). A new one is refused (nothing changes) when its subscriber port
  // already holds `bounds.per_port` subscriptions or the store `bounds.total`.
  Admit subscribe(const Subscription& s, Bounds bounds);
  // Subscriptions whose subscriber is this port.
  std::size_t held_by(Guid port_guid) const;
  // Removes the identical subscription; false when there is none.
  bool unsubscribe(const Subscription& probe);
  // Removes every subscription of a port (drop_event_subscriptions); how many.
  std::size_t remove_subscriber(Guid port_guid);
  // A subscription read back from the SA database (kept in the file's order;
  // an identical one already present wins, as OpenSM's loader does).
  bool restore(const Subscription& s);

  // Sends `notice` to every subscription that asks for it and may see it.
  // `snap` is the fabric now (the subscriber's port, by its LID); the source
  // port is looked up in `source_snap` (the previous snapshot for trap 65,
  // whose port is gone). For traps 66/67 `group_pkey` is the group's P_Key the
  // subscriber's port must hold. Returns the number of Reports sent.
  std::size_t deliver(const NoticeBytes& notice, const Snapshot& snap, const Snapshot& source_snap,
                      std::optional<std::uint16_t> group_pkey, Clock::TimePoint now,
                      std::uint32_t timeout_ms, std::uint32_t retries);

  // Timers: retransmits Reports whose ReportResp is overdue, gives up after the
  // last retry.
  void tick(Clock::TimePoint now);
  // A response arrived on the SA's queue: a ReportResp retires its Report
  // (matched on the low 32 TID bits, which the kernel and umad2sim keep).
  void on_response(const SaMad& response, const mad::MadAddress& from);

  std::size_t in_flight() const { return pending_.size(); }
  const InformCounters& counters() const { return counters_; }
  bool dirty() const { return dirty_; }
  void clear_dirty() { dirty_ = false; }

 private:
  struct Pending {
    std::uint32_t tid = 0;
    std::vector<std::uint8_t> mad;
    mad::MadAddress to;
    Clock::TimePoint deadline{};
    std::uint32_t timeout_ms = 0;
    std::uint32_t retries_left = 0;
  };
  void send_report(const Subscription& s, const NoticeBytes& notice, Clock::TimePoint now,
                   std::uint32_t timeout_ms, std::uint32_t retries);
  bool transmit(const Pending& p);

  std::vector<Subscription> subs_;
  std::vector<Pending> pending_;
  // OpenSM's Report TIDs count up from here (osm_inform.c); the first is ...001.
  std::uint32_t last_tid_ = 0x02DAB000;
  mad::MadTransport* transport_ = nullptr;
  Logger log_;
  InformCounters counters_;
  bool dirty_ = false;
};

}  // namespace ibsm::sa
