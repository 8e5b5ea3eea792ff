// PerfManager (perf_manager.hpp), part 2 of 3: answers. A class 0x04 MAD from the
// dispatcher is matched to its query (TID, then where it came from and what it
// carries, IBA 13.4.6.4), refused or taken; a ClassPortInfo answer sets the port's
// capabilities and, when it redirects, where the PMA answers from now on. Failures are
// logged here, rate-limited per error ID and sweep.
#include "perfmgr/perf_manager.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mad/transport.hpp"
#include "perfmgr/answer_check.hpp"
#include "perfmgr/errors.hpp"

namespace ibsm::perfmgr {

namespace {

std::string_view pm_attr_name(PmAttr a) {
  switch (a) {
    case PmAttr::kClassPortInfo:
      return "ClassPortInfo";
    case PmAttr::kPortCounters:
      return "PortCounters";
    case PmAttr::kPortCountersExtended:
      return "PortCountersExtended";
  }
  return "?";
}

}  // namespace

void PerfManager::fail(const Query& q, ErrorId id, const std::string& why) {
  auto it = monitored_.find(q.guid);
  if (it == monitored_.end()) return;
  MonNode& n = it->second;
  MonPort& mp = n.ports[q.port];
  std::string extra;
  if (mp.redirect && id == kErrPmTimeout) {
    // A redirection to nowhere: the next sweep asks the port's own LID again.
    extra = fmt::format(" (redirected to LID {} QP {}; redirection dropped)", mp.redirect->lid,
                        mp.redirect->qp);
    mp.redirect.reset();
    mp.cpi_valid = false;
  }
  if (q.method == kMethodSet) ++stats_.errors;
  if (may_log(id)) {
    log_->error("{}: PerfMgr {}({}) of {}: {}{}", format_error_id(id),
                q.method == kMethodSet ? "Set" : "Get", pm_attr_name(q.attr), where(n, q.port), why,
                extra);
  }
}

void PerfManager::refuse(const Query& q, const mad::IncomingMad& in, mad::Mismatch why) {
  ++stats_.refused;
  if (!may_log(kErrPmForeignAnswer)) return;
  auto it = monitored_.find(q.guid);
  const std::string asked =
      it == monitored_.end() ? fmt::format("node {}", guid_hex(q.guid)) : where(it->second, q.port);
  const std::size_t len = std::min(in.length, in.bytes.size());
  const auto field = [&](std::size_t at, std::size_t n) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < n && at + i < len; ++i)
      v = v << 8 | in.bytes[at + i];
    return v;
  };
  log_->warn(
      "{}: PerfMgt answer from LID {} (method 0x{:02x}, attribute 0x{:04x}, modifier 0x{:x}, "
      "PortSelect {}) with the TID of the {}({}) of {} at LID {} dropped: {}",
      format_error_id(kErrPmForeignAnswer), in.slid, field(3, 1), field(16, 2), field(20, 4),
      field(65, 1), q.method == kMethodSet ? "Set" : "Get", pm_attr_name(q.attr), asked,
      q.sent.dlid, mad::mismatch_name(why));
}

