// The rdma service's files: rdma-core module lists, memlock limits, the NFS over
// RDMA drop-in and udev names for IPoIB parents.
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

void plan_udev_names(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces, Plan& plan) {
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

}  // namespace ibsm::agent
