// PerfManager (perf_manager.hpp), part 1 of 3: the sweep's schedule. When a sweep is
// due, which nodes and ports it reads, the window of queries on the wire, their
// deadlines and retries, and the console's operations on the whole manager. What an
// answer does is in perf_answers.cpp; the counters an answer carries are accounted in
// perf_counters.cpp.
#include "perfmgr/perf_manager.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mad/transport.hpp"
#include "perfmgr/answer_check.hpp"
#include "perfmgr/errors.hpp"

namespace ibsm::perfmgr {

// "0x0002c90300001234", the GUID as OpenSM logs it.
std::string PerfManager::guid_hex(mad::Guid g) {
  return fmt::format("0x{:016x}", g);
}

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
