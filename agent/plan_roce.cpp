// The default RoCE mode and TOS per port: rdma_cm's configfs
// (Documentation/ABI/testing/configfs-rdma_cm). Not persistent: re-applied at boot and hotplug.
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

constexpr std::string_view rdma_cm_root = "/sys/kernel/config/rdma_cm";

namespace {

std::string devices_here(const Observed& o) {
  std::string s;
  for (const auto& d : o.devices)
    s += (s.empty() ? "" : ", ") + d.name;
  return s.empty() ? "none" : s;
}

Action attribute(const std::string& resource, const std::string& path, const std::string& value,
                 std::string reason) {
  Action a;
  a.kind = ActionKind::kWriteAttribute;
  a.resource = resource;
  a.path = path;
  a.value = value;
  a.reason = std::move(reason);
  return a;
}

}  // namespace

void plan_roce(const PlanContext& ctx, Plan& plan) {
  for (const RoceSetting& r : ctx.config.roce) {
    std::string resource = "roce " + r.device + "/" + std::to_string(r.port);
    plan.resources.push_back(resource);
    const RdmaDevice* d = ctx.observed.device(r.device);
    const PortState* p = d ? d->port(r.port) : nullptr;
    if (!p) {
      plan.errors.push_back(
          Error{kDeviceNotFound,
                resource + ": no such RDMA port; devices here: " + devices_here(ctx.observed)});
      continue;
    }
    if (p->infiniband()) {
      plan.errors.push_back(Error{
          kNotInfiniBand, resource + ": link layer is InfiniBand; a RoCE mode needs Ethernet"});
      continue;
    }
    if (!ctx.fs.is_dir(std::string(rdma_cm_root))) {
      plan.errors.push_back(
          Error{kKernelSupportMissing, resource + ": " + std::string(rdma_cm_root) +
                                           " missing (configfs not mounted, rdma_cm not loaded, or "
                                           "CONFIG_INFINIBAND_ADDR_TRANS_CONFIGFS off)"});
      continue;
    }
    std::string dir = std::string(rdma_cm_root) + "/" + r.device;
    std::string port_dir = dir + "/ports/" + std::to_string(r.port);
    std::string mode = r.mode == RoceMode::kV2 ? "RoCE v2" : "IB/RoCE v1";
    bool fresh = !ctx.fs.is_dir(dir);
    if (fresh) {
      Action a;
      a.kind = ActionKind::kConfigfsMkdir;
      a.resource = resource;
      a.path = dir;
      a.reason = "rdma_cm has no entry for " + r.device;
      plan.actions.push_back(a);
    }
    std::string have = trim(ctx.fs.read(port_dir + "/default_roce_mode").value_or(""));
    if (fresh || have != mode)
      plan.actions.push_back(attribute(resource, port_dir + "/default_roce_mode", mode,
                                       fresh ? "not set" : "mode is " + have));
    if (r.tos) {
      std::string tos = std::to_string(*r.tos);
      std::string have_tos = trim(ctx.fs.read(port_dir + "/default_roce_tos").value_or(""));
      if (fresh || have_tos != tos)
        plan.actions.push_back(attribute(resource, port_dir + "/default_roce_tos", tos,
                                         fresh ? "not set" : "tos is " + have_tos));
    }
  }
}

}  // namespace ibsm::agent
