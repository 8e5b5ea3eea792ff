// CcControl: congestion control as the SubnetManager drives it (sm/cc/), apart from
// the SM. It owns the CcProgrammer, turns congestion_control and the cc_* keys into
// its settings, registers the class 0x21 agent the first time CC is on (only then:
// under umad2sim an agent of a class the simulator mishandles is refused, and without
// CC no class 0x21 MAD is ever expected), and starts a round for a fabric the SM
// brought up. The SM calls it from apply_options, after SUBNET UP and between polls.
#pragma once

#include "common/clock.hpp"
#include "common/log.hpp"
#include "conf/options.hpp"
#include "mad/dispatcher.hpp"
#include "mad/transport.hpp"
#include "sm/cc/cc_programmer.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm::cc {

class CcControl {
 public:
  // `log`: where the options' errors go (the SM's log); `cc_log`: the programmer's
  // (LogModule::kCongestion).
  CcControl(mad::MadTransport& transport, const Clock& clock, Logger log, Logger cc_log)
      : transport_(transport), log_(std::move(log)), cc_(transport, clock, std::move(cc_log)) {}

  // congestion_control and the cc_* keys: a value that does not make settings (checked
  // when read, so not expected) keeps the last ones, logged. With CC on, the
  // class 0x21 agent is registered once and its MADs are routed from `dispatcher` to the
  // programmer; when the transport refuses it, CC stays off (logged once).
  void apply_options(const conf::Options& options, mad::MadDispatcher& dispatcher);
  // After SUBNET UP as master: Sets what the ports of `f` do not hold (nothing when
  // CC is off). The Sets leave from tick().
  void start_round(const Fabric& f);
  void tick() { cc_.tick(); }
  // No longer master: nothing more is sent.
  void stop() { cc_.stop(); }
  // A new master trusts nothing the ports were told before.
  void forget_held() { cc_.forget_held(); }

  bool agent_registered() const { return agent_; }
  const CcProgrammer& programmer() const { return cc_; }

 private:
  mad::MadTransport& transport_;
  Logger log_;
  CcProgrammer cc_;     // congestion control Sets (class 0x21)
  bool agent_ = false;  // class 0x21 registered with the transport
  bool unavailable_logged_ = false;
};

}  // namespace ibsm::sm::cc
