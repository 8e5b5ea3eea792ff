// HealthMonitor: the SM's side of fabric health (issue 35). It feeds the pure
// HealthJudge (health_judge.hpp) from what the SM sees, carries out the judge's
// decisions and keeps what they leave:
//  - fed by every sweep (observe_sweep: heavy and targeted, the fresh model against
//    the last one, and discovery's impossible answers; observe_sets: its failed Sets;
//    observe_light_sweep), every port-error trap, repeats included (on_trap), and every
//    PerfMgr sweep's counters (on_counters);
//  - `report`: a log line (IBSM-2804) and a port_unhealthy event;
//  - `isolate` and `no_discover`: the port's link joins exclusions(), which the SM hands
//    the router (sm/routes/routing_input.hpp): routes leave it, the link stays Active;
//    no_discover ports also stop discovery (stops_discovery);
//  - `disable`: PortInfo Set PortPhysicalState Disabled on the end nearer the SM;
//  - clearing (clear(), HEALTHY in the policy file, hm_unhealthy_ports_checks FALSE)
//    undoes it: the link is routed again, the port Set back to Polling;
//  - opensm-unhealthy-ports.dump rewritten after every change, and the ops::HealthStatus.
// Takes the Fabric, the SMP client and the options as inputs; never the SubnetManager.
// SM thread only.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cabling/deviation.hpp"
#include "common/clock.hpp"
#include "common/log.hpp"
#include "conf/options.hpp"
#include "mad/smp_client.hpp"
#include "ops/event.hpp"
#include "ops/ops_snapshot.hpp"
#include "perfmgr/counter_snapshot.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/health/health_judge.hpp"
#include "sm/routes/routing_input.hpp"

namespace ibsm::sm::health {

// What the SM does after apply(): the events to publish, and whether routes or the
// fabric model must be renewed.
struct Applied {
  std::vector<std::pair<ops::EventType, std::vector<ops::EventField>>> events;
  bool reroute = false;     // exclusions() changed: recompute the routes (no rediscovery)
  bool rediscover = false;  // a no_discover port was cleared: a heavy sweep finds what is behind
  bool changed = false;     // the HealthStatus changed: publish it
};

class HealthMonitor {
 public:
  HealthMonitor(Logger log, const Clock& clock);

  // The hm_* keys and dump_files_dir (start, SIGHUP). Turning the checks off clears
  // every unhealthy port (apply() then undoes their actions).
  void configure(const conf::Options& o);
  bool enabled() const { return judge_.config().enabled; }

  // Reads hm_ports_health_policy_file and checks it against `f` (needs a fabric: the SM
  // calls it after the first SUBNET UP and on SIGHUP). A refused file keeps the last
  // good policy; its error is logged and published (HealthStatus::policy_error).
  void reload_policy(const Fabric& f);
  bool policy_loaded() const { return policy_loaded_; }

  // A heavy or targeted sweep: `now` (fresh, before LIDs are assigned) against `before`
  // (the last model), with discovery's answers of impossible values (`illegal`: one
  // entry per answer, SweepReport::illegal_answers).
  void observe_sweep(const Fabric& before, const Fabric& now, const std::vector<PortKey>& illegal);
  // The same sweep's programming, once its Sets are answered: the ports whose Sets
  // failed (SweepReport::failed_sets), counted in the sweep observe_sweep counted.
  void observe_sets(const Fabric& f, const std::vector<PortKey>& failed);
  // A light sweep: the switches whose SwitchInfo Get was not answered.
  void observe_light_sweep(const Fabric& f, const std::vector<NodeIndex>& no_answer);
  // A port-error trap from `source` naming (lid, port); a trap about a LID the sender
  // does not hold is not counted (anyone may send a Trap).
  void on_trap(const Fabric& f, Lid lid, PortNum port, Lid source);
  // A PerfMgr sweep's counters (totals since start): their increase since the last one.
  void on_counters(const Fabric& f, const perfmgr::CounterSnapshot& counters);
  // After each heavy sweep that brought the subnet up: the SM's own port and its
  // link's far end are protected; links whose loss would cut switches apart are never
  // isolated.
  void after_subnet_up(const Fabric& f);

  // ibsm-ctl health clear: false when the port was not unhealthy.
  bool clear(const PortKey& key);

  // Carries out what changed since the last call: log lines, the PortInfo Sets of
  // disable and its undoing (through `client`, on `f`), the dump file; returns the rest.
  Applied apply(const Fabric& f, mad::SmpClient& client, Lid sm_lid);

  // Links no route may cross: isolate and no_discover ports, and `enforced` (the
  // cabling check's deviating links with topo_config_enabled).
  LinkExclusions exclusions() const;
  // topo_config_enabled: the cabling check's wrong_port, wrong_node and extra_link
  // deviations of `f` left out of routing (links between two switches only, never the
  // SM's own link, never one whose loss cuts switches apart; width and speed mismatches
  // are reported, still routed). `on` false drops them. True when the set changed.
  bool enforce_cabling(const Fabric& f, const std::vector<cabling::Deviation>& deviations, bool on);
  // no_discover: discovery reads the port but probes nothing behind it.
  bool stops_discovery(Guid node_guid, PortNum port) const;

  // The published state: every unhealthy port with both ends named (from `f`).
  ops::HealthStatusPtr status(const Fabric& f) const;
  const HealthJudge& judge() const { return judge_; }
  const std::string& dump_path() const { return dump_path_; }

 private:
  PortFacts facts(const Fabric& f, NodeIndex n, PortNum p) const;
  void take(Outcome o);
  // The ports the policy file marks UNHEALTHY, found in `f`, appended to `hits`: the
  // judge decides the manual condition for the ports a sweep looked at.
  void add_manual(const Fabric& f, std::vector<PortSweep>& hits) const;
  // `mark` applied to the entry of each of `ports` found in `f` (added to `hits` when new).
  void add_ports(const Fabric& f, const std::vector<PortKey>& ports,
                 const std::function<void(PortSweep&)>& mark, std::vector<PortSweep>& hits) const;
  void write_dump();

  Logger log_;
  const Clock* clock_;
  HealthJudge judge_;
  std::string policy_path_;
  bool policy_loaded_ = false;
  HealthPolicy policy_;  // the policy in force (the judge holds it too)
  std::string policy_error_;
  bool pending_changed_ = false;  // the policy's state changed: publish
  std::string dump_path_;
  Outcome pending_;                          // decisions and clears not yet applied
  std::map<PortKey, Decision> cleared_;      // decisions of ports cleared, until applied
  std::set<PortKey> went_down_;              // links seen down after being up: flap if back
  std::set<Guid> seen_;                      // nodes ever seen (a node back is a reboot)
  std::set<std::pair<Guid, PortNum>> sole_;  // links whose loss cuts the fabric
  std::map<PortKey, PortKey> disabled_;      // port judged -> the end Set Disabled
  std::map<PortKey, std::array<std::uint64_t, 4>> counter_totals_;
  Clock::TimePoint counters_at_{};
  bool counters_seen_ = false;
  std::set<PortKey> no_discover_;  // of the decisions in force (apply() renews it)
  LinkExclusions enforced_;
  std::set<PortKey> protected_;  // the SM's port and its link's far end
};

}  // namespace ibsm::sm::health
