// SubnetManager's calls into congestion control (sm/cc/cc_control.hpp): options and
// the round after SUBNET UP. (Prefix routes: sm/publish/sa_publisher.hpp.)
#include "sm/subnet_manager.hpp"

namespace ibsm::sm {

// The options and the round are sm/cc/cc_control.hpp's.
void SubnetManager::apply_cc_options() {
  cc_.apply_options(options_, client_.dispatcher());
}

void SubnetManager::start_cc_round() {
  if (state() == mad::SmState::kMaster) cc_.start_round(fabric_);
}

}  // namespace ibsm::sm
