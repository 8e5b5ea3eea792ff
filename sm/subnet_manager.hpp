// SubnetManager: the daemon's core object. It owns the fabric model, the SMP
// client and what has been programmed into the switches, and runs the sweep loop
// on the caller's thread. Nothing here is global; main() builds one and runs it.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/log_modules.hpp"
#include "conf/options.hpp"
#include "mad/smp_client.hpp"
#include "mad/transport.hpp"
#include "names/node_name_map.hpp"
#include "ops/fabric_diff.hpp"
#include "ops/ops.hpp"
#include "perfmgr/perf_manager.hpp"
#include "qos_policy/model.hpp"
#include "routing/engine.hpp"
#include "routing/route_report.hpp"
#include "sa/server.hpp"
#include "sm/cc/cc_control.hpp"
#include "sm/election/election.hpp"
#include "sm/election/lft_mirror.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/lids/lid_assigner.hpp"
#include "sm/links/link_settings.hpp"
#include "sm/links/port_config.hpp"
#include "sm/links/port_programmer.hpp"
#include "sm/mcast/mcast_updates.hpp"
#include "sm/mcast/multicast_manager.hpp"
#include "sm/mkey/sweep_keys.hpp"
#include "sm/pkeys/pkey_manager.hpp"
#include "sm/publish/publishing.hpp"
#include "sm/qos/qos_state.hpp"
#include "sm/routes/router.hpp"
#include "sm/sweep/loop_state.hpp"
#include "sm/sweep/sweep_context.hpp"
#include "sm/sweep/sweep_phase.hpp"
#include "sm/sweep/sweep_report.hpp"
#include "sm/tables/alias_guid_programmer.hpp"
#include "sm/tables/port_tables.hpp"
#include "sm/tables/switch_tables.hpp"
#include "sm/traps/trap_handler.hpp"

namespace ibsm::sm {

// Requests from outside the SM's thread (signal handlers set these).
struct ControlFlags {
  std::atomic<bool> stop{false};         // SIGTERM/SIGINT
  std::atomic<bool> heavy_sweep{false};  // SIGHUP: reload configuration, then heavy sweep
  std::atomic<bool> reopen_log{false};   // SIGUSR1: logrotate moved the log
  std::atomic<bool> handover{false};     // SIGUSR2: hand mastership to the best standby SM
};

struct SweepResult {
  bool subnet_up = false;
  bool heavy = false;
  bool standby = false;  // the election stopped the sweep: another SM is (or becomes) master
  std::size_t nodes = 0;
  std::size_t switches = 0;
  std::size_t end_ports = 0;
  double seconds = 0;
  mad::SmpCounters mads;  // this sweep only
  SweepReport report;
};

class SubnetManager {
 public:
  SubnetManager(mad::MadTransport& transport, const Clock& clock, Logger log,
                const conf::Options& options);

  // Checks what can be checked before touching the fabric (routing engine names,
  // cache directory). Called by main() so bad start-up input fails fast.
  Status validate_start() const;

  // Runs sweeps until control.stop becomes true. In once mode (-o) returns after
  // the first heavy sweep: 0 on SUBNET UP, non-zero otherwise.
  int run(ControlFlags& control);
  // One turn of run()'s loop: a sweep if one is due, else one poll of the port and
  // the work between sweeps. Returns the exit code when once mode (-o) is done.
  // Exposed for tests, which drive the loop with a fake clock.
  std::optional<int> step(ControlFlags& control);

  // One sweep, heavy or light as needed. Exposed for tests.
  SweepResult sweep(const std::atomic<bool>& stop);
  void request_heavy_sweep(HeavyReason why) { loop_.heavy_reason = why; }

  // Called on the SM's thread when SIGHUP arrives, before the heavy sweep it
  // triggers; main() re-reads the configuration there and calls apply_options().
  void set_hangup_handler(std::function<void()> h) { hooks_.hangup = std::move(h); }
  // Receives a one-line status (SM state, master, last SUBNET UP) whenever it
  // changes; main() hands it to systemd (`systemctl status`).
  void set_status_handler(std::function<void(const std::string&)> h) {
    hooks_.status = std::move(h);
  }
  // Where routing engines come from (the routing seam): routing::make_engine unless a
  // test puts a fake in its place. Returns nullptr for a name it does not know.
  using EngineFactory = routes::EngineFactory;
  void set_engine_factory(EngineFactory f) { router_.set_engine_factory(std::move(f)); }
  std::string status_line() const;
  // Takes options that may change at run time (OpenSM's reloadable keys).
  void apply_options(const conf::Options& options);

