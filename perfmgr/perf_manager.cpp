#include "perfmgr/perf_manager.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mad/transport.hpp"
#include "perfmgr/answer_check.hpp"
#include "perfmgr/errors.hpp"

namespace ibsm::perfmgr {

namespace {

// OpenSM's "close to overflowing": 75 % of the counter's range (4-bit ones at 10).
constexpr bool near_full(std::uint64_t v, unsigned bits) {
  if (bits == 4) return v >= 10;
  const std::uint64_t max = bits == 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1;
  return v >= max - max / 4;
}

std::string guid_hex(mad::Guid g) {
  return fmt::format("0x{:016x}", g);
}

}  // namespace

unsigned perf_window(unsigned max_outstanding, unsigned transport_limit) {
  unsigned w = std::max(1u, max_outstanding);
  if (transport_limit != 0) w = std::min(w, 4u);
  return w;
}

PerfManager::PerfManager(mad::MadTransport& transport, const Clock& clock, Logger log,
                         PerfSettings settings, std::function<std::time_t()> wall)
    : transport_(transport),
      clock_(clock),
      log_(std::move(log)),
      settings_(std::move(settings)),
      wall_(std::move(wall)),
      window_(perf_window(settings_.max_outstanding, transport.max_unanswered_requests())),
      dump_writer_(std::make_unique<DumpWriter>(log_)) {
  next_sweep_ = clock_.now();
  if (settings_.enabled) settings_.enabled = register_agent();
}

bool PerfManager::register_agent() {
  if (agent_registered_) return true;
  if (auto st = transport_.register_gsi_class(kClassPerfMgt, kPerfMgtClassVersion); !st.ok()) {
    log_->error("{}: PerfMgr stays disabled: {}", format_error_id(kErrPmSend), st.error().message);
    return false;
  }
  agent_registered_ = true;
  return true;
}

void PerfManager::set_paused(bool paused) {
  paused_ = paused;
  if (!paused_) fill_window();
}

void PerfManager::set_enabled(bool on) {
  if (on == settings_.enabled) return;
  if (on && !register_agent()) return;
  settings_.enabled = on;
  log_->info("PerfMgr {}", on ? "enabled" : "disabled");
  if (on) next_sweep_ = clock_.now();
}

std::optional<Clock::TimePoint> PerfManager::next_due() const {
  std::optional<Clock::TimePoint> due;
  for (const auto& [tid, q] : on_wire_)
    if (!due || q.deadline < *due) due = q.deadline;
  // No fabric yet (no SUBNET UP): nothing is due, so the loop does not spin on it.
  if (settings_.enabled && view_ && state_ == SweepState::kSleep && (!due || next_sweep_ < *due))
    due = next_sweep_;
  return due;
}

void PerfManager::tick() {
  expire();
  if (settings_.enabled && !paused_ && state_ == SweepState::kSleep &&
      clock_.now() >= next_sweep_ && view_)
    start_sweep();
  fill_window();
  if (state_ == SweepState::kActive && queue_.empty() && on_wire_.empty()) finish_sweep();
}

void PerfManager::start_sweep() {
  state_ = SweepState::kActive;
  sweep_started_ = clock_.now();
  sweep_wall_start_ = std::chrono::steady_clock::now();
  // OpenSM's timer fires every perfmgr_sweep_time_s whatever the sweep took.
  next_sweep_ = sweep_started_ + settings_.sweep_time;
  logged_.clear();
  log_->debug("PerfMgr sweep starts ({} nodes in the fabric)", view_->nodes.size());
  collect_nodes();
  for (const auto& [guid, n] : monitored_)
    queue_node(n);
}

void PerfManager::finish_sweep() {
  state_ = SweepState::kSleep;
  ++stats_.sweeps;
  stats_.last_sweep = std::chrono::steady_clock::now() - sweep_wall_start_;
  for (const auto& [id, n] : logged_) {
    if (n > settings_.log_lines_per_sweep) {
      log_->warn("{}: {} more such PerfMgr lines this sweep were not logged",
                 format_error_id(ErrorId{id}), n - settings_.log_lines_per_sweep);
    }
  }
  log_->info("PerfMgr sweep {} done in {:.3f} s ({} nodes; {} queries, {} answers, {} timeouts)",
             stats_.sweeps, stats_.last_sweep.count(), monitored_.size(), stats_.sent,
             stats_.received, stats_.timeouts);
  // event_db_dump_file: formatted and written on the dump writer's thread, from a copy
  // that shares the database's nodes (the SM's loop goes on meanwhile).
  if (!settings_.dump_file.empty()) dump_writer_->submit(db_, true, dump_path(""));
  // Once per PerfMgr sweep, like SUBNET UP: what it found is readable in the file now.
  log_->flush();
}

// OpenSM's collect_guids + the removal pass of perfmgr_query_counters: nodes new in
// the fabric are added, nodes gone are removed (perfmgr_rm_nodes: forgotten, else
// kept inactive). What the SM knows of a node's ports (LIDs, peers) is refreshed.
void PerfManager::collect_nodes() {
  std::map<mad::Guid, const ViewNode*> present;
  for (const ViewNode& v : view_->nodes) {
    if (settings_.ignore_cas && !v.is_switch) continue;
    present[v.guid] = &v;
  }
  for (auto it = monitored_.begin(); it != monitored_.end();) {
    if (present.contains(it->first)) {
      ++it;
      continue;
    }
    log_->error("{}: node \"{}\" (guid {}) no longer exists so removing from PerfMgr monitoring{}",
                format_error_id(kErrPmNodeGone), it->second.name, guid_hex(it->first),
                settings_.rm_nodes ? "" : " (its counters are kept: perfmgr_rm_nodes FALSE)");
    if (settings_.rm_nodes)
      db_.erase(it->first);
    else
      db_.mark_active(it->first, false);
    it = monitored_.erase(it);
  }
  const std::time_t now = wall_();
  for (const auto& [guid, v] : present) {
    MonNode& n = monitored_[guid];
    const bool fresh = n.guid == 0;
    n.guid = guid;
    n.name = v->name;
    n.is_switch = v->is_switch;
    n.esp0 = v->esp0;
    if (fresh || n.ports.size() != v->ports.size()) n.ports.assign(v->ports.size(), MonPort{});
    for (std::size_t p = 0; p < v->ports.size(); ++p) {
      const ViewPort& vp = v->ports[p];
      MonPort& mp = n.ports[p];
      mp.valid = vp.valid && vp.lid != 0;
      if (mp.lid != vp.lid) mp.redirect.reset();  // a new LID: ask it afresh
      mp.lid = vp.lid;
      mp.remote_valid = vp.remote_valid;
      mp.remote_guid = vp.remote_guid;
      mp.remote_name = vp.remote_name;
      mp.remote_port = vp.remote_port;
    }
    const unsigned num_ports = v->ports.empty() ? 0 : static_cast<unsigned>(v->ports.size() - 1);
    db_.create(guid, n.esp0, num_ports, n.name, now);
    db_.mark_active(guid, true);
  }
}

void PerfManager::queue_node(const MonNode& n) {
  const mad::PortNum first = n.esp0 ? 0 : 1;
  for (std::size_t p = first; p < n.ports.size(); ++p) {
    const MonPort& mp = n.ports[p];
    if (!mp.valid) continue;
    if (settings_.query_cpi && !mp.cpi_valid) {
      Query q;
      q.guid = n.guid;
      q.port = static_cast<mad::PortNum>(p);
      q.attr = PmAttr::kClassPortInfo;
      queue_.push_back(q);
      // A switch has one PMA: one ClassPortInfo serves all its ports, whose counters
      // are queued when it answers (OpenSM waits for the next sweep instead).
      if (n.is_switch) return;
      continue;
    }
    queue_counters(n, static_cast<mad::PortNum>(p));
  }
}

void PerfManager::queue_counters(const MonNode& n, mad::PortNum port) {
  const MonPort& mp = n.ports[port];
  Query q;
  q.guid = n.guid;
  q.port = port;
  q.attr = PmAttr::kPortCounters;
  q.counter_select = 0xFFFF;
  q.counter_select2 = 1;
  queue_.push_back(q);
  if (pce_supported(mp)) {
    q.attr = PmAttr::kPortCountersExtended;
    q.counter_select = 0x00FF;
    q.counter_select2 = 0;
    queue_.push_back(q);
  }
}

void PerfManager::fill_window() {
  while (!paused_ && !queue_.empty() && on_wire_.size() < window_) {
    Query q = queue_.front();
    queue_.pop_front();
    send(q);
  }
}

void PerfManager::send(Query q) {
  auto node = monitored_.find(q.guid);
  if (node == monitored_.end() || q.port >= node->second.ports.size()) return;  // gone
  const MonPort& mp = node->second.ports[q.port];
  mad::MadAddress to;
  to.lid = mp.lid;
  to.qpn = 1;
  to.qkey = mad::kGsiQKey;
  if (mp.redirect) {
    to.lid = mp.redirect->lid;
    to.qpn = mp.redirect->qp;
    to.qkey = mp.redirect->qkey;
    to.pkey_index = mp.redirect->pkey_index;
  }
  q.tid = next_tid_++;
  if (next_tid_ == 0) next_tid_ = 1;
  ++q.attempts;
  PmHeader h;
  h.method = q.method;
  h.tid = q.tid;
  h.attr_id = static_cast<std::uint16_t>(q.attr);
  std::array<std::uint8_t, kPmDataSize> data{};
  if (q.attr == PmAttr::kPortCounters) {
    PortCounters pc;
    pc.port_select = q.port;
    pc.counter_select = q.counter_select;
    pc.counter_select2 = q.counter_select2;
    encode_attribute(pc, data);
  } else if (q.attr == PmAttr::kPortCountersExtended) {
    PortCountersExtended pce;
    pce.port_select = q.port;
    pce.counter_select = q.counter_select;
    encode_attribute(pce, data);
  }
  const auto mad = build_pm_mad(h, data);
  q.sent.mgmt_class = kClassPerfMgt;
  q.sent.method = q.method;
  q.sent.tid_low = q.tid;
  q.sent.attr_id = h.attr_id;
  q.sent.attr_mod = 0;
  q.sent.dlid = to.lid;
  ++stats_.sent;
  if (q.attempts > 1) ++stats_.retries;
  const auto timeout = static_cast<std::uint32_t>(settings_.timeout.count());
  if (auto st = transport_.send_gsi(mad, to, timeout); !st.ok()) {
    ++stats_.errors;
    fail(q, kErrPmSend, st.error().message);
    return;
  }
  q.deadline = clock_.now() + settings_.timeout;
  on_wire_.emplace(q.tid, q);
  stats_.peak_outstanding = std::max<std::uint64_t>(stats_.peak_outstanding, on_wire_.size());
}

void PerfManager::expire() {
  const auto now = clock_.now();
  std::vector<Query> late;
  for (auto it = on_wire_.begin(); it != on_wire_.end();) {
    if (it->second.deadline <= now) {
      late.push_back(it->second);
      it = on_wire_.erase(it);
    } else {
      ++it;
    }
  }
  std::sort(late.begin(), late.end(), [](const Query& a, const Query& b) { return a.tid < b.tid; });
  for (Query& q : late) {
    if (q.attempts <= settings_.retries) {
      queue_.push_front(q);  // retries go first: the sweep's end waits for them
      continue;
    }
    ++stats_.timeouts;
    fail(
        q, kErrPmTimeout,
        fmt::format("no answer after {} attempts of {} ms", q.attempts, settings_.timeout.count()));
  }
}

bool PerfManager::may_log(ErrorId id) {
  return ++logged_[id.code] <= settings_.log_lines_per_sweep;
}

std::string PerfManager::where(const MonNode& n, mad::PortNum port) const {
  return fmt::format("node \"{}\" (NodeGUID: {}) port {}", n.name, guid_hex(n.guid), port);
}

static std::string_view attr_name(PmAttr a) {
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
                q.method == kMethodSet ? "Set" : "Get", attr_name(q.attr), where(n, q.port), why,
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
      field(65, 1), q.method == kMethodSet ? "Set" : "Get", attr_name(q.attr), asked, q.sent.dlid,
      mad::mismatch_name(why));
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

void PerfManager::clear_counters() {
  db_.clear_totals(wall_());
  log_->info("PerfMgr counters cleared");
}

void PerfManager::clear_redirections() {
  for (auto& [guid, n] : monitored_)
    for (MonPort& p : n.ports)
      if (p.redirect) {
        p.redirect.reset();
        p.cpi_valid = false;
      }
}

std::string PerfManager::dump_redirections() const {
  std::string out;
  std::size_t count = 0;
  for (const auto& [guid, n] : monitored_) {
    for (std::size_t p = 0; p < n.ports.size(); ++p) {
      const MonPort& mp = n.ports[p];
      if (!mp.redirect) continue;
      ++count;
      out += fmt::format(
          "\"{}\" 0x{:x} port {} LID {} redirected to LID {} QP 0x{:x} P_Key index {}\n", n.name,
          n.guid, p, mp.lid, mp.redirect->lid, mp.redirect->qp, mp.redirect->pkey_index);
    }
  }
  return fmt::format("Redirection Table\n-----------------\n{}{} redirected ports\n", out, count);
}

std::string PerfManager::dump_path(const std::string& dir) const {
  return !settings_.dump_file.empty()
             ? settings_.dump_file
             : (dir.empty() ? std::string(".") : dir) + "/opensm_port_counters.log";
}

Status PerfManager::dump_counters(bool mach, const std::string& dir) const {
  return write_counter_dump(db_, mach, dump_path(dir));
}

}  // namespace ibsm::perfmgr