void PerfManager::handle(const mad::IncomingMad& in) {
  const std::size_t len = std::min(in.length, in.bytes.size());
  // The TID first, so that even a truncated answer retires its query.
  std::optional<std::uint32_t> tid;
  if (len >= 16)
    tid = static_cast<std::uint32_t>(in.bytes[12]) << 24 |
          static_cast<std::uint32_t>(in.bytes[13]) << 16 |
          static_cast<std::uint32_t>(in.bytes[14]) << 8 | in.bytes[15];
  auto it = tid ? on_wire_.find(*tid) : on_wire_.end();
  if (in.status != 0) {
    // The kernel handing back a send it gave up on: same as our deadline, now.
    if (it != on_wire_.end()) it->second.deadline = clock_.now();
    expire();
    fill_window();
    return;
  }
  if (it == on_wire_.end()) {
    ++stats_.unexpected;
    if (len >= 4 && (in.bytes[3] & 0x80) == 0 && may_log(kErrPmMalformed)) {
      log_->warn(
          "{}: PerfMgt request (method 0x{:02x}) from LID {} ignored: ibsm's PerfMgr "
          "answers none",
          format_error_id(kErrPmMalformed), in.bytes[3], in.slid);
    }
    return;
  }
  // A live TID is not enough (IBA 13.4.6.4): the answer must come from where the query
  // went and carry its method, attribute, modifier and port, or it is dropped (it
  // changes no counter and clears nothing) and the query waits for its own answer.
  const std::optional<std::uint8_t> port_select =
      it->second.attr == PmAttr::kClassPortInfo ? std::nullopt
                                                : std::optional<std::uint8_t>(it->second.port);
  if (const auto why =
          pm_answer_mismatch(it->second.sent, port_select,
                             std::span<const std::uint8_t>(in.bytes.data(), len), in.slid);
      why != mad::Mismatch::kNone) {
    refuse(it->second, in, why);
    return;
  }
  const Query q = it->second;
  on_wire_.erase(it);
  const auto answer = parse_pm_answer(std::span<const std::uint8_t>(in.bytes.data(), len)
                                          .first(std::min<std::size_t>(len, in.length)));
  if (!answer.ok() || in.length != kMadSize) {
    ++stats_.errors;
    fail(q, kErrPmMalformed,
         answer.ok() ? fmt::format("oversized answer of {} bytes", in.length)
                     : answer.error().message);
  } else if (answer->header.attr_id != static_cast<std::uint16_t>(q.attr)) {
    ++stats_.errors;
    fail(q, kErrPmMalformed,
         fmt::format("answer carries attribute 0x{:04x}", answer->header.attr_id));
  } else {
    ++stats_.received;
    on_answer(q, *answer);
  }
  fill_window();
  if (state_ == SweepState::kActive && queue_.empty() && on_wire_.empty()) finish_sweep();
}

void PerfManager::on_answer(const Query& q, const PmAnswer& a) {
  auto node = monitored_.find(q.guid);
  if (node == monitored_.end() || q.port >= node->second.ports.size()) return;
  MonNode& n = node->second;
  if (q.attr == PmAttr::kClassPortInfo) {
    on_cpi(q, a);
    return;
  }
  if (a.header.status != 0) {
    ++stats_.errors;
    fail(q, kErrPmStatus, fmt::format("MAD status 0x{:04x}", a.header.status));
    return;
  }
  if (q.attr == PmAttr::kPortCounters) {
    auto pc = decode_attribute<PortCounters>(a.data);
    if (!pc.ok() || pc->port_select != q.port) {
      ++stats_.errors;
      fail(q, kErrPmMalformed,
           pc.ok() ? fmt::format("answer is for port {}", pc->port_select) : pc.error().message);
      return;
    }
    if (q.method == kMethodSet) {
      // Our clear took: the next reading counts from zero.
      db_.clear_prev_err(n.guid, q.port, wall_());
      if (!pce_supported(n.ports[q.port])) db_.clear_prev_data(n.guid, q.port, wall_());
      return;
    }
    on_counters(q, n, *pc);
  } else {
    auto pce = decode_attribute<PortCountersExtended>(a.data);
    if (!pce.ok() || pce->port_select != q.port) {
      ++stats_.errors;
      fail(q, kErrPmMalformed,
           pce.ok() ? fmt::format("answer is for port {}", pce->port_select) : pce.error().message);
      return;
    }
    if (q.method == kMethodSet) {
      db_.clear_prev_data(n.guid, q.port, wall_());
      return;
    }
    on_extended(q, n, *pce);
  }
}

void PerfManager::on_cpi(const Query& q, const PmAnswer& a) {
  MonNode& n = monitored_.at(q.guid);
  auto cpi = decode_attribute<ClassPortInfo>(a.data);
  if (!cpi.ok()) {
    ++stats_.errors;
    fail(q, kErrPmMalformed, cpi.error().message);
    return;
  }
  // A redirection to another node is refused, and the port read where it is.
  const bool foreign = (a.header.status & kStatusRedirect) != 0 && foreign_redirect(q, n, *cpi);
  if (!foreign && (a.header.status & kStatusRedirect) != 0) {
    if (take_redirect(q, n, *cpi)) {
      // Ask the redirected PMA for its own ClassPortInfo (OpenSM does the same).
      Query again = q;
      again.attempts = 0;
      queue_.push_front(again);
    }
    return;
  }
  if (foreign || a.header.status != 0) {
    if (!foreign) {
      ++stats_.errors;
      fail(q, kErrPmStatus, fmt::format("MAD status 0x{:04x}", a.header.status));
    }
    // Without ClassPortInfo the port still has PortCounters (mandatory, IBA 16.1.3.5).
    if (n.is_switch) {
      for (std::size_t p = n.esp0 ? 0 : 1; p < n.ports.size(); ++p)
        if (n.ports[p].valid) queue_counters(n, static_cast<mad::PortNum>(p));
    } else {
      queue_counters(n, q.port);
    }
    return;
  }
  const auto mask = static_cast<std::uint16_t>(cpi->capability_mask);
  if (n.is_switch) {
    for (std::size_t p = n.esp0 ? 0 : 1; p < n.ports.size(); ++p) {
      n.ports[p].cap_mask = mask;
      n.ports[p].cpi_valid = true;
    }
    if (state_ == SweepState::kActive)
      for (std::size_t p = n.esp0 ? 0 : 1; p < n.ports.size(); ++p)
        if (n.ports[p].valid) queue_counters(n, static_cast<mad::PortNum>(p));
  } else {
    n.ports[q.port].cap_mask = mask;
    n.ports[q.port].cpi_valid = true;
    if (state_ == SweepState::kActive) queue_counters(n, q.port);
  }
}

