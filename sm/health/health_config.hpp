// The hm_* keys (conf/option_list.hpp) as the judge reads them: thresholds, windows
// and the action table, checked once when the options are read or reloaded.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "conf/options.hpp"
#include "sm/health/health_types.hpp"

namespace ibsm::sm::health {

// "n of the last `window` sweeps" (window at most 31, as NVIDIA's SM).
struct SweepThreshold {
  unsigned count = 0;
  unsigned window = 0;
};

// "n within `period`".
struct TimeThreshold {
  unsigned count = 0;
  std::chrono::seconds period{0};
};

// PerfMgr error counters: increase within an hour that makes a port unhealthy; 0 = off.
struct ErrorRateThresholds {
  std::uint64_t symbol_errors = 0;        // SymbolErrorCounter
  std::uint64_t link_error_recovery = 0;  // LinkErrorRecoveryCounter
  std::uint64_t link_downed = 0;          // LinkDownedCounter
  std::uint64_t port_rcv_errors = 0;      // PortRcvErrors
};

struct HealthConfig {
  bool enabled = true;  // hm_unhealthy_ports_checks
  TimeThreshold reboots{10, std::chrono::seconds(900)};
  SweepThreshold flapping{5, 30};
  SweepThreshold unresponsive{5, 7};
  SweepThreshold set_errors{5, 7};
  TimeThreshold traps{60, std::chrono::seconds(90)};
  unsigned illegal = 1;
  ErrorRateThresholds error_rate{371, 10, 10, 371};
  unsigned max_isolated = 10;  // hm_max_isolated_ports
  // actions[kind][condition]; NVIDIA's defaults: report, but seterr ignore and a
  // switch's manual no_discover.
  std::array<std::array<Action, kConditionCount>, 2> actions{};

  HealthConfig();
  Action action(NodeKind kind, Condition c) const {
    return actions[static_cast<std::size_t>(kind)][static_cast<std::size_t>(c)];
  }
  void set_action(NodeKind kind, Condition c, Action a) {
    actions[static_cast<std::size_t>(kind)][static_cast<std::size_t>(c)] = a;
  }
};

struct HealthConfigResult {
  HealthConfig config;
  // Keys that are valid alone but not together ("hm_num_flapping_sweeps 9 is more
  // than hm_num_flapping_sweeps_window 7"), each IBSM-2805; the count is then taken
  // as the whole window.
  std::vector<std::string> warnings;
};

// The hm_* keys of `o`. Each key's own value was checked by the option table (an
// unknown action word, a window over 31 or a 0 count never gets here).
HealthConfigResult health_config_from(const conf::Options& o);

}  // namespace ibsm::sm::health
