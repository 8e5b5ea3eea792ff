// SubnetManager's part of congestion control (sm/cc/): options, the class 0x21
// agent and the round after SUBNET UP. (Prefix routes: sm/publish/sa_publisher.hpp.)
#include "sm/cc/errors.hpp"
#include "sm/subnet_manager.hpp"

namespace ibsm::sm {

void SubnetManager::apply_cc_options() {
  auto settings = cc::cc_settings(options_);
  if (!settings.ok()) {
    log_->error("{}: congestion control settings kept as they were: {}",
                format_error_id(settings.error().id), settings.error().message);
    return;
  }
  if (settings->enabled && !cc_agent_) {
    // Only now: under umad2sim an agent of a class the simulator mishandles is refused,
    // and without CC no class 0x21 MAD is ever expected.
    const Status st =
        transport_.register_gsi_class(cc::kClassCongestionControl, cc::kCcClassVersion);
    if (!st.ok()) {
      if (!cc_unavailable_logged_)
        log_->error("{}: congestion_control is TRUE but no congestion control MADs can be sent: {}",
                    format_error_id(cc::kErrCcUnavailable), st.error().message);
      cc_unavailable_logged_ = true;
      settings->enabled = false;
    } else {
      cc_agent_ = true;
      client_.dispatcher().set_handler(cc::kClassCongestionControl,
                                       [this](const mad::IncomingMad& in) { cc_.on_mad(in); });
    }
  }
  cc::CcTiming timing;
  timing.timeout = std::chrono::milliseconds(options_.transaction_timeout);
  timing.retries = options_.transaction_retries;
  timing.sl = options_.sm_sl;
  cc_.configure(*settings, timing);
}

void SubnetManager::start_cc_round() {
  if (state() != mad::SmState::kMaster || !cc_.settings().enabled) return;
  cc_.start_round(cc::cc_targets(fabric_));
}

}  // namespace ibsm::sm
