// Soft RDMA devices (rxe Soft-RoCE, siw Soft-iWARP) on a netdev: `rdma link add`.
// Not persistent: re-applied at boot and hotplug.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "agent/errors.hpp"
#include "agent/ipoib_rules.hpp"
#include "agent/kernel_support.hpp"
#include "agent/owned_file.hpp"
#include "agent/planner.hpp"

namespace ibsm::agent {
namespace {

std::string netdevs_here(const Observed& o) {
  std::string s;
  for (const auto& n : o.netdevs)
    s += (s.empty() ? "" : ", ") + n.name;
  return s.empty() ? "none" : s;
}

}  // namespace

void plan_soft_rdma(const PlanContext& ctx, Plan& plan) {
  for (const SoftRdma& s : ctx.config.soft_rdma) {
    std::string type = s.type == SoftRdmaType::kRxe ? "rxe" : "siw";
    std::string resource = "soft_rdma " + s.name;
    plan.resources.push_back(resource);
    if (!ctx.observed.netdev(s.netdev)) {
      plan.errors.push_back(Error{
          kNetdevNotFound, resource + ": netdev " + s.netdev +
                               " does not exist; netdevs here: " + netdevs_here(ctx.observed)});
      continue;
    }
    std::string module = type == "rxe" ? "rdma_rxe" : "siw";
    if (!module_available(ctx.fs, module)) {
      plan.errors.push_back(Error{kKernelSupportMissing, resource + ": kernel module " + module +
                                                             " is neither loaded nor installed"});
      continue;
    }
    if (const RdmaDevice* d = ctx.observed.device(s.name)) {
      if (d->parent != s.netdev)
        plan.errors.push_back(
            Error{kForeignObject, resource + ": RDMA device " + s.name + " exists on " +
                                      (d->parent.empty() ? "hardware" : d->parent) + ", not " +
                                      s.netdev + "; left untouched"});
      continue;
    }
    for (const auto& d : ctx.observed.devices)
      if (d.parent == s.netdev && d.name.rfind(type, 0) == 0)
        plan.notes.push_back(resource + ": " + d.name + " already runs on " + s.netdev +
                             " (not managed)");
    if (!module_loaded(ctx.fs, module)) {
      Action m;
      m.kind = ActionKind::kLoadModule;
      m.resource = resource;
      m.value = module;
      m.reason = "needed by " + type;
      plan.actions.push_back(m);
    }
    Action a;
    a.kind = ActionKind::kAddRdmaLink;
    a.resource = resource;
    a.iface = s.name;
    a.value = type;
    a.parent = s.netdev;
    a.reason = "missing";
    plan.actions.push_back(a);
  }
}

}  // namespace ibsm::agent