  // Node names (node_name_map_name, names/node_name_map.hpp): reads the map again and
  // renames the nodes of the fabric model; logs and dumps use the names from then on.
  // A map in error is logged (file:line) and returned, and the map in force stays.
  // Call on the SM's thread: main() at start-up and on SIGHUP, ibsm-ctl's reload.
  Status reload_node_names();
  // The map in force; snapshot() may be taken on any thread.
  const names::NodeNames& node_names() const { return node_names_; }

  // Re-reads partitions.conf (SIGHUP does it before its heavy sweep). A broken file
  // is logged and the last good configuration stays in force: returns false.
  bool reload_partitions();
  // Re-reads the QoS policy file (qos_policy_file, with qos on; at start and on SIGHUP)
  // as a whole or not at all: a file that does not parse is logged with
  // file:line:column and the last good policy stays (returns false). The next SA
  // snapshot carries the result (sm/qos/qos_state.hpp).
  bool reload_qos_policy() { return qos_.reload_policy(options_); }
  const PartitionManager& partitions() const { return partitions_; }
  // Re-reads topo_config_file (at start, on SIGHUP and ibsm-ctl's reload): a file in
  // error is logged with its ID and file:line and returned, and the last good one stays
  // (sm/cabling_check/). Each heavy sweep that brings the subnet up compares with it.
  Status reload_topology();
  const PortTables& port_tables() const { return port_tables_; }
  // The last heavy sweep's SL2VL programming for per-path SLs or QoS (null: none needed).
  using Sl2VlCounts = tables::Sl2VlCounts;
  const Sl2VlCounts* sl2vl_counts() const { return tables_.sl2vl_counts(); }
  const routing::PathSls* path_sls() const { return router_.path_sls().get(); }

  const Fabric& fabric() const { return fabric_; }
  mad::SmState state() const { return election_.state(); }
  const election::Election& election() const { return election_; }
  const mad::SmpCounters& counters() const { return client_.counters(); }
  const sa::SaServer& sa() const { return sa_; }
  sa::SaServer& sa() { return sa_; }

  // Alias GUIDs the SA queued (GUIDInfoRecord Set/Delete) since the last call: queues
  // SubnSet(GUIDInfo) for the blocks the ports do not hold yet
  // (sm/tables/alias_guid_programmer.hpp); the SMP client's polls carry them out. run() calls it
  // between polls; only a master past its first sweep programs. Returns the Sets queued.
  std::size_t program_alias_changes();
  const AliasGuidProgrammer& alias_guids() const { return alias_guids_; }

  // MLIDs whose members changed since the last call (joins, leaves): recomputes their
  // trees and queues the MFT blocks that differ (sm/mcast/multicast_manager.hpp). run()
  // calls it between polls; only a master past its first sweep programs. Returns the
  // Sets queued.
  std::size_t program_multicast_changes();
  // Master, with its first sweep done: group changes may be programmed between sweeps.
  bool multicast_programmable() const;
  // Once the MFT Sets between sweeps are answered, the SA's snapshot gets the tables
  // the switches now hold (MulticastForwardingTableRecord); on a big fabric no more often
  // than ten times the copy's cost.
  void publish_multicast_tables();
  const MulticastManager& multicast() const { return mcast_; }
  // The performance manager (perfmgr/): swept between the SM's sweeps, paused during
  // them; the console's `perfmgr` command works on it (perfmgr/console.hpp).
  perfmgr::PerfManager& perfmgr() { return perfmgr_; }
  const perfmgr::PerfManager& perfmgr() const { return perfmgr_; }
  // Congestion control (sm/cc/): the Sets of the last round and the ports skipped.
  const cc::CcProgrammer& congestion_control() const { return cc_.programmer(); }
  // The M_Keys this SM presents and programs (sm/mkey/).
  const mkey::MkeyManager& mkeys() const { return mkeys_.keys(); }

  // The operator seam (ops/): the snapshot ibsm-ctl and the metrics read, the event
  // bus, and the queue of changing requests this SM takes between MAD polls
  // (sm/publish/ops_seam.hpp, sm/subnet_manager_ops.cpp). Readers may use it from any thread.
  ops::Ops& ops() { return publish_.ops.ops(); }
  // What the snapshot reports as the version; main() sets it once.
  void set_version(std::string v) { publish_.ops.set_version(std::move(v)); }
  bool sweeping_enabled() const { return loop_.sweeping_enabled; }
  // Publishes a new OpsSnapshot now (run() does it after every change worth showing).
  void publish_ops();

