// LoopState: what SubnetManager's loop decides its next turn from (sm/subnet_manager.cpp
// step()): the phase it is in, why the next sweep must be heavy, when the interval asks
// for one, and what operators and traps asked of it. Plain values, owned by the SM's
// thread; nothing else reads them.
#pragma once

#include "common/clock.hpp"
#include "sm/sweep/sweep_phase.hpp"

namespace ibsm::sm {

struct LoopState {
  SweepPhase phase = SweepPhase::kIdle;
  HeavyReason heavy_reason = HeavyReason::kFirstSweep;
  Clock::TimePoint next_sweep{};  // run(): when the interval asks for the next sweep
  // What operators asked of the loop (sm/subnet_manager_ops.cpp).
  bool sweeping_enabled = true;  // `sweep off`: no sweeps at all (OpenSM's sweeping_enabled)
  bool reroute_requested = false;
  // What traps told the next sweep (sm/traps/, sm/reroute/).
  bool full_sweep_trap = false;      // a trap a targeted sweep cannot handle (145)
  bool trap_while_sweeping = false;  // the last Trap 128 arrived during a sweep
};

}  // namespace ibsm::sm
