// IPoIB through the network manager that owns the host (NetworkManager keyfiles,
// systemd-networkd units) or directly with iproute2 semantics where there is none.
#include <algorithm>
#include <set>

#include "agent/errors.hpp"
#include "agent/ipoib_rules.hpp"
#include "agent/owned_file.hpp"
#include "agent/planner.hpp"
#include "agent/renderers.hpp"

namespace ibsm::agent {
namespace {

// The direct backend's in-kernel ownership marker (ifalias).
std::string alias_for(const ResolvedIface& r) {
  return "ibsm-agent:" + r.name;
}

const char* mode_name(IpoibMode m) {
  return m == IpoibMode::kConnected ? "connected" : "datagram";
}

Action link_action(ActionKind k, const ResolvedIface& r, std::string value, std::string reason,
                   bool disruptive = false) {
  Action a;
  a.kind = k;
  a.resource = r.resource();
  a.iface = r.name;
  a.value = std::move(value);
  a.reason = std::move(reason);
  a.disruptive = disruptive;
  return a;
}

bool mtu_matches(const ResolvedIface& r, const NetDevice& n) {
  if (!r.mtu_auto) return n.mtu == r.mtu;
  return r.mode == IpoibMode::kDatagram ? n.mtu <= r.mtu : n.mtu == kConnectedMaxMtu;
}

// Mode and MTU of an existing interface; disruptive changes (ipoib_set_mode flushes paths).
void plan_mode_mtu(const ResolvedIface& r, const NetDevice& n, Plan& plan) {
  bool switching = n.mode != mode_name(r.mode);
  if (switching)
    plan.actions.push_back(
        link_action(ActionKind::kSetMode, r, mode_name(r.mode), "mode is " + n.mode, true));
  // A mode switch sets the MTU itself (65520 connected, the UD MTU datagram): "auto" needs no more.
  bool needs_mtu = switching ? !r.mtu_auto : !mtu_matches(r, n);
  if (needs_mtu)
    plan.actions.push_back(link_action(ActionKind::kSetMtu, r, std::to_string(r.mtu),
                                       "mtu is " + std::to_string(n.mtu), true));
}

void plan_direct(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces, Plan& plan) {
  for (const ResolvedIface& r : ifaces) {
    if (r.blocked) continue;
    const NetDevice* n = ctx.observed.netdev(r.name);
    if (n) {
      // A parent the node file names is adopted when nothing else claims it; anything else
      // with a foreign alias, or a child we did not create, is left alone.
      bool ours = n->ifalias == alias_for(r);
      bool adoptable = r.parent.empty() && n->ifalias.empty();
      if (!ours && !adoptable) {
        plan.errors.push_back(
            Error{kForeignObject, r.name + " exists and was not created by ibsm-agent (alias \"" +
                                      n->ifalias + "\"); left untouched"});
        continue;
      }
      if (!r.parent.empty() && n->pkey && *n->pkey != r.pkey) {
        plan.errors.push_back(Error{kForeignObject, r.name + " has P_Key " + format_pkey(*n->pkey) +
                                                        ", the node file wants " +
                                                        format_pkey(r.pkey)});
        continue;
      }
      if (!ours)
        plan.actions.push_back(
            link_action(ActionKind::kSetAlias, r, alias_for(r), "mark as managed"));
      plan_mode_mtu(r, *n, plan);
      if (n->operstate == "down")
        plan.actions.push_back(link_action(ActionKind::kLinkUp, r, "", "link is down"));
    } else {
      Action a = link_action(ActionKind::kCreateChild, r, mode_name(r.mode), "missing");
      a.parent = r.parent;
      a.pkey = r.pkey;
      plan.actions.push_back(a);
      plan.actions.push_back(
          link_action(ActionKind::kSetAlias, r, alias_for(r), "mark as managed"));
      // A new connected-mode child starts at 65520; any other explicit MTU is set after creation.
      if (!r.mtu_auto && !(r.mode == IpoibMode::kConnected && r.mtu == kConnectedMaxMtu))
        plan.actions.push_back(
            link_action(ActionKind::kSetMtu, r, std::to_string(r.mtu), "new interface"));
      plan.actions.push_back(link_action(ActionKind::kLinkUp, r, "", "new interface"));
    }
    auto have = n ? ctx.kernel.addresses(r.name) : std::vector<std::string>{};
    for (const auto& addr : r.addresses)
      if (std::find(have.begin(), have.end(), addr) == have.end())
        plan.actions.push_back(link_action(ActionKind::kAddAddress, r, addr, "address missing"));
  }
}

// Children carrying our alias that the node file no longer wants: removed with --prune.
void plan_direct_prune(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces,
                       Plan& plan) {
  for (const NetDevice& n : ctx.observed.netdevs) {
    if (!n.ipoib() || n.parent.empty() || n.ifalias != "ibsm-agent:" + n.name) continue;
    bool wanted = std::any_of(ifaces.begin(), ifaces.end(),
                              [&](const ResolvedIface& r) { return r.name == n.name; });
    if (wanted) continue;
    if (!ctx.prune) {
      plan.notes.push_back(
          n.name +
          " was created by ibsm-agent but is no longer in the node file (--prune deletes it)");
      continue;
    }
    Action a;
    a.kind = ActionKind::kDeleteLink;
    a.resource = "ipoib " + n.name;
    a.iface = n.name;
    a.disruptive = true;
    a.reason = "no longer in the node file (--prune)";
    plan.actions.push_back(a);
  }
}

Action run_action(const std::string& resource, std::vector<std::string> argv, std::string reason,
                  const std::string& iface = "", bool disruptive = false) {
  Action a;
  a.kind = ActionKind::kRun;
  a.resource = resource;
  a.argv = std::move(argv);
  a.reason = std::move(reason);
  a.iface = iface;
  a.disruptive = disruptive;
  return a;
}

bool changes_existing(const PlanContext& ctx, const ResolvedIface& r) {
  const NetDevice* n = ctx.observed.netdev(r.name);
  return n && (!mtu_matches(r, *n) || n->mode != mode_name(r.mode));
}

// Profiles someone else wrote for the same interface are reported, never touched:
// the manager would use only one of them.
void note_foreign_profiles(const PlanContext& ctx, const ResolvedIface& r, const std::string& dir,
                           const std::string& ours, const std::string& needle, Plan& plan) {
  for (const auto& name : ctx.fs.list(dir)) {
    std::string path = dir + "/" + name;
    if (path == ours) continue;
    auto text = ctx.fs.read(path);
    if (!text || text->find(kNmMarker) != std::string::npos ||
        text->find(kFileMarker) != std::string::npos)
      continue;
    if (text->find(needle) != std::string::npos)
      plan.notes.push_back(path + " (not ibsm-agent's) also configures " + r.name +
                           "; the manager applies only one profile to it");
  }
}

void plan_networkmanager(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces,
                         Plan& plan) {
  std::set<std::string> desired;
  for (const ResolvedIface& r : ifaces) {
    if (!r.parent.empty() && r.name != child_name(r.parent, r.pkey)) {
      plan.errors.push_back(
          Error{kNodeFileBadValue, r.name + ": NetworkManager names P_Key children " +
                                       child_name(r.parent, r.pkey) +
                                       "; drop the custom name or use backend networkd/direct"});
      continue;
    }
    std::string path = nm_keyfile_path(r);
    desired.insert(path);
    note_foreign_profiles(ctx, r, "/etc/NetworkManager/system-connections", path,
                          "interface-name=" + r.name + "\n", plan);
    std::size_t before = plan.actions.size();
    plan_owned_file(plan, ctx.fs, r.resource(), path, render_nm_keyfile(r), 0600, kNmMarker);
    bool written = plan.actions.size() > before;
    if (!r.blocked && (written || !ctx.observed.netdev(r.name))) {
      if (written)
        plan.actions.push_back(
            run_action(r.resource(), {"nmcli", "connection", "load", path}, "profile written"));
      plan.actions.push_back(run_action(r.resource(),
                                        {"nmcli", "connection", "up", "id", nm_connection_id(r)},
                                        written ? "activate the new profile" : "interface missing",
                                        r.name, changes_existing(ctx, r)));
    }
  }
  plan_prune(plan, ctx.fs, "/etc/NetworkManager/system-connections", "ibsm-", desired, kNmMarker,
             ctx.prune);
}

void plan_networkd(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces, Plan& plan) {
  std::set<std::string> desired;
  bool reload = false;
  std::vector<const ResolvedIface*> reconfigure;
  for (const ResolvedIface& r : ifaces) {
    std::vector<std::string> kids;
    for (const ResolvedIface& k : ifaces)
      if (k.parent == r.name) kids.push_back(k.name);
    std::size_t before = plan.actions.size();
    if (!r.parent.empty()) {
      desired.insert(networkd_path(r.name, "netdev"));
      plan_owned_file(plan, ctx.fs, r.resource(), networkd_path(r.name, "netdev"),
                      render_networkd_netdev(r), 0644, kFileMarker);
    }
    desired.insert(networkd_path(r.name, "network"));
    note_foreign_profiles(ctx, r, "/etc/systemd/network", networkd_path(r.name, "network"),
                          "Name=" + r.name + "\n", plan);
    plan_owned_file(plan, ctx.fs, r.resource(), networkd_path(r.name, "network"),
                    render_networkd_network(r, kids), 0644, kFileMarker);
    bool written = plan.actions.size() > before;
    const NetDevice* n = ctx.observed.netdev(r.name);
    // networkd 252 ignores [IPoIB] in .network files (systemd #36421): set the parent's mode
    // directly.
    if (r.parent.empty() && n && !r.blocked && n->mode != mode_name(r.mode))
      plan.actions.push_back(
          link_action(ActionKind::kSetMode, r, mode_name(r.mode), "mode is " + n->mode, true));
    reload = reload || written || (!n && !r.blocked);
    if (n && !r.blocked && (written || !mtu_matches(r, *n))) reconfigure.push_back(&r);
  }
  if (reload)
    plan.actions.push_back(run_action("networkd", {"networkctl", "reload"}, "units changed"));
  for (const ResolvedIface* r : reconfigure)
    plan.actions.push_back(run_action(r->resource(), {"networkctl", "reconfigure", r->name},
                                      "apply the changed unit", r->name,
                                      changes_existing(ctx, *r)));
  plan_prune(plan, ctx.fs, "/etc/systemd/network", "60-ibsm-", desired, kFileMarker, ctx.prune);
}

}  // namespace

void plan_network_backend(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces,
                          Plan& plan) {
  for (const auto& r : ifaces)
    plan.resources.push_back(r.resource());
  switch (ctx.backend) {
    case Backend::kNetworkManager:
      plan_networkmanager(ctx, ifaces, plan);
      break;
    case Backend::kNetworkd:
      plan_networkd(ctx, ifaces, plan);
      break;
    case Backend::kDirect:
    case Backend::kAuto:
      plan_direct(ctx, ifaces, plan);
      plan_direct_prune(ctx, ifaces, plan);
      break;
  }
}

}  // namespace ibsm::agent
