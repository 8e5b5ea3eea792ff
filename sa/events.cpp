// Event forwarding (IBA 13.4.8, 14.2.5.1): the notices the SA reports to its
// subscribers, as OpenSM produces them.
//  - 64 "GID in service" for each end port a sweep found that the previous one
//    had not (osm_state_mgr.c state_mgr_report_new_ports: every port on the
//    first sweep), 65 "GID out of service" for each one gone (osm_drop_mgr.c),
//    with drop_event_subscriptions removing the gone port's own subscriptions;
//  - 66/67 when a multicast group is created or deleted (osm_multicast.c);
//  - the traps the SM receives from the fabric, IssuerGID filled in from the
//    source LID, except 129-131, which describe one physical port and are only
//    for the SM (osm_trap_rcv.c).
#include "mad/attr/notice.hpp"
#include "sa/records/record_util.hpp"
#include "sa/server.hpp"

namespace ibsm::sa {

namespace {

// The ports that hold a GID: CA and router ports, switch port 0 (what OpenSM
// keeps as osm_port_t objects), by port GUID.
std::vector<Guid> gid_ports(const Snapshot& s) {
  std::vector<Guid> out;
  out.reserve(s.by_port_guid.size());
  for (const SnapNode& n : s.nodes) {
    for (const SnapPort& p : n.ports) {
      if (!p.present || p.guid == 0) continue;
      if (n.is_switch() ? p.num != 0 : p.num == 0) continue;
      out.push_back(p.guid);
    }
  }
  return out;
}

Gid sm_gid(const Snapshot& s) {
  return make_gid(s.subnet_prefix, s.sm_port.valid() ? s.port(s.sm_port).guid : 0);
}

// IBA 14.2.5.1 table 119: 129 (link integrity), 130 (buffer overrun) and 131
// (flow control watchdog) are about a switch or CA port and are consumed by the
// SM; OpenSM reports every other trap to subscribers.
bool forwarded_trap(const mad::Notice& n) {
  return !n.is_generic || n.trap_number < trap::kLinkIntegrity || n.trap_number > trap::kWatchdog;
}

}  // namespace

void SaServer::report_port_changes(const Snapshot* previous, const Snapshot& now) {
  const auto t = clock_.now();
  const Gid issuer = sm_gid(now);
  std::size_t gone = 0;
  std::size_t reports = 0;
  if (previous != nullptr) {
    for (const Guid guid : gid_ports(*previous)) {
      if (now.find_port_guid(guid).valid()) continue;
      ++gone;
      const NoticeBytes n =
          sm_notice(trap::kGidOutOfService, now.sm_lid, issuer, make_gid(now.subnet_prefix, guid));
      // The port is gone from `now`: its partitions are those of `previous`.
      reports +=
          state_->informs.deliver(n, now, *previous, std::nullopt, t,
                                  settings_.transaction_timeout_ms, settings_.transaction_retries);
      if (settings_.drop_event_subscriptions) {
        const std::size_t dropped = state_->informs.remove_subscriber(guid);
        if (dropped != 0)
          log_->info("SA: {} event subscriptions of port 0x{:016x} dropped (port left the fabric)",
                     dropped, guid);
      }
      log_->debug("SA: port 0x{:016x} out of service (trap 65)", guid);
    }
  }
  std::size_t added = 0;
  for (const Guid guid : gid_ports(now)) {
    if (previous != nullptr && previous->find_port_guid(guid).valid()) continue;
    ++added;
    const NoticeBytes n =
        sm_notice(trap::kGidInService, now.sm_lid, issuer, make_gid(now.subnet_prefix, guid));
    reports +=
        state_->informs.deliver(n, now, now, std::nullopt, t, settings_.transaction_timeout_ms,
                                settings_.transaction_retries);
  }
  if (gone != 0 || (added != 0 && previous != nullptr) || reports != 0) {
    log_->info("SA: {} ports in service, {} out of service since the last sweep ({} Reports)",
               added, gone, reports);
  }
}

void SaServer::forward_trap(const mad::Notice& trap_notice, Lid source_lid) {
  if (!forwarded_trap(trap_notice) || !snapshot_) return;
  const Snapshot& snap = *snapshot_;
  // A trap from the SM's own port arrives with source LID 0 (OpenSM fixes it the same way).
  const Lid lid = source_lid != 0 ? source_lid : snap.sm_lid;
  const PortRef src = snap.find_lid(lid);
  if (!src.valid()) {
    log_->debug("SA: trap {} from LID {} not forwarded: no port holds that LID",
                trap_notice.trap_number, lid);
    return;
  }
  NoticeBytes n{};
  mad::encode(trap_notice, mad::Payload{n.data(), mad::kSmpDataSize});
  // IBA 13.4.8.2: IssuerGID, which the SMP form cannot carry, is the source port's GID.
  const Gid gid = make_gid(snap.subnet_prefix, snap.port(src).guid);
  std::copy(gid.begin(), gid.end(), n.begin() + 64);
  const std::size_t sent =
      state_->informs.deliver(n, snap, snap, std::nullopt, clock_.now(),
                              settings_.transaction_timeout_ms, settings_.transaction_retries);
  if (sent != 0)
    log_->info("SA: trap {} from LID {} reported to {} subscribers", trap_notice.trap_number, lid,
               sent);
}

void SaServer::report_group_change(bool created, const Gid& mgid, std::uint16_t pkey) {
  if (!snapshot_) return;
  const Snapshot& snap = *snapshot_;
  const NoticeBytes n =
      sm_notice(created ? trap::kMgidCreated : trap::kMgidDeleted, snap.sm_lid, sm_gid(snap), mgid);
  state_->informs.deliver(n, snap, snap, pkey, clock_.now(), settings_.transaction_timeout_ms,
                          settings_.transaction_retries);
}

}  // namespace ibsm::sa
