// Everything no network manager handles, always applied directly: the default
// RoCE mode (configfs), soft RDMA devices (rdma link), rdma-core module lists,
// memlock limits, NFS over RDMA and udev names for IPoIB parents.
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

constexpr std::string_view kRdmaCm = "/sys/kernel/config/rdma_cm";

std::string devices_here(const Observed& o) {
  std::string s;
  for (const auto& d : o.devices)
    s += (s.empty() ? "" : ", ") + d.name;
  return s.empty() ? "none" : s;
}

std::string netdevs_here(const Observed& o) {
  std::string s;
  for (const auto& n : o.netdevs)
    s += (s.empty() ? "" : ", ") + n.name;
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
    if (!ctx.fs.is_dir(std::string(kRdmaCm))) {
      plan.errors.push_back(
          Error{kKernelSupportMissing, resource + ": " + std::string(kRdmaCm) +
                                           " missing (configfs not mounted, rdma_cm not loaded, or "
                                           "CONFIG_INFINIBAND_ADDR_TRANS_CONFIGFS off)"});
      continue;
    }
    std::string dir = std::string(kRdmaCm) + "/" + r.device;
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

// Module lists are conffiles shipped by rdma-core: the agent appends the missing
// modules below one marked line, keeping a copy of the original.
void plan_modules(const PlanContext& ctx, Plan& plan) {
  std::map<std::string, std::vector<std::string>> lists;
  for (const ModuleList& l : ctx.config.modules)
    for (const auto& m : l.modules)
      lists[l.list].push_back(m);
  if (ctx.config.nfs && ctx.config.nfs->server) lists["rdma"].push_back("svcrdma");
  if (ctx.config.nfs && ctx.config.nfs->client) lists["rdma"].push_back("xprtrdma");
  const std::string marker = "# Added by ibsm-agent from the node file:";
  for (auto& [list, modules] : lists) {
    std::string resource = "modules " + list;
    plan.resources.push_back(resource);
    std::string path = "/etc/rdma/modules/" + list + ".conf";
    std::string text = ctx.fs.read(path).value_or("");
    std::set<std::string> present;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      std::string t = trim(line);
      if (!t.empty() && t[0] != '#' && t[0] != ';') present.insert(t);
    }
    std::vector<std::string> missing;
    for (const auto& m : modules) {
      if (!module_available(ctx.fs, m))
        plan.errors.push_back(Error{kKernelSupportMissing, resource + ": kernel module " + m +
                                                               " is neither loaded nor installed"});
      else if (!present.count(m) && std::find(missing.begin(), missing.end(), m) == missing.end())
        missing.push_back(m);
      if (module_available(ctx.fs, m) && !module_loaded(ctx.fs, m)) {
        Action l;
        l.kind = ActionKind::kLoadModule;
        l.resource = resource;
        l.value = m;
        l.reason = "not loaded";
        plan.actions.push_back(l);
      }
    }
    if (missing.empty()) continue;
    if (!text.empty() && text.back() != '\n') text += "\n";
    if (text.find(marker) == std::string::npos) text += marker + "\n";
    for (const auto& m : missing)
      text += m + "\n";
    Action a;
    a.kind = ActionKind::kWriteFile;
    a.resource = resource;
    a.path = path;
    a.content = text;
    a.backup = ctx.fs.exists(path);
    std::string names;
    for (const auto& m : missing)
      names += (names.empty() ? "" : ", ") + m;
    a.reason = "not listed: " + names;
    plan.actions.push_back(a);
  }
}

void plan_memlock(const PlanContext& ctx, Plan& plan) {
  const auto& m = ctx.config.memlock;
  if (!m) return;
  std::string content = file_header() + "# Lets members of " + m->group +
                        " pin memory for RDMA (limits.conf(5); effective at the next login).\n" +
                        "@" + m->group + " soft memlock " + m->soft + "\n" + "@" + m->group +
                        " hard memlock " + m->hard + "\n";
  plan_owned_file(plan, ctx.fs, "memlock " + m->group,
                  "/etc/security/limits.d/90-ibsm-agent-memlock.conf", content, 0644, kFileMarker);
}

void plan_nfs(const PlanContext& ctx, Plan& plan) {
  const auto& n = ctx.config.nfs;
  if (!n || !n->server) return;
  // rpc.nfsd reads rdma-port only when rdma is also true (nfs-utils configure_listeners).
  std::string content =
      file_header() + "[nfsd]\nrdma=y\nrdma-port=" + std::to_string(n->port) + "\n";
  plan_owned_file(plan, ctx.fs, "nfs_rdma server", "/etc/nfs.conf.d/90-ibsm-agent-rdma.conf",
                  content, 0644, kFileMarker);
}

void plan_udev(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces, Plan& plan) {
  std::string rules;
  for (std::size_t i = 0; i < ctx.config.ipoib.size(); ++i) {
    const IpoibInterface& want = ctx.config.ipoib[i];
    if (!want.persistent_name) continue;
    auto it = std::find_if(ifaces.begin(), ifaces.end(), [&](const ResolvedIface& r) {
      return r.parent.empty() && (want.name.empty() || r.name == want.name);
    });
    const PortState* port = nullptr;
    if (it != ifaces.end())
      if (const RdmaDevice* d = ctx.observed.device(it->device)) port = d->port(it->port);
    if (!port || want.name.empty()) {
      if (want.name.empty())
        plan.errors.push_back(Error{
            kNodeFileBadValue, "ipoib[" + std::to_string(i) + "]: persistent_name needs name"});
      continue;
    }
    // Match the last 8 bytes (the port GUID) only: bytes 1-11 hold QPN and subnet prefix.
    std::string g = format_guid(port->guid).substr(2);
    std::string mac;
    for (std::size_t b = 0; b < 16; b += 2)
      mac += ":" + g.substr(b, 2);
    rules +=
        "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
        "ATTR{address}==\"?*" +
        mac + "\", NAME=\"" + want.name + "\"\n";
  }
  if (rules.empty()) return;
  plan_owned_file(plan, ctx.fs, "udev ipoib names", "/etc/udev/rules.d/70-ibsm-agent-ipoib.rules",
                  file_header() + rules, 0644, kFileMarker);
}

}  // namespace

void plan_rdma_service(const PlanContext& ctx, Plan& plan) {
  plan_roce(ctx, plan);
  plan_soft_rdma(ctx, plan);
  plan_modules(ctx, plan);
  plan_memlock(ctx, plan);
  plan_nfs(ctx, plan);
}

void plan_udev_names(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces, Plan& plan) {
  plan_udev(ctx, ifaces, plan);
}

}  // namespace ibsm::agent
