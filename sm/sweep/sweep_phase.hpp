// Named states of the SM (IBA 14.4, SMInfo.SMState) and of a sweep, with the
// names used in logs, so that no combination of booleans has to be decoded.
#pragma once

#include <cstdint>
#include <string_view>

namespace ibsm::sm {

enum class SweepPhase : std::uint8_t {
  kIdle,
  kLightSweep,     // SwitchInfo poll for PortStateChange
  kDiscovery,      // DR walk of the subnet
  kTargetedSweep,  // re-read only switches with PortStateChange (sm/reroute/)
  kLidAssignment,
  kRouting,
  kProgramming,  // SwitchInfo, LFT blocks, PortInfo (LIDs, link parameters) + Armed
  kActivation,   // PortInfo Active
  kDone,
};

constexpr std::string_view phase_name(SweepPhase p) {
  switch (p) {
    case SweepPhase::kIdle:
      return "IDLE";
    case SweepPhase::kLightSweep:
      return "LIGHT SWEEP";
    case SweepPhase::kDiscovery:
      return "DISCOVERY";
    case SweepPhase::kTargetedSweep:
      return "TARGETED SWEEP";
    case SweepPhase::kLidAssignment:
      return "LID ASSIGNMENT";
    case SweepPhase::kRouting:
      return "ROUTING";
    case SweepPhase::kProgramming:
      return "PROGRAMMING";
    case SweepPhase::kActivation:
      return "ACTIVATION";
    case SweepPhase::kDone:
      return "DONE";
  }
  return "?";
}

// Why the next sweep must be heavy; kNone means a light sweep will do.
enum class HeavyReason : std::uint8_t {
  kNone,
  kFirstSweep,
  kPortStateChange,
  kTrap,
  kErrorsLastSweep,
  kForced,  // force_heavy_sweep or SIGHUP
  kLightSweepFailed,
  kElection,   // the SM election asks for one (DISCOVER received, a standby's poll timed out)
  kNewMaster,  // this SM just became master: re-program everything (OpenSM's first master sweep)
  kSmTrap,     // Trap 144 from another SM (rate-limited)
};

constexpr std::string_view heavy_reason_name(HeavyReason r) {
  switch (r) {
    case HeavyReason::kNone:
      return "none";
    case HeavyReason::kFirstSweep:
      return "first sweep";
    case HeavyReason::kPortStateChange:
      return "port state change";
    case HeavyReason::kTrap:
      return "trap";
    case HeavyReason::kErrorsLastSweep:
      return "errors during the last sweep";
    case HeavyReason::kForced:
      return "requested";
    case HeavyReason::kLightSweepFailed:
      return "light sweep failed";
    case HeavyReason::kElection:
      return "SM election";
    case HeavyReason::kNewMaster:
      return "new master";
    case HeavyReason::kSmTrap:
      return "trap 144 from another SM";
  }
  return "?";
}

}  // namespace ibsm::sm
