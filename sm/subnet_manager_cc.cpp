// SubnetManager's calls into congestion control (sm/cc/cc_control.hpp): options and
// the round after SUBNET UP; and prefix routes (sa/prefix_routes.hpp), the other
// opensm.conf file the SA answers from.
#include "sm/subnet_manager.hpp"

namespace ibsm::sm {

// The options and the round are sm/cc/cc_control.hpp's.
void SubnetManager::apply_cc_options() {
  cc_.apply_options(options_, client_.dispatcher());
}

void SubnetManager::start_cc_round() {
  if (state() == mad::SmState::kMaster) cc_.start_round(fabric_);
}

void SubnetManager::load_prefix_routes() {
  auto routes = sa::load_prefix_routes(options_.prefix_routes_file);
  if (!routes.ok()) {
    log_->error("{}: {}; {}", format_error_id(routes.error().id), routes.error().message,
                prefix_routes_ ? "the routes read before stay" : "no prefix routes");
    return;
  }
  if (!routes->routes.empty())
    log_->info("prefix routes: {} routes from {}", routes->routes.size(), routes->origin);
  prefix_routes_ = std::make_shared<const sa::PrefixRoutes>(std::move(*routes));
}

}  // namespace ibsm::sm
