#include "agent/planner.hpp"

#include <cstdlib>

namespace ibsm::agent {

Backend detect_backend(const Fs& fs) {
  if (fs.is_dir("/run/NetworkManager")) return Backend::kNetworkManager;
  if (fs.is_dir("/run/systemd/netif")) return Backend::kNetworkd;
  return Backend::kDirect;
}

std::string backend_name(Backend b) {
  switch (b) {
    case Backend::kAuto:
      return "auto";
    case Backend::kNetworkManager:
      return "networkmanager";
    case Backend::kNetworkd:
      return "networkd";
    case Backend::kDirect:
      return "direct";
  }
  return "?";
}

std::map<std::string, std::string> protected_interfaces(const NodeConfig& config,
                                                        const Observed& observed) {
  std::map<std::string, std::string> out;
  for (const auto& i : observed.default_route_interfaces)
    out[i] = "carries the default route";
  for (const auto& i : observed.management_interfaces)
    out[i] = "carries the management connection";
  for (const auto& i : config.protected_interfaces)
    out[i] = "listed in agent.protected_interfaces";
  return out;
}

std::set<std::string> interfaces_with_address(const Observed& observed, const Kernel& kernel,
                                              const std::string& ip) {
  std::set<std::string> out;
  if (ip.empty()) return out;
  for (const auto& n : observed.netdevs)
    for (const auto& a : kernel.addresses(n.name))
      if (a.substr(0, a.find('/')) == ip) out.insert(n.name);
  return out;
}

std::vector<const Action*> Plan::refused(const std::vector<std::string>& protected_ifaces) const {
  std::vector<const Action*> out;
  for (const auto& a : actions)
    if (a.disruptive)
      for (const auto& p : protected_ifaces)
        if (a.iface == p) out.push_back(&a);
  return out;
}

Plan make_plan(const PlanContext& ctx) {
  Plan plan;
  plan.backend = backend_name(ctx.backend);
  plan.interfaces = resolve_ipoib(ctx, plan);
  plan_network_backend(ctx, plan.interfaces, plan);
  plan_udev_names(ctx, plan.interfaces, plan);
  plan_roce(ctx, plan);
  plan_soft_rdma(ctx, plan);
  plan_modules(ctx, plan);
  plan_memlock(ctx, plan);
  plan_nfs(ctx, plan);
  return plan;
}

}  // namespace ibsm::agent
