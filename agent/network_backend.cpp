#include "agent/network_backend.hpp"

#include "agent/ipoib_rules.hpp"
#include "agent/owned_file.hpp"

namespace ibsm::agent {

const char* mode_name(IpoibMode m) {
  return m == IpoibMode::kConnected ? "connected" : "datagram";
}

Action link_action(ActionKind k, const ResolvedIface& r, std::string value, std::string reason,
                   bool disruptive) {
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
  if (needs_mtu) {
    Action a = link_action(ActionKind::kSetMtu, r, std::to_string(r.mtu),
                           "mtu is " + std::to_string(n.mtu), true);
    a.unattended = !switching;
    plan.actions.push_back(std::move(a));
  }
}

Action command_action(const std::string& resource, std::vector<std::string> argv,
                      std::string reason, const std::string& iface, bool disruptive) {
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

void remove_live_objects(Plan& plan, std::size_t from,
                         const std::function<std::optional<LiveRemoval>(const Action&)>& live) {
  std::vector<Action> out(plan.actions.begin(),
                          plan.actions.begin() + static_cast<std::ptrdiff_t>(from));
  for (std::size_t i = from; i < plan.actions.size(); ++i) {
    const Action& a = plan.actions[i];
    auto l = a.kind == ActionKind::kRemoveFile ? live(a) : std::nullopt;
    if (l && !l->before) out.push_back(a);
    if (l)
      out.push_back(command_action(a.resource, l->argv, "remove the live object too (--prune)",
                                   l->iface, true));
    if (!l || l->before) out.push_back(a);
  }
  plan.actions = std::move(out);
}

std::unique_ptr<NetworkBackend> make_network_backend(Backend b) {
  switch (b) {
    case Backend::kNetworkManager:
      return make_networkmanager_backend();
    case Backend::kNetworkd:
      return make_networkd_backend();
    case Backend::kIfupdown:
      return make_ifupdown_backend();
    case Backend::kDirect:
    case Backend::kAuto:
      break;
  }
  return make_direct_backend();
}

void plan_network_backend(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces,
                          Plan& plan) {
  for (const auto& r : ifaces)
    plan.resources.push_back(r.resource());
  make_network_backend(ctx.backend)->plan(ctx, ifaces, plan);
}

}  // namespace ibsm::agent