 private:
  // A fabric model the targeted sweep built from the last one (sm/reroute/): the heavy
  // sweep then skips discovery and goes on from LID assignment with it.
  struct PreparedFabric {
    Fabric fabric;
    Clock::TimePoint t0;
    mad::SmpCounters before;
    // Nodes whose ports changed; PortInfo is programmed only there (nothing else did).
    std::vector<bool> touched;
  };
  SweepResult heavy_sweep(const std::atomic<bool>& stop, PreparedFabric* prepared = nullptr);
  // After a trap or PortStateChange on a subnet this SM brought up: re-reads only the
  // switches that flagged a change and, when all it finds is inter-switch links gone or
  // back between known switches, re-routes from the updated model without rediscovery
  // (sm/reroute/targeted_sweep.hpp; the loop's part in sm/heavy_sweep.cpp). nullopt: it
  // needs a full heavy sweep instead.
  std::optional<SweepResult> targeted_sweep(const std::atomic<bool>& stop);
  bool may_target() const;
  SweepResult light_sweep(const std::atomic<bool>& stop);
  SweepResult sweep_unpaused(const std::atomic<bool>& stop);  // sweep() with the PerfMgr paused
  void drain(const std::atomic<bool>& stop);
  void set_phase(SweepPhase p);
  void on_state_change(mad::SmState from, mad::SmState to);
  void forget_programmed_state();
  void take_election_requests();

  // congestion_control and the cc_* keys (sm/subnet_manager_cc.cpp): the class 0x21
  // agent is registered the first time CC is on; a value that does not make settings
  // (checked when read, so not expected) keeps the last ones.
  void apply_cc_options();
  // After SUBNET UP as master: a CC round for the fabric just brought up.
  void start_cc_round();

  // Runs `work` on a worker thread while this thread keeps polling the port
  // (SA requests, SMInfo, traps, and SMPs queued before: the heavy sweep's P_Key
  // reads); returns its result.
  template <class Work>
  auto compute_while_serving(Work&& work) {
    auto done = std::async(std::launch::async, std::forward<Work>(work));
    // Idle port: the wait is on the worker (real time) and the port is then drained
    // without waiting, so a fake clock does not run ahead while the worker computes.
    // SMPs out: the wait is on the port, which wakes at each answer, so they flow at
    // full speed (the fake's clock moves to each answer, as in any drain).
    for (;;) {
      const bool idle = client_.idle();
      if (done.wait_for(std::chrono::milliseconds(idle ? 1 : 0)) == std::future_status::ready)
        break;
      client_.poll(std::chrono::milliseconds(idle ? 0 : 1));
      sa_.tick();
    }
    return done.get();
  }
  // compute_while_serving for steps that take a PureRunner.
  PureRunner pure_runner() {
    return [this](const std::function<void()>& work) {
      compute_while_serving([&] {
        work();
        return 0;
      });
    };
  }
  void publish_sa_snapshot();
  // sm/subnet_manager_ops.cpp: thin calls into sm/publish/, and the control queue.
  void emit(ops::EventType type, std::vector<ops::EventField> fields);
  void record_sweep(ops::SweepKind kind, std::string reason, const SweepResult& r,
                    std::chrono::system_clock::time_point started);
  void take_control_requests();
  void carry_out(ops::ControlRequest& req);
  // reroute: routes recomputed and programmed from the last model, no rediscovery.
  SweepResult reroute_sweep(const std::atomic<bool>& stop);
  void note_routing(const std::string& engine, double ms, const routing::RouteReport* grade);
  // A big fabric's SA snapshot is not held by the ops snapshot while the SA builds the
  // next one or amends it (sa/server.hpp: never two big copies at once).
  void release_big_fabric();
  // After a PerfMgr sweep: publishes an immutable copy of its counters.
  void publish_perf_counters();
  // A problem of this sweep that exit_on_fatal makes fatal (a duplicate GUID), if any.
  std::optional<Error> fatal_problem(const SweepReport& report) const;
  void on_request(const mad::Smp& req, const mad::IncomingMad& raw);
  void on_trap(const mad::Smp& req, const mad::IncomingMad& raw);  // sm/traps/

