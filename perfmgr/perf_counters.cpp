// PerfManager (perf_manager.hpp), part 3 of 3: counter accounting. The readings of a
// PortCounters or PortCountersExtended answer go into the CounterDb; error-counter
// increases and XmitWait over the threshold are logged with both ends of the link;
// a port with a counter near saturation gets a clearing Set queued (OpenSM
// perfmgr_check_overflow).
#include <fmt/format.h>

#include "perfmgr/errors.hpp"
#include "perfmgr/perf_manager.hpp"

namespace ibsm::perfmgr {

namespace {

// OpenSM's "close to overflowing": 75 % of the counter's range (4-bit ones at 10).
constexpr bool near_full(std::uint64_t v, unsigned bits) {
  if (bits == 4) return v >= 10;
  const std::uint64_t max = bits == 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1;
  return v >= max - max / 4;
}

}  // namespace

void PerfManager::on_counters(const Query& q, MonNode& n, const PortCounters& pc) {
  const MonPort& mp = n.ports[q.port];
  const bool pce = pce_supported(mp);
  const std::time_t now = wall_();
  ErrReading e;
  e[Err::kSymbol] = pc.symbol_error_counter;
  e[Err::kLinkRecover] = pc.link_error_recovery_counter;
  e[Err::kLinkDowned] = pc.link_downed_counter;
  e[Err::kRcv] = pc.port_rcv_errors;
  e[Err::kRcvRemotePhys] = pc.port_rcv_remote_physical_errors;
  e[Err::kRcvSwitchRelay] = pc.port_rcv_switch_relay_errors;
  e[Err::kXmitDiscards] = pc.port_xmit_discards;
  e[Err::kXmitConstraint] = pc.port_xmit_constraint_errors;
  e[Err::kRcvConstraint] = pc.port_rcv_constraint_errors;
  e[Err::kLinkIntegrity] = pc.local_link_integrity_errors;
  e[Err::kBufferOverrun] = pc.excessive_buffer_overrun_errors;
  e[Err::kVl15Dropped] = pc.vl15_dropped;
  // Without ClassPortInfo saying so, PortXmitWait is not trusted (OpenSM).
  e[Err::kXmitWait] = xmit_wait_supported(mp) ? pc.port_xmit_wait : 0;
  e.time = now;

  // Counters that went backwards: someone cleared them (perfquery -R, a reset).
  if (const DbPort* prev = db_.port(n.guid, q.port)) {
    bool back = false;
    for (std::size_t i = 0; i < kErrCount; ++i)
      back = back || e.v[i] < prev->err_previous.v[i];
    if (back) {
      log_->error("{}: PerfMgr detected an out of band error clear on {}",
                  format_error_id(kErrPmOobClear), where(n, q.port));
      db_.clear_prev_err(n.guid, q.port, now);
    }
  }
  if (settings_.log_errors) log_errors(n, q.port, e);
  db_.add_err(n.guid, q.port, e);

  if (!pce) {
    DataReading d;
    d[Data::kXmitData] = pc.port_xmit_data;
    d[Data::kRcvData] = pc.port_rcv_data;
    d[Data::kXmitPkts] = pc.port_xmit_pkts;
    d[Data::kRcvPkts] = pc.port_rcv_pkts;
    d.time = now;
    if (const DbPort* prev = db_.port(n.guid, q.port)) {
      bool back = false;
      for (std::size_t i = 0; i < 4; ++i)
        back = back || d.v[i] < prev->dc_previous.v[i];
      if (back) {
        log_->error("{}: PerfMgr detected an out of band data counter clear on {}",
                    format_error_id(kErrPmOobClear), where(n, q.port));
        db_.clear_prev_data(n.guid, q.port, now);
      }
    }
    db_.add_data(n.guid, q.port, d, false);
  }
  check_overflow(n, q.port, pc);
}

void PerfManager::on_extended(const Query& q, MonNode& n, const PortCountersExtended& pce) {
  const bool ietf = ietf_supported(n.ports[q.port]);
  const std::time_t now = wall_();
  DataReading d;
  d[Data::kXmitData] = pce.port_xmit_data;
  d[Data::kRcvData] = pce.port_rcv_data;
  d[Data::kXmitPkts] = pce.port_xmit_pkts;
  d[Data::kRcvPkts] = pce.port_rcv_pkts;
  if (ietf) {
    d[Data::kUnicastXmitPkts] = pce.port_unicast_xmit_pkts;
    d[Data::kUnicastRcvPkts] = pce.port_unicast_rcv_pkts;
    d[Data::kMulticastXmitPkts] = pce.port_multicast_xmit_pkts;
    d[Data::kMulticastRcvPkts] = pce.port_multicast_rcv_pkts;
  }
  d.time = now;
  if (const DbPort* prev = db_.port(n.guid, q.port)) {
    bool back = false;
    for (std::size_t i = 0; i < (ietf ? kDataCount : 4); ++i)
      back = back || d.v[i] < prev->dc_previous.v[i];
    if (back) {
      log_->error("{}: PerfMgr detected an out of band data counter clear on {}",
                  format_error_id(kErrPmOobClear), where(n, q.port));
      db_.clear_prev_data(n.guid, q.port, now);
    }
  }
  db_.add_data(n.guid, q.port, d, ietf);
  check_ext_overflow(n, q.port, pce);
}

void PerfManager::log_errors(const MonNode& n, mad::PortNum port, const ErrReading& now) {
  const DbPort* prev = db_.port(n.guid, port);
  if (prev == nullptr || !prev->valid) return;  // OpenSM: nothing to compare with yet
  const MonPort& mp = n.ports[port];
  const std::string peer =
      mp.remote_valid ? fmt::format(" connected to \"{}\" (NodeGUID: {}) : port {}", mp.remote_name,
                                    guid_hex(mp.remote_guid), mp.remote_port)
                      : std::string();
  for (std::size_t i = 0; i + 1 < kErrCount; ++i) {  // all but XmitWait
    if (now.v[i] <= prev->err_previous.v[i]) continue;
    log_->error("{}: {} : {} : node \"{}\" (NodeGUID: {}) : port {}{}",
                format_error_id(kErrPmCounterErrors), kErrNames[i].iba,
                now.v[i] - prev->err_previous.v[i], n.name, guid_hex(n.guid), port, peer);
  }
  const std::uint64_t cur = now[Err::kXmitWait];
  const std::uint64_t was = prev->err_previous[Err::kXmitWait];
  if (settings_.xmit_wait_log && cur > was && cur - was >= settings_.xmit_wait_threshold) {
    log_->error("{}: XmitWait : {} : node \"{}\" (NodeGUID: {}) : port {}{}",
                format_error_id(kErrPmXmitWait), cur - was, n.name, guid_hex(n.guid), port, peer);
  }
}

// OpenSM perfmgr_check_overflow: error counters at 75 % of their range, or the
// 32-bit data counters where the port has no 64-bit ones, get the port cleared.
void PerfManager::check_overflow(const MonNode& n, mad::PortNum port, const PortCounters& pc) {
  const MonPort& mp = n.ports[port];
  const bool pce = pce_supported(mp);
  const bool xw = xmit_wait_supported(mp);
  const bool full =
      near_full(pc.symbol_error_counter, 16) || near_full(pc.link_error_recovery_counter, 8) ||
      near_full(pc.link_downed_counter, 8) || near_full(pc.port_rcv_errors, 16) ||
      near_full(pc.port_rcv_remote_physical_errors, 16) ||
      near_full(pc.port_rcv_switch_relay_errors, 16) || near_full(pc.port_xmit_discards, 16) ||
      near_full(pc.port_xmit_constraint_errors, 8) || near_full(pc.port_rcv_constraint_errors, 8) ||
      near_full(pc.local_link_integrity_errors, 4) ||
      near_full(pc.excessive_buffer_overrun_errors, 4) || near_full(pc.vl15_dropped, 16) ||
      (xw && near_full(pc.port_xmit_wait, 32)) ||
      (!pce && (near_full(pc.port_xmit_data, 32) || near_full(pc.port_rcv_data, 32) ||
                near_full(pc.port_xmit_pkts, 32) || near_full(pc.port_rcv_pkts, 32)));
  if (!full) return;
  log_->debug("PerfMgr: counter overflow on {}; clearing counters", where(n, port));
  Query q;
  q.guid = n.guid;
  q.port = port;
  q.attr = PmAttr::kPortCounters;
  q.method = kMethodSet;
  // Some devices clear the 64-bit counters with the 32-bit ones: keep the data
  // counters where PortCountersExtended has them (OpenSM: 0x0fff).
  q.counter_select = pce ? 0x0FFF : 0xFFFF;
  q.counter_select2 = xw ? 1 : 0;
  ++stats_.clears;
  queue_.push_front(q);
}

void PerfManager::check_ext_overflow(const MonNode& n, mad::PortNum port,
                                     const PortCountersExtended& pce) {
  const bool ietf = ietf_supported(n.ports[port]);
  const bool full =
      near_full(pce.port_xmit_data, 64) || near_full(pce.port_rcv_data, 64) ||
      near_full(pce.port_xmit_pkts, 64) || near_full(pce.port_rcv_pkts, 64) ||
      (ietf &&
       (near_full(pce.port_unicast_xmit_pkts, 64) || near_full(pce.port_unicast_rcv_pkts, 64) ||
        near_full(pce.port_multicast_xmit_pkts, 64) || near_full(pce.port_multicast_rcv_pkts, 64)));
  if (!full) return;
  Query q;
  q.guid = n.guid;
  q.port = port;
  q.attr = PmAttr::kPortCountersExtended;
  q.method = kMethodSet;
  q.counter_select = 0x00FF;
  ++stats_.clears;
  queue_.push_front(q);
}

}  // namespace ibsm::perfmgr
