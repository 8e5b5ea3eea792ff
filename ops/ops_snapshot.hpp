// What the operator tools read of the SM: one immutable snapshot, published by the
// SM's thread after every change worth showing (a sweep, a state change, a command
// carried out) and read from any thread without locking the SM. ibsm-ctl, the
// PerfMgr, the /metrics endpoint and the status page all read this one object; the
// fabric itself is the SA's snapshot of the last heavy sweep, shared, not copied.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cabling/deviation.hpp"
#include "conf/options.hpp"
#include "mad/smp_client.hpp"
#include "mad/types.hpp"
#include "names/node_name_map.hpp"
#include "perfmgr/counter_snapshot.hpp"
#include "sa/limits.hpp"
#include "sa/server.hpp"
#include "sa/snapshot.hpp"

namespace ibsm::ops {

enum class SweepKind : std::uint8_t { kLight, kHeavy, kTargeted };
std::string_view sweep_kind_name(SweepKind k);  // "light", "heavy", "targeted"

struct SweepRecord {
  std::uint64_t number = 0;  // 1 = the first sweep of this process
  SweepKind kind = SweepKind::kLight;
  std::string reason;  // why a heavy sweep ran (heavy_reason_name); "interval" for light ones
  std::chrono::system_clock::time_point started;
  double seconds = 0;
  mad::SmpCounters mads;  // this sweep only
  bool subnet_up = false;
  bool standby = false;  // the election stopped it
  std::size_t problems = 0;
  std::size_t nodes = 0, switches = 0, end_ports = 0;  // heavy and targeted sweeps
};

// Sweep durations since start, for /metrics' histogram (Prometheus buckets: a
// duration counts in every bucket whose bound it does not exceed).
struct DurationHistogram {
  static constexpr std::array<double, 11> kBounds = {0.01, 0.05, 0.1, 0.25, 0.5, 1,
                                                     2.5,  5,    10,  30,   60};
  std::array<std::uint64_t, kBounds.size()> cumulative{};
  std::uint64_t count = 0;
  double sum = 0;
  void observe(double seconds) {
    for (std::size_t i = 0; i < kBounds.size(); ++i)
      if (seconds <= kBounds[i]) ++cumulative[i];
    ++count;
    sum += seconds;
  }
};

// The last routing run (heavy or targeted sweep).
struct RoutingOutcome {
  std::string engine;              // the engine whose tables were programmed
  std::vector<std::string> chain;  // routing_engine as configured, in order
  bool fallback = false;           // `engine` is not the first of the chain
  double ms = 0;                   // the engine's time
  bool graded = false;             // the route report below is filled in
  std::uint64_t pairs = 0;         // (source end port, destination LID) pairs
  std::uint64_t unreachable = 0;
  std::uint64_t loops = 0;
  bool acyclic = true;        // channel dependency graph, every VL
  std::uint64_t max_efi = 0;  // edge forwarding index of the busiest channel
  double mean_efi = 0;
  std::chrono::system_clock::time_point when;
};

struct RemoteSmInfo {
  mad::Guid guid = 0;
  mad::Lid lid = 0;
  std::uint8_t priority = 0;
  mad::SmState state = mad::SmState::kNotActive;
  bool answered = false;
};

struct McastGroupInfo {
  mad::Lid mlid = 0;
  std::string mgid;  // "ff12:401b:ffff::ffff:ffff"
  std::uint16_t pkey = 0;
  std::size_t members = 0;
};

struct PartitionsStatus {
  std::string file;
  bool ok = true;  // the last read succeeded (else the last good one stays in force)
  std::vector<std::string> errors;
  std::size_t partitions = 0;
  std::chrono::system_clock::time_point when;
};

// The cabling check of the last heavy sweep (issue 35): the deviations from
// topo_config_file and the links running below what both ends support. Immutable once
// published; shared between snapshots until the next check or reload.
struct CablingStatus {
  std::string file;          // topo_config_file ("" none)
  bool file_ok = true;       // the last read succeeded (else the last good one, if any, stays)
  std::string error;         // the last read's error, with its ID and file:line
  bool file_loaded = false;  // a good file is in force (deviations are computed)
  bool checked = false;      // a heavy sweep has checked since start
  std::vector<cabling::Deviation> deviations;  // against the file, sorted; none without one
  std::vector<cabling::Deviation> degraded;    // width/speed below the best both ends support
  double ms = 0;                               // the last check's time
  std::chrono::system_clock::time_point when;  // of the last check
};
using CablingStatusPtr = std::shared_ptr<const CablingStatus>;

// One port the health policy (issue 35, sm/health/) judges unhealthy, with both ends
// of its link named. The words are those of the hm_* keys, so ctl, metrics, events and
// the dump speak opensm.conf's language.
struct UnhealthyPort {
  mad::Guid node_guid = 0;  // with `port`, names the port (a switch's share one GUID)
  mad::PortNum port = 0;
  mad::Guid port_guid = 0;  // the port's own GUID (a CA port's differs from its node's)
  bool is_switch = false;
  std::string node_name;  // display name (names::name_of)
  std::string condition;  // "flapping", "noisy", ... (condition_name)
  std::string action;     // what is done: "report", "isolate", ... (action_name)
  std::string asked;      // what the hm_*_action key asks
  std::string downgrade;  // why action is milder than asked: "", "sm_path", "host_only_link", "cap"
  std::string detail;     // "flapped in 5 of the last 30 sweeps"
  std::chrono::system_clock::time_point since;
  // The far end of the port's link (0 and "" when the port has no link now).
  mad::Guid remote_guid = 0;
  mad::PortNum remote_port = 0;
  std::string remote_name;
};

// The health policy's state: immutable once published, shared between snapshots until
// the set of unhealthy ports or the policy file's state changes.
struct HealthStatus {
  bool enabled = true;               // hm_unhealthy_ports_checks
  std::vector<UnhealthyPort> ports;  // by (node_guid, port)
  std::size_t isolated = 0;          // ports whose action is isolate now
  unsigned max_isolated = 0;         // hm_max_isolated_ports
  std::string policy_file;           // hm_ports_health_policy_file ("" none)
  bool policy_ok = true;             // the last read succeeded (else the last good one stays)
  std::string policy_error;          // the last read's error, with its ID and file:line
  std::string dump_file;             // opensm-unhealthy-ports.dump's path
};
using HealthStatusPtr = std::shared_ptr<const HealthStatus>;

struct OpsSnapshot {
  std::uint64_t generation = 0;  // +1 per publish
  std::chrono::system_clock::time_point published;
  std::chrono::system_clock::time_point started;  // when the SM started
  std::string version;

