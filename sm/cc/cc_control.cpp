// CcControl (sm/cc/cc_control.hpp): the options, the class 0x21 agent and the round
// after SUBNET UP.
#include "sm/cc/cc_control.hpp"

#include "sm/cc/cc_layouts.hpp"
#include "sm/cc/errors.hpp"

namespace ibsm::sm::cc {

void CcControl::apply_options(const conf::Options& options, mad::MadDispatcher& dispatcher) {
  auto settings = cc_settings(options);
  if (!settings.ok()) {
    log_->error("{}: congestion control settings kept as they were: {}",
                format_error_id(settings.error().id), settings.error().message);
    return;
  }
  if (settings->enabled && !agent_) {
    // Only now: under umad2sim an agent of a class the simulator mishandles is refused,
    // and without CC no class 0x21 MAD is ever expected.
    const Status st = transport_.register_gsi_class(kClassCongestionControl, kCcClassVersion);
    if (!st.ok()) {
      if (!unavailable_logged_)
        log_->error("{}: congestion_control is TRUE but no congestion control MADs can be sent: {}",
                    format_error_id(kErrCcUnavailable), st.error().message);
      unavailable_logged_ = true;
      settings->enabled = false;
    } else {
      agent_ = true;
      dispatcher.set_handler(kClassCongestionControl,
                             [&cc = cc_](const mad::IncomingMad& in) { cc.on_mad(in); });
    }
  }
  CcTiming timing;
  timing.timeout = std::chrono::milliseconds(options.transaction_timeout);
  timing.retries = options.transaction_retries;
  timing.sl = options.sm_sl;
  cc_.configure(*settings, timing);
}

void CcControl::start_round(const Fabric& f) {
  if (!cc_.settings().enabled) return;
  cc_.start_round(cc_targets(f));
}

}  // namespace ibsm::sm::cc