  // main()'s hooks: SIGHUP's reload, the one-line status for systemd.
  struct Hooks {
    std::function<void()> hangup;
    std::function<void(const std::string&)> status;
  };
  Hooks hooks_;
  void report_status() {
    if (hooks_.status) hooks_.status(status_line());
  }
  mad::MadTransport& transport_;
  const Clock& clock_;
  Logger log_;
  conf::Options options_;
  mad::SmpClient client_;
  election::Election election_;  // the SM state (IBA 14.4) and the other SMs
  PartitionManager partitions_;
  PortTables port_tables_{module_logger(log_, LogModule::kQos)};  // SL2VL/VLArb, P_Key tables
  sa::SaServer sa_;
  // What each port holds of the SA's alias GUIDs.
  AliasGuidProgrammer alias_guids_{module_logger(log_, LogModule::kSa)};
  // MFT trees and what each switch holds of them.
  MulticastManager mcast_{module_logger(log_, LogModule::kMulticast)};
  // Components between sweeps (sm/traps/, sm/cc/, sm/mcast/): they keep their own
  // state and take the rest as explicit inputs.
  traps::TrapHandler traps_{module_logger(log_, LogModule::kTraps)};
  cc::CcControl cc_{transport_, clock_, log_, module_logger(log_, LogModule::kCongestion)};
  mcast::McastUpdates mcast_updates_{clock_};

  perfmgr::PerfManager perfmgr_;

  LoopState loop_;  // phase, why the next sweep is heavy, when it is due, what was asked
  bool first_master_sweep_done_ = false;
  bool sm_port_down_reported_ = false;  // kErrSmPortDown logged for this outage

  names::NodeNames node_names_;  // node_name_map_name
  // After each SUBNET UP: the cabling check (publish_.cabling; topo_config_enabled
  // leaves deviating links out of routing through publish_.health).
  void check_cabling();
  // Fabric health (publish_.health, sm/health/health_monitor.hpp): carries out what the
  // judge decided on `f`: events, the HealthStatus, and the routes (the exclusions go
  // to the router; outside a sweep a reroute is asked for).
  void act_on_health(const Fabric& f, bool in_sweep);
  void reload_health_policy();
  void clear_unhealthy_port(ops::ControlRequest& req);  // ibsm-ctl health clear
  Fabric fabric_;                                       // the result of the last heavy sweep
  // Sweep components of sm/lids, sm/links, sm/qos and sm/mkey (issue 34): each keeps
  // its own state between sweeps; heavy_sweep() hands them a SweepContext.
  lids::LidAssigner lids_{log_, module_logger(log_, LogModule::kLid)};  // guid2lid, LIDs
  // PortInfo Sets; ports that ignored link fields they were sent (ibsim).
  links::PortProgrammer links_{module_logger(log_, LogModule::kLink)};
  // opensm.conf qos, long_transaction_timeout and the QoS policy file.
  qos::QosState qos_{log_};
  // M_Keys: the key store, the SmpClient's resolver, guid2mkey and the neighbors cache.
  mkey::SweepKeys mkeys_{log_, module_logger(log_, LogModule::kMkey)};
  // OpenSM's "possible mis-set M_Key" hint on a lost request (SweepContext::on_failure).
  void mkey_hint(const mad::SmpOutcome& o) const { mkeys_.hint(o, fabric_); }
  Lid sm_lid_ = 0;

  // sm/routes and sm/tables: the routes in force (engine chain, grading) and what the
  // switches hold of them (LFTs, LinearFDBTop, SL2VL). The SM calls them from
  // heavy_sweep() and does the ops bookkeeping (note_routing) of what they return.
  routes::Router router_{log_, module_logger(log_, LogModule::kRouting),
                         conf::effective_routing_engine(options_)};
  tables::SwitchTables tables_{log_, module_logger(log_, LogModule::kRouting)};
  bool compute_routes(const SweepContext& ctx);
  void grade_routes_after_up();  // the report compute_routes left for after SUBNET UP

  // A standby reads the LFTs the master programmed, so that its takeover re-sends only
  // the blocks that differ (sm/election/lft_mirror.hpp).
  election::LftMirror lft_mirror_;

  // Publishing (sm/publish/): the operator seam's books and the OpsSnapshot, the SA's
  // snapshots and the prefix routes they carry, the PerfMgr's published counters.
  publish::Publishing publish_{log_, clock_};
};

}  // namespace ibsm::sm
