// PerfManager: OpenSM's performance manager (osm_perfmgr.c) on ibsm's event loop.
//
// Every perfmgr_sweep_time_s it reads PortCounters (and PortCountersExtended where
// ClassPortInfo says the port has them) of every port of every switch and CA in the
// SM's last fabric, with PerfMgt GMPs (class 0x04, LID-routed to QP1 or where
// ClassPortInfo redirects), at most perfmgr_max_outstanding_queries at once. The
// readings go into the CounterDb; error-counter increases and XmitWait over the
// threshold are logged with both ends of the link; counters near saturation are
// cleared (the 32-bit data counters only where there are no 64-bit ones).
//
// The sweep's schedule is in perf_manager.cpp, what an answer does in perf_answers.cpp,
// the accounting of the counters it carries in perf_counters.cpp.
//
// It runs inside the SM's thread: the SM's dispatcher hands it the class 0x04 MADs
// (handle) and the loop calls tick() between polls. It never blocks: while the SM
// runs a heavy sweep it is paused (no new query leaves; answers to those out are
// still taken), so it cannot delay one (docs/architecture.md, PerfMgr).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "mad/answer_match.hpp"
#include "mad/transport.hpp"
#include "perfmgr/attributes.hpp"
#include "perfmgr/counter_db.hpp"
#include "perfmgr/counter_snapshot.hpp"
#include "perfmgr/dump_writer.hpp"
#include "perfmgr/fabric_view.hpp"

namespace ibsm::perfmgr {

struct PerfSettings {
  bool enabled = false;                       // perfmgr
  std::chrono::seconds sweep_time{180};       // perfmgr_sweep_time_s
  unsigned max_outstanding = 500;             // perfmgr_max_outstanding_queries
  bool ignore_cas = false;                    // perfmgr_ignore_cas
  bool rm_nodes = true;                       // perfmgr_rm_nodes
  bool log_errors = true;                     // perfmgr_log_errors
  bool query_cpi = true;                      // perfmgr_query_cpi
  bool xmit_wait_log = false;                 // perfmgr_xmit_wait_log
  std::uint32_t xmit_wait_threshold = 65535;  // perfmgr_xmit_wait_threshold
  bool redirect = true;                       // perfmgr_redir
  std::chrono::milliseconds timeout{200};     // transaction_timeout
  unsigned retries = 3;                       // transaction_retries
  std::string dump_file;                      // event_db_dump_file ("" = none)
  // Failure lines (timeouts, bad answers) per error ID and sweep before they are
  // only counted (a summary line ends the sweep).
  unsigned log_lines_per_sweep = 20;
};

struct PerfStats {
  std::uint64_t sweeps = 0;
  std::chrono::duration<double> last_sweep{0};  // wall time of the last full sweep
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t timeouts = 0;  // queries that failed after all retries
  std::uint64_t retries = 0;
  std::uint64_t errors = 0;  // bad status, malformed answers, send failures
  std::uint64_t unexpected = 0;
  std::uint64_t refused = 0;  // answers with a live TID but not their query's (dropped)
  std::uint64_t peak_outstanding = 0;
  std::uint64_t clears = 0;  // PortCounters(Extended) Sets after near-saturation
};

enum class SweepState : std::uint8_t { kSleep, kActive };

class PerfManager {
 public:
  // `wall` gives the timestamps of the counter database and its dumps (time(NULL)
  // in production; a fixed value in tests).
  PerfManager(mad::MadTransport& transport, const Clock& clock, Logger log, PerfSettings settings,
              std::function<std::time_t()> wall);

  // The SM's fabric after a heavy sweep (the next PerfMgr sweep uses it).
  void set_fabric(FabricViewPtr view) { view_ = std::move(view); }
  // A heavy sweep starts (true) or ends (false): no query leaves meanwhile.
  void set_paused(bool paused);
  // A PerfMgt MAD for us (the dispatcher's class 0x04 handler).
  void handle(const mad::IncomingMad& in);
  // Starts a sweep when one is due, sends what the window allows, expires deadlines.
  void tick();
  // When tick() next has something to do (a deadline or the next sweep), for the
  // loop's wait; nullopt when idle and disabled.
  std::optional<Clock::TimePoint> next_due() const;

  // Console (OpenSM's `perfmgr` subcommands; perfmgr/console.hpp).
  void set_enabled(bool on);
  bool enabled() const { return settings_.enabled; }
  void sweep_now() { next_sweep_ = clock_.now(); }
  void set_sweep_time(std::chrono::seconds s) { settings_.sweep_time = s; }
  void set_rm_nodes(bool on) { settings_.rm_nodes = on; }
  void set_query_cpi(bool on) { settings_.query_cpi = on; }
  void set_xmit_wait_threshold(std::uint32_t t) { settings_.xmit_wait_threshold = t; }
  void clear_counters();
  // Forgets every redirection (console `clear_redir`); `dump_redir` lists them.
  void clear_redirections();
  std::string dump_redirections() const;
  // Writes the database to event_db_dump_file (else `dir`/opensm_port_counters.log).
  Status dump_counters(bool mach, const std::string& dir) const;
  std::string dump_path(const std::string& dir) const;  // where dump_counters writes
  // Returns once the event_db_dump_file of the last sweep is written (it is written on
  // the dump writer's thread, perfmgr/dump_writer.hpp).
  void wait_for_dump() { dump_writer_->wait_idle(); }

