// The targeted sweep: a trap or PortStateChange on a subnet this SM already brought up.
// Instead of rediscovering the whole subnet (a heavy sweep reads every node and port:
// hundreds of thousands of SMPs on a 5,000-host fabric), it reads SwitchInfo of every
// switch, PortInfo of the switches that flagged PortStateChange, and NodeInfo behind
// ports that came up; when that shows only inter-switch links lost or back between
// known switches, the last fabric model is updated (sm/reroute/link_change.hpp) and the
// heavy sweep goes on from LID assignment with it (routing, only the LFT blocks that
// differ, PortInfo for the ports that changed, SUBNET UP). Anything else falls back to
// the full heavy sweep.
//
// A component apart from the SubnetManager: it takes the last model, the SMP client and
// a way to drain it, and returns what it found; the SM keeps the loop's bookkeeping
// (the heavy reason, the phase, the log lines) and runs the heavy sweep with the result.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "mad/attr/switch_info.hpp"
#include "mad/smp_client.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/sweep/sweep_phase.hpp"

namespace ibsm::sm::reroute {

// What a targeted sweep needs, read when it starts.
struct TargetedInputs {
  const Fabric& model;     // the last heavy sweep's model; only read
  mad::SmpClient& client;  // where the Gets go
  // Waits for every answer; false when asked to stop (then the sweep stops too).
  const std::function<bool()>& drain;
  HeavyReason why = HeavyReason::kTrap;  // what asked for the sweep
  bool trap_while_sweeping = false;      // the last Trap 128 arrived during a sweep
};

// Which switches flagged PortStateChange, with their SwitchInfo as read.
using FlaggedSwitches = std::map<NodeIndex, mad::SwitchInfo>;

namespace targeted {

// A stop was asked for while draining: the sweep ends without a result.
struct Stopped {};
// The full heavy sweep is needed; `reason` is for the log.
struct FallBack {
  std::string reason;
};
// Nothing the routes depend on changed: the flags of `flagged` are to be cleared
// (clear_port_state_change) and the subnet stays up.
struct NoLinkChange {
  FlaggedSwitches flagged;
};
// Inter-switch links went down or came back: the heavy sweep goes on from LID
// assignment with `fabric`, programming PortInfo only where `touched`.
struct LinkChanges {
  Fabric fabric;              // the last model with the changes and what was read
  std::vector<bool> touched;  // by NodeIndex: nodes whose ports changed or flagged
  std::string description;    // "1 link down (...)" for the log
};

}  // namespace targeted

using TargetedOutcome = std::variant<targeted::Stopped, targeted::FallBack, targeted::NoLinkChange,
                                     targeted::LinkChanges>;

// 1. SwitchInfo of every switch (which flagged PortStateChange, IBA 14.2.5.4), 2. PortInfo
// of every port of those, 3. NodeInfo behind the ports that came up, then the verdict.
// A switch whose directed route crossed the lost link does not answer: once the other
// end reported the loss, the model routes around it and the switch is asked again, for
// a few rounds.
TargetedOutcome targeted_sweep(const TargetedInputs& in);

// The "no link change" answer: writes each flagged switch's SwitchInfo back (write 1
// clears PortStateChange, IBA 14.2.5.4); an answer updates `model`'s SwitchInfo of the
// switch, a failed Set leaves the flag for the next light sweep. The caller drains.
void clear_port_state_change(Fabric& model, mad::SmpClient& client, const FlaggedSwitches& flagged);

// Whether a sweep asked for by `why` may be a targeted one (pure).
struct TargetConditions {
  HeavyReason why = HeavyReason::kNone;
  bool full_sweep_trap = false;  // a trap a targeted sweep cannot handle came
  mad::SmState state = mad::SmState::kNotActive;
  bool first_master_sweep_done = false;
  bool force_heavy_sweep = false;  // the option
  bool takeover_pending = false;   // a standby's takeover: its first sweep reprograms all
};
// A trap, a PortStateChange or a failed light sweep (a switch's directed route may cross
// a lost link: the targeted sweep finds the link and asks that switch along another
// route), on a subnet this SM brought up as master, with a model holding the SM's node.
bool may_target(const TargetConditions& c, const Fabric& model);

}  // namespace ibsm::sm::reroute
