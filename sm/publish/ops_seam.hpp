// The SM's side of the operator seam (ops/): the books it keeps for ibsm-ctl and the
// metrics between sweeps (sweep records and durations, the last routing outcome, the
// partitions file's status, the multicast groups seen, the ports of the last SA
// snapshot, the operators waiting for a sweep), the events it emits, and the OpsSnapshot
// it publishes from them and from what the SM hands it. It never sees the SM: the SM
// passes what it is now (state, counters, fabric) explicitly. SM thread only; readers
// take the published snapshot from ops().snapshot on any thread.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "conf/options.hpp"
#include "mad/smp_client.hpp"
#include "ops/fabric_diff.hpp"
#include "ops/ops.hpp"
#include "routing/route_report.hpp"
#include "sa/mcast/group_store.hpp"
#include "sa/snapshot.hpp"

namespace ibsm::sm::publish {

// One finished sweep as the operator sees it (the SM's SweepResult, less the report).
struct SweepOutcome {
  bool subnet_up = false;
  bool standby = false;  // the election stopped it
  double seconds = 0;
  mad::SmpCounters mads;  // this sweep only
  std::size_t problems = 0;
  std::size_t nodes = 0, switches = 0, end_ports = 0;
};

class OpsSeam {
 public:
  using SysTime = std::chrono::system_clock::time_point;

  ops::Ops& ops() { return ops_; }
  void set_version(std::string v) { version_ = std::move(v); }
  void emit(ops::EventType type, std::vector<ops::EventField> fields) {
    ops_.events.emit(type, std::move(fields));
  }

  // Publishes a new OpsSnapshot: `live` carries what the SM is now (state, priorities,
  // port, SMs, status line, sweeping, interval, phase, MAD/SA/PerfMgr counters, fabric,
  // node names); this fills in the rest from its books (generation, times, version,
  // sweep counts, records and durations, routing, multicast groups, partitions) and
  // `options`, shared with the last snapshot while they do not change.
  void publish(ops::OpsSnapshot live, const conf::Options& options);
  // A big fabric's SA snapshot is not held by the ops snapshot while the SA builds the
  // next one or amends it (sa/server.hpp: never two big copies at once).
  void release_big_fabric();

  // Sweeps: sweep_started before (its event; returns the start time), record_sweep
  // after (its event, its record, the waiters it answers); the caller publishes then.
  SysTime sweep_started(ops::SweepKind kind, std::string_view reason);
  void record_sweep(ops::SweepKind kind, std::string reason, const SweepOutcome& r,
                    SysTime started);
  std::uint64_t sweeps() const { return sweeps_; }
  std::uint64_t heavy_sweeps() const { return heavy_sweeps_; }
  const std::deque<ops::SweepRecord>& recent_sweeps() const { return recent_sweeps_; }

  // An operator's resweep/reroute, answered when a sweep ends: a heavy request by a
  // heavy, targeted or reroute sweep, a light one by any.
  void wait_for_sweep(bool heavy, std::function<void(ops::ControlReply)> reply) {
    sweep_waiters_.push_back({heavy, std::move(reply)});
  }
  bool has_sweep_waiters() const { return !sweep_waiters_.empty(); }

  // Routing: note_routing(engine, ms, nullptr) when the engine's tables are taken,
  // then again with the grade once it is known (that emits the routing event).
  void note_routing(const std::string& engine, const std::vector<std::string>& chain, double ms,
                    const routing::RouteReport* grade);
  const ops::RoutingOutcome& routing() const { return routing_outcome_; }

  // partitions.conf: the file at start-up, and each reload's outcome (an event).
  void partitions_file(std::string file);
  void partitions_reloaded(std::string file, bool ok, std::vector<std::string> errors,
                           std::size_t partitions);

  // The cabling check (sm/cabling_check/): its status after a reload of topo_config_file
  // or a heavy sweep's check. A check whose deviations differ from the last check's
  // emits topology_deviation (deviations, degraded, kinds, file); `kinds` is
  // kinds_summary's text. The next publish carries it.
  void cabling_status(ops::CablingStatusPtr s, bool checked, const std::string& kinds);

  // The health policy (sm/health/): its state after a change (a decision, a clear, a
  // policy reload). The next publish carries it.
  void health_status(ops::HealthStatusPtr s) { health_ = std::move(s); }

  // After a new SA snapshot: port, link and LID events against the last one.
  void report_fabric_changes(const sa::Snapshot& snap);
  // Multicast groups created and deleted since the last look (an event each); true when
  // the set changed (the caller publishes).
  bool observe_groups(const sa::McGroupStore& groups);

  // "SUBNET UP ..." summary of the last heavy sweep as master (status line).
  const std::string& last_up() const { return last_up_; }
  void set_last_up(std::string s) { last_up_ = std::move(s); }

 private:
  struct SweepWaiter {
    bool heavy = false;
    std::function<void(ops::ControlReply)> reply;
  };
  void answer_sweep_waiters(const SweepOutcome& r, ops::SweepKind kind);

  ops::Ops ops_;
  std::string version_;
  std::string last_up_;
  ops::PortIndex port_index_;  // ports of the last published SA snapshot
  std::deque<ops::SweepRecord> recent_sweeps_;
  std::array<ops::DurationHistogram, 3> sweep_durations_;
  std::uint64_t sweeps_ = 0;
  std::uint64_t heavy_sweeps_ = 0;
  ops::RoutingOutcome routing_outcome_;
  ops::PartitionsStatus partitions_status_;
  ops::CablingStatusPtr cabling_ = std::make_shared<const ops::CablingStatus>();
  std::vector<cabling::Deviation> cabling_reported_;  // the deviations of the last event
  ops::HealthStatusPtr health_ = std::make_shared<const ops::HealthStatus>();
  SysTime started_ = std::chrono::system_clock::now();
  std::optional<SysTime> last_subnet_up_;
  std::uint64_t ops_generation_ = 0;
  std::uint64_t mcast_changes_seen_ = 0;
  std::map<mad::Lid, ops::McastGroupInfo> mcast_known_;
  std::shared_ptr<const conf::Options> options_shared_;
  std::vector<SweepWaiter> sweep_waiters_;
};

}  // namespace ibsm::sm::publish
