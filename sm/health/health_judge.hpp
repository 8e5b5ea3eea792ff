// HealthJudge: which ports are unhealthy and what is done to them (issue 35), pure.
//
// Fed per port what sweeps saw (observations.hpp), port-error traps and PerfMgr
// counter increases, it counts each condition in its window (windows.hpp) and, when
// a port meets one, decides the action from the hm_*_action table by node kind
// (health_config.hpp). The rules on top of the table:
//  - the SM's own port and the ports on its path (set_protected_ports) are never
//    acted on: isolate, no_discover and disable become report;
//  - a host's only link is never isolated: isolate becomes report;
//  - at most hm_max_isolated_ports ports are isolated at once; past that, report;
//  - `ignore` decides nothing;
//  - a port stays unhealthy, with the first condition it met, until cleared (clear(),
//    or HEALTHY in the policy file on reload); so a port that flaps every sweep costs
//    one decision, not one a sweep. Clearing forgets its windows: it starts afresh.
//  - the manual condition: ports UNHEALTHY in the policy file, decided the next sweep
//    that sees them (the action needs the node kind).
// Time comes from the injected Clock; sweeps are counted by judge_sweep calls. The SM
// carries out the decisions (reroute, Sets, events, the dump); nothing here touches
// the fabric.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "sm/health/health_config.hpp"
#include "sm/health/observations.hpp"
#include "sm/health/policy_file.hpp"
#include "sm/health/windows.hpp"

namespace ibsm::sm::health {

// One port judged unhealthy: the decision, and while it lasts, the port's state.
struct Decision {
  PortFacts port;
  Condition condition = Condition::kManual;
  Action action = Action::kReport;  // what is done
  Action asked = Action::kReport;   // what the hm_*_action key says
  Downgrade downgrade = Downgrade::kNone;
  std::string detail;  // "flapped in 5 of the last 30 sweeps"
  Clock::TimePoint since{};
};

struct Outcome {
  std::vector<Decision> unhealthy;  // ports that turned unhealthy now
  std::vector<PortKey> healthy;     // ports cleared now
  bool empty() const { return unhealthy.empty() && healthy.empty(); }
};

class HealthJudge {
 public:
  HealthJudge(HealthConfig config, const Clock& clock) : config_(config), clock_(&clock) {}

  // hm_* keys reloaded (SIGHUP): new thresholds and actions apply from the next
  // observation; ports already unhealthy keep their decision.
  void set_config(const HealthConfig& config) { config_ = config; }
  // The SM's own port and both ends of each link on its path (after each heavy sweep).
  void set_protected_ports(std::set<PortKey> ports) { protected_ = std::move(ports); }
  // A policy file read (start, SIGHUP): ports it marks HEALTHY are cleared, and so are
  // manual ones it no longer marks UNHEALTHY.
  Outcome set_policy(HealthPolicy policy);

  // One sweep's observations, every port it looked at (one entry per port).
  Outcome judge_sweep(const std::vector<PortSweep>& ports);
  // More of the sweep judge_sweep last counted (what its programming saw: failed Sets),
  // in the same sweep of each window: a port hit in both counts one sweep.
  Outcome judge_same_sweep(const std::vector<PortSweep>& ports);
  // One port-error trap (129-131) about `port`, now.
  Outcome on_trap(const PortFacts& port);
  // One PerfMgr increase of `port`'s error counters.
  Outcome on_counters(const PortFacts& port, const CounterDeltas& d);

  // ibsm-ctl health clear: true if the port was unhealthy.
  bool clear(const PortKey& key);

  // The ports unhealthy now, by key (the dump, ctl, metrics).
  std::vector<Decision> unhealthy_ports() const;
  std::size_t isolated_count() const;
  // Ports with something in a window (a quiet port costs nothing; bounded memory).
  std::size_t tracked_ports() const { return states_.size(); }
  const HealthConfig& config() const { return config_; }

 private:
  struct PortState {
    SweepWindow flapping, unresponsive, set_errors;
    TimeWindow reboots, traps;
    CountWindow symbol_errors, link_error_recovery, link_downed, port_rcv_errors;
    unsigned illegal = 0;
    std::uint64_t last_sweep = 0;
    std::optional<Clock::TimePoint> last_event;  // the last trap, reboot or counter
  };

  // `port` met `c` (why: `detail`): true when it is now unhealthy (not for `ignore`).
  bool decide(const PortFacts& port, Condition c, std::string detail, Outcome& out);
  bool judge_port(const PortSweep& s, PortState& st, Outcome& out);
  Outcome judge(const std::vector<PortSweep>& ports);
  void prune();

  HealthConfig config_;
  const Clock* clock_;
  std::set<PortKey> protected_;
  HealthPolicy policy_;
  std::map<PortKey, PortState> states_;    // ports with something in a window
  std::map<PortKey, Decision> unhealthy_;  // until cleared
  std::uint64_t sweep_ = 0;
};

}  // namespace ibsm::sm::health