  const PerfSettings& settings() const { return settings_; }
  const PerfStats& stats() const { return stats_; }
  const CounterDb& db() const { return db_; }
  // An immutable copy of the counters with both ends of each link, for /metrics
  // (perfmgr/counter_snapshot.cpp).
  CounterSnapshotPtr counter_snapshot() const;
  SweepState sweep_state() const { return state_; }
  std::size_t outstanding() const { return on_wire_.size(); }
  std::size_t queued() const { return queue_.size(); }
  // How many queries may be out at once on this transport.
  unsigned window() const { return window_; }

  // Per monitored port: what ClassPortInfo said and where the PMA answers.
  struct Redirect {
    mad::Lid lid = 0;
    std::uint32_t qp = 1;
    std::uint32_t qkey = 0x80010000;
    std::uint16_t pkey_index = 0;
  };
  struct MonPort {
    bool valid = false;
    mad::Lid lid = 0;
    bool cpi_valid = false;
    std::uint16_t cap_mask = 0;
    std::optional<Redirect> redirect;
    bool remote_valid = false;
    mad::Guid remote_guid = 0;
    std::string remote_name;
    mad::PortNum remote_port = 0;
  };
  struct MonNode {
    mad::Guid guid = 0;
    std::string name;
    bool is_switch = false;
    bool esp0 = false;
    std::vector<MonPort> ports;
  };
  const std::map<mad::Guid, MonNode>& monitored() const { return monitored_; }

 private:
  struct Query {
    mad::Guid guid = 0;
    mad::PortNum port = 0;
    PmAttr attr = PmAttr::kPortCounters;
    std::uint8_t method = kMethodGet;
    std::uint16_t counter_select = 0xFFFF;
    std::uint8_t counter_select2 = 0;
    unsigned attempts = 0;
    std::uint32_t tid = 0;
    mad::SentMad sent;  // what the answer must show (perfmgr/answer_check.hpp)
    Clock::TimePoint deadline{};
  };

  // The class 0x04 agent on the transport, once; false (logged) when refused.
  bool register_agent();
  void start_sweep();
  void finish_sweep();
  void collect_nodes();
  void queue_node(const MonNode& n);
  void queue_counters(const MonNode& n, mad::PortNum port);
  void fill_window();
  void send(Query q);
  void expire();
  void fail(const Query& q, ErrorId id, const std::string& why);
  // Counts and logs (rate-limited) an answer with a live TID that is not its query's.
  void refuse(const Query& q, const mad::IncomingMad& in, mad::Mismatch why);
  void on_answer(const Query& q, const PmAnswer& a);
  void on_cpi(const Query& q, const PmAnswer& a);
  void on_counters(const Query& q, MonNode& n, const PortCounters& pc);
  void on_extended(const Query& q, MonNode& n, const PortCountersExtended& pce);
  bool take_redirect(const Query& q, MonNode& n, const ClassPortInfo& cpi);
  // True (logged, IBSM-8513) when a redirection points at a LID of another node.
  bool foreign_redirect(const Query& q, const MonNode& n, const ClassPortInfo& cpi);
  void check_overflow(const MonNode& n, mad::PortNum port, const PortCounters& pc);
  void check_ext_overflow(const MonNode& n, mad::PortNum port, const PortCountersExtended& pce);
  void log_errors(const MonNode& n, mad::PortNum port, const ErrReading& now);
  bool pce_supported(const MonPort& p) const {
    return p.cpi_valid && (p.cap_mask & (kCapExtendedWidth | kCapExtendedWidthNoIetf)) != 0;
  }
  bool ietf_supported(const MonPort& p) const {
    return p.cpi_valid && (p.cap_mask & kCapExtendedWidth) != 0;
  }
  bool xmit_wait_supported(const MonPort& p) const {
    return p.cpi_valid && (p.cap_mask & kCapXmitWait) != 0;
  }
  // Rate limit for failure lines: true while `id` may still log this sweep.
  bool may_log(ErrorId id);
  std::string where(const MonNode& n, mad::PortNum port) const;
  static std::string guid_hex(mad::Guid g);

  mad::MadTransport& transport_;
  const Clock& clock_;
  Logger log_;
  PerfSettings settings_;
  std::function<std::time_t()> wall_;
  unsigned window_ = 1;
  bool agent_registered_ = false;

  FabricViewPtr view_;
  std::map<mad::Guid, MonNode> monitored_;
  CounterDb db_;

  SweepState state_ = SweepState::kSleep;
  bool paused_ = false;
  Clock::TimePoint next_sweep_{};
  Clock::TimePoint sweep_started_{};
  std::chrono::steady_clock::time_point sweep_wall_start_{};
  std::deque<Query> queue_;
  std::unordered_map<std::uint32_t, Query> on_wire_;  // by TID (low 32 bits)
  std::uint32_t next_tid_ = 1;
  std::map<std::uint16_t, unsigned> logged_;  // failure lines this sweep, by error ID
  PerfStats stats_;
  std::unique_ptr<DumpWriter> dump_writer_;
};

// The PerfMgr's window on a transport: perfmgr_max_outstanding_queries, but under
// ibsim's umad2sim (a transport with a limit on unanswered requests) at most 4, so
// that with the SMP client's 20 the socket never holds more than 24 (above that it
// can deadlock, mad/umad_transport.hpp).
unsigned perf_window(unsigned max_outstanding, unsigned transport_limit);

}  // namespace ibsm::perfmgr
