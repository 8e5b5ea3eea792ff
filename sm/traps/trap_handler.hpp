// TrapHandler: the master's handling of one Trap (IBA 13.4.8, 14.2.5.1), apart from
// the SubnetManager. It acknowledges every trap (TrapRepress), filters the repeated
// ones (sm/traps/trap_filter.hpp), logs security traps (sm/traps/security_trap.hpp), disables a
// babbling port when babbling_port_policy asks for it, and rate-limits Trap 144's
// heavy sweeps. It returns a decision (which sweep, whether a targeted sweep can serve,
// the event to publish, whether to forward to InformInfo subscribers) that the
// SubnetManager carries out: the sweep state, the event bus and the SA stay the SM's.
#pragma once

#include <chrono>
#include <optional>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "conf/options.hpp"
#include "mad/attr/notice.hpp"
#include "mad/smp.hpp"
#include "mad/smp_client.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/traps/security_trap.hpp"
#include "sm/traps/trap_filter.hpp"

namespace ibsm::sm::traps {

// What one trap needs of the SM, read when it arrives.
struct TrapInputs {
  const Fabric& fabric;          // the last heavy sweep's model: names, the port to disable
  mad::SmpClient& client;        // the TrapRepress and a babbling port's PortInfo Set
  const conf::Options& options;  // sweep_on_trap, babbling_port_policy
  Clock::TimePoint now;
  bool master = false;  // only a master handles traps (others drop them)
  Lid sm_lid = 0;       // master_sm_lid of a disabled CA port's PortInfo
};

// The sweep a trap asks for.
enum class TrapSweep {
  kNone,
  kTrap,    // a link or system image change, or a port just marked unhealthy: a heavy
            // sweep (HeavyReason::kTrap), possibly served by a targeted one
  kSmTrap,  // another SM's Trap 144: a heavy sweep unless one is already asked for
};

struct TrapDecision {
  // The trap passed the filter: the SM publishes an event for it.
  std::optional<mad::Notice> admitted;
  bool security = false;  // its event is a security trap's
  bool forward = false;   // to the SA's InformInfo subscribers (not port-error traps)
  TrapSweep sweep = TrapSweep::kNone;
  bool full_sweep = false;  // kTrap for something a targeted sweep cannot handle (not 128)
  // A port-error trap (129-131), repeats included (the filter drops those from
  // `admitted`): the port it names (LIDADDR, PORTNO), for fabric health's noisy
  // condition, which counts every one. Only the SM checks that the sender owns the LID.
  struct PortError {
    Lid lid = 0;
    PortNum port = 0;
  };
  std::optional<PortError> port_error;
};

class TrapHandler {
 public:
  // Another SM's Trap 144 asks for a heavy sweep; a stream of them gets at most one per
  // this gap (a misbehaving SM cannot make us sweep without pause).
  static constexpr auto kSmTrapGap = std::chrono::seconds(2);

  explicit TrapHandler(Logger log) : log_(std::move(log)) {}

  // One Trap(Notice) from `slid` (the MAD's SLID).
  TrapDecision on_trap(const mad::Smp& req, Lid slid, const TrapInputs& in);
  // Between sweeps: a Trap 144 held back by kSmTrapGap whose turn has come (true once).
  bool take_deferred_sm_trap(Clock::TimePoint now);

 private:
  void disable_babbling_port(Lid lid, PortNum port, Lid source, const TrapInputs& in);

  Logger log_;
  SecurityTrapLog security_traps_;  // traps 256-259: one log line per port and trap per 10 s
  TrapFilter trap_filter_;          // repeated traps: suppression, unhealthy and babbling ports
  Clock::TimePoint last_sm_trap_sweep_{};
  bool sm_trap_deferred_ = false;
};

// "LID 12 (leaf-01)": a LID with the name of its node in `f`, for log lines.
std::string lid_text(const Fabric& f, Lid lid);

}  // namespace ibsm::sm::traps