  // The SM (IBA 14.4).
  mad::SmState state = mad::SmState::kDiscovering;
  std::uint8_t priority = 0;             // sm_priority in force
  std::uint8_t master_priority = 0;      // master_sm_priority (0: sm_priority)
  mad::Guid port_guid = 0;               // our SM port
  mad::Lid sm_lid = 0;                   // the master's LID as we programmed/learned it
  std::optional<mad::Guid> master_guid;  // standby: the master we poll
  std::vector<RemoteSmInfo> other_sms;
  std::string status_line;  // what `systemctl status` shows

  // Sweeping.
  bool sweeping_enabled = true;  // `sweep off` stops the periodic light sweeps
  std::uint32_t sweep_interval_s = 0;
  std::uint64_t sweeps = 0;
  std::uint64_t heavy_sweeps = 0;
  std::string phase;                       // sweep phase now (IDLE between sweeps)
  std::vector<SweepRecord> recent_sweeps;  // newest last, at most kRecentSweeps
  static constexpr std::size_t kRecentSweeps = 16;
  std::optional<std::chrono::system_clock::time_point> last_subnet_up;
  std::array<DurationHistogram, 3> sweep_durations;  // index = SweepKind

  // MADs by class since start: SMPs (SubnMgt, 0x01/0x81) and SA (SubnAdm, 0x03).
  mad::SmpCounters smp;
  sa::SaCounters sa;
  // Refusals of hostile or greedy peers (docs/security.md): SA requests refused at a
  // per-port or total bound (sa/limits.hpp), PerfMgt answers that matched no query.
  sa::LimitCounters sa_refused;
  std::uint64_t perf_answers_refused = 0;

  RoutingOutcome routing;
  std::vector<McastGroupInfo> mcast_groups;
  PartitionsStatus partitions;
  CablingStatusPtr cabling;  // never null once published
  HealthStatusPtr health;    // never null once published

  // The PerfMgr: whether it runs, and its counters as of its last finished sweep
  // (null before the first).
  bool perfmgr_enabled = false;
  perfmgr::CounterSnapshotPtr perf_counters;

  // The configuration in force (after reloads), and the fabric of the last heavy sweep
  // (null before the first one, and, on fabrics above kBigFabricNodes, while the
  // next one is being built: the SM never holds two big copies at once).
  std::shared_ptr<const conf::Options> options;
  std::shared_ptr<const sa::Snapshot> fabric;
  // The node-name map in force (node_name_map_name), shared with the SM; never null
  // once published. ctl shows its names beside the NodeDescriptions.
  std::shared_ptr<const names::NodeNameMap> node_names;
  static constexpr std::size_t kBigFabricNodes = 1000;
};
using OpsSnapshotPtr = std::shared_ptr<const OpsSnapshot>;

}  // namespace ibsm::ops
