// Desired (node file) + observed (host) -> Plan. Read-only: the planner looks at
// files, sysfs and addresses but changes nothing.
#pragma once

#include <map>
#include <set>
#include <string>

#include "agent/fs.hpp"
#include "agent/kernel.hpp"
#include "agent/node_config.hpp"
#include "agent/observed.hpp"
#include "agent/plan.hpp"
#include "agent/service_probe.hpp"

namespace ibsm::agent {

struct PlanContext {
  const NodeConfig& config;
  const Observed& observed;
  const Fs& fs;
  const Kernel& kernel;                // read-only use: current addresses
  Backend backend = Backend::kDirect;  // resolved, never kAuto
  bool prune = false;                  // remove owned objects that are no longer desired
};

Plan make_plan(const PlanContext& ctx);

// Interfaces that must not be disrupted without --force, and why.
std::map<std::string, std::string> protected_interfaces(const NodeConfig& config,
                                                        const Observed& observed);

// Interfaces holding `ip` (the local end of the operator's SSH connection, from
// $SSH_CONNECTION), so that apply never cuts the session it runs in.
std::set<std::string> interfaces_with_address(const Observed& observed, const Kernel& kernel,
                                              const std::string& ip);

// The manager that owns the host's networking, for backend = "auto", by what
// runs: NetworkManager if its daemon is active, systemd-networkd if active,
// ifupdown if it is installed and networking.service is active (or its state
// file /run/network/ifstate exists), otherwise direct. `why` says which fact decided.
struct BackendChoice {
  Backend backend = Backend::kDirect;
  std::string why;
};
BackendChoice detect_backend(const Fs& fs, const ServiceProbe& services);
std::string backend_name(Backend b);

// Parts of make_plan, one per concern (plan_*.cpp).
std::vector<ResolvedIface> resolve_ipoib(const PlanContext& ctx, Plan& plan);
void plan_network_backend(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces,
                          Plan& plan);
// Always direct, whatever the network manager:
void plan_roce(const PlanContext& ctx, Plan& plan);
void plan_dcb(const PlanContext& ctx, Plan& plan);
void plan_soft_rdma(const PlanContext& ctx, Plan& plan);
void plan_modules(const PlanContext& ctx, Plan& plan);
void plan_memlock(const PlanContext& ctx, Plan& plan);
void plan_nfs(const PlanContext& ctx, Plan& plan);
// systemd-escape --path: "/mnt/nfs-data" -> "mnt-nfs\x2ddata.mount".
std::string mount_unit_name(const std::string& where);
void plan_udev_names(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces, Plan& plan);

}  // namespace ibsm::agent
