// Builds and numbers the SA's snapshots, and keeps the prefix routes they carry
// (sm/publish/sa_publisher.hpp).
#include "sm/publish/sa_publisher.hpp"

#include <chrono>

#include "common/error.hpp"

namespace ibsm::sm::publish {

void SaPublisher::load_prefix_routes(const std::string& file) {
  auto routes = sa::load_prefix_routes(file);
  if (!routes.ok()) {
    log_->error("{}: {}; {}", format_error_id(routes.error().id), routes.error().message,
                prefix_routes_ ? "the routes read before stay" : "no prefix routes");
    return;
  }
  if (!routes->routes.empty())
    log_->info("prefix routes: {} routes from {}", routes->routes.size(), routes->origin);
  prefix_routes_ = std::make_shared<const sa::PrefixRoutes>(std::move(*routes));
}

void SaPublisher::publish(sa::SaServer& sa, SaSnapshotInput in,
                          const std::function<void(sa::Snapshot&)>& decorate) {
  in.generation = next_generation();
  in.prefix_routes = prefix_routes_;
  sa.rebuild([&] {
    const auto t0 = std::chrono::steady_clock::now();
    auto snap = build_sa_snapshot(in);
    if (decorate) decorate(*snap);
    // Routes naming no router of the fabric: logged when that list changes.
    auto unrouted = prefix_routes_ ? sa::routes_without_router(*prefix_routes_, snap->router_ports)
                                   : std::vector<std::string>{};
    if (unrouted != unrouted_) {
      for (const auto& line : unrouted)
        log_->warn("{}: {}; the route is skipped", format_error_id(sa::kErrPrefixRouteNoRouter),
                   line);
      unrouted_ = std::move(unrouted);
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    log_->info("SA snapshot {} published in {:.1f} ms ({} nodes, {} groups, ~{} KB)", in.generation,
               ms, snap->nodes.size(), snap->groups.size(), snap->memory_bytes() / 1024);
    return snap;
  });
}

}  // namespace ibsm::sm::publish