// Only to the node's own ports: a PMA elsewhere could report (and have cleared) counters
// that are not its own; a forged ClassPortInfo answer is refused here too. A redirection
// by GID only (LID 0) is refused by take_redirect.
bool PerfManager::foreign_redirect(const Query& q, const MonNode& n, const ClassPortInfo& cpi) {
  const auto lid = static_cast<mad::Lid>(cpi.redirect_lid);
  if (lid == 0 || std::ranges::any_of(n.ports, [&](const MonPort& p) { return p.lid == lid; }))
    return false;
  ++stats_.errors;
  if (may_log(kErrPmForeignRedirect))
    log_->error("{}: PerfMgr redirection of {} to LID {} refused: not a LID of that node",
                format_error_id(kErrPmForeignRedirect), where(n, q.port), lid);
  return true;
}

// IBA 13.4.8.1 / OpenSM handle_redirect: only LID redirection with a QP, a P_Key the
// SM's port holds and QP1's Q_Key is followed.
bool PerfManager::take_redirect(const Query& q, MonNode& n, const ClassPortInfo& cpi) {
  std::string why;
  if (!settings_.redirect) why = "redirection disabled (perfmgr_redir FALSE)";
  if (cpi.redirect_lid == 0 && cpi.redirect_gid_prefix == 0 && cpi.redirect_gid_guid == 0)
    why = "both redirect LID and GID are zero";
  else if (cpi.redirect_lid == 0)
    why = "GID-only redirection is not supported";
  else if (cpi.redirect_lid > mad::kMaxUnicastLid)
    why = fmt::format("redirect LID {} is not a unicast LID", cpi.redirect_lid);
  if (why.empty() && cpi.redirect_qp == 0) why = "RedirectQP 0";
  if (why.empty() && cpi.redirect_pkey == 0) why = "RedirectP_Key 0";
  if (why.empty() && cpi.redirect_qkey != mad::kGsiQKey)
    why = fmt::format("RedirectQ_Key 0x{:08x}", cpi.redirect_qkey);
  std::optional<std::uint16_t> pkey_index;
  if (why.empty() && view_) {
    for (std::size_t i = 0; i < view_->local_pkeys.size(); ++i)
      if ((view_->local_pkeys[i] & 0x7FFF) == (cpi.redirect_pkey & 0x7FFF))
        pkey_index = static_cast<std::uint16_t>(i);
    if (!pkey_index)
      why = fmt::format("P_Key 0x{:04x} is not in the SM port's table", cpi.redirect_pkey);
  }
  if (!why.empty()) {
    ++stats_.errors;
    if (may_log(kErrPmRedirect))
      log_->error("{}: PerfMgr redirection of {} not followed: {}", format_error_id(kErrPmRedirect),
                  where(n, q.port), why);
    return false;
  }
  Redirect r;
  r.lid = static_cast<mad::Lid>(cpi.redirect_lid);
  r.qp = static_cast<std::uint32_t>(cpi.redirect_qp);
  r.qkey = static_cast<std::uint32_t>(cpi.redirect_qkey);
  r.pkey_index = *pkey_index;
  n.ports[q.port].redirect = r;
  n.ports[q.port].cpi_valid = false;
  log_->info("PerfMgr: {} redirects to LID {} QP 0x{:x}", where(n, q.port), r.lid, r.qp);
  return true;
}

}  // namespace ibsm::perfmgr
