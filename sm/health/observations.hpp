// What the judge is fed (sm/health/health_judge.hpp): per port, what a sweep saw,
// a port-error trap, or a PerfMgr counter increase. The SM fills these from its
// sweep, TrapHandler and PerfMgr; the judge never reads the fabric itself.
#pragma once

#include <cstdint>
#include <string>

#include "common/clock.hpp"
#include "sm/health/health_types.hpp"

namespace ibsm::sm::health {

// The port a fact is about, with what the action rules need to know of it.
struct PortFacts {
  PortKey key;
  Guid port_guid = 0;  // the port's own GUID (a CA port's differs from its node's)
  NodeKind kind = NodeKind::kCa;
  std::string node_name;  // display name, for the dump and the log
  // The port's link is the only link of a CA or router at either end (a host's port,
  // or the switch port facing a single-ported host): never isolated, reported.
  bool sole_host_link = false;
};

// What one sweep (light or heavy) saw of one port. Each flag is one sweep's hit in
// its condition's window, however often it happened within the sweep.
struct PortSweep {
  PortFacts port;
  // The link went down and up since the last sweep: seen Init where the last sweep
  // saw it Active, seen Down and back within the sweep, or named by a Trap 128 and up
  // again. (flapping)
  bool flapped = false;
  // The port, or its node through it, did not answer an SMP after all retries.
  // (unresponsive)
  bool no_response = false;
  // A Set to the port (PortInfo, SwitchInfo, VLArb, SL2VL, P_Key, LFT) was answered
  // with an error status or not at all. (seterr)
  bool set_failed = false;
  // The node came back fresh: it was missing from the last sweep, or answered with
  // LID 0 and PortState Init where it had been configured (it lost its state). Counted
  // with time (hm_reboots_period_secs). (reboot)
  bool rebooted = false;
  // Answers with impossible values this sweep: NodeInfo with GUID 0 or a GUID another
  // node has, LocalPortNum beyond NumPorts, an undefined PortState or PhysState, a
  // LinkWidthActive that is not one bit. (illegal, counted until cleared)
  unsigned illegal = 0;
};

// PerfMgr: how much each error counter of a port rose over `elapsed` (one PerfMgr
// sweep; after a counter reset, the increase since the reset).
struct CounterDeltas {
  std::uint64_t symbol_errors = 0;        // SymbolErrorCounter
  std::uint64_t link_error_recovery = 0;  // LinkErrorRecoveryCounter
  std::uint64_t link_downed = 0;          // LinkDownedCounter
  std::uint64_t port_rcv_errors = 0;      // PortRcvErrors
  Clock::Duration elapsed{};
};

}  // namespace ibsm::sm::health
