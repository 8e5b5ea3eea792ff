#include "agent/planner.hpp"

#include <cstdlib>

namespace ibsm::agent {

BackendChoice detect_backend(const Fs& fs, const ServiceProbe& services) {
  if (services.active("NetworkManager.service"))
    return {Backend::kNetworkManager, "NetworkManager.service is active"};
  if (services.active("systemd-networkd.service"))
    return {Backend::kNetworkd, "systemd-networkd.service is active"};
  bool ifupdown = fs.exists("/sbin/ifup") || fs.exists("/usr/sbin/ifup");
  if (ifupdown && services.active("networking.service"))
    return {Backend::kIfupdown, "ifupdown is installed and networking.service is active"};
  if (ifupdown && fs.exists("/run/network/ifstate"))
    return {Backend::kIfupdown, "ifupdown is installed and /run/network/ifstate exists"};
  return {Backend::kDirect, "no network manager is active"};
}

std::string backend_name(Backend b) {
  switch (b) {
    case Backend::kAuto:
      return "auto";
    case Backend::kNetworkManager:
      return "networkmanager";
    case Backend::kNetworkd:
      return "networkd";
    case Backend::kIfupdown:
      return "ifupdown";
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

bool Plan::is_pending(const std::string& resource) const {
  for (const auto& p : pending)
    if (p.resource == resource) return true;
  return false;
}

// Moves the actions of pending resources out of the plan: they wait, the rest goes ahead.
static void hold_pending(Plan& plan) {
  for (const auto& r : plan.interfaces)
    if (!r.pending.empty()) plan.pending.push_back({r.resource(), r.pending});
  if (plan.pending.empty()) return;
  std::vector<Action> run;
  for (auto& a : plan.actions)
    (plan.is_pending(a.resource) ? plan.held : run).push_back(std::move(a));
  plan.actions = std::move(run);
}

Plan make_plan(const PlanContext& ctx) {
  Plan plan;
  plan.backend = backend_name(ctx.backend);
  plan.interfaces = resolve_ipoib(ctx, plan);
  plan_network_backend(ctx, plan.interfaces, plan);
  plan_udev_names(ctx, plan.interfaces, plan);
  plan_roce(ctx, plan);
  plan_dcb(ctx, plan);
  plan_soft_rdma(ctx, plan);
  plan_modules(ctx, plan);
  plan_memlock(ctx, plan);
  plan_nfs(ctx, plan);
  hold_pending(plan);
  return plan;
}

}  // namespace ibsm::agent
