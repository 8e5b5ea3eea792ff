// IPoIB through systemd-networkd: .netdev units for children, .network units for
// MTU and addresses, then networkctl reload/reconfigure.
#include <algorithm>
#include <set>

#include "agent/errors.hpp"
#include "agent/input_grammar.hpp"
#include "agent/ipoib_rules.hpp"
#include "agent/network_backend.hpp"
#include "agent/owned_file.hpp"
#include "agent/renderers.hpp"

namespace ibsm::agent {
namespace {

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
    plan.actions.push_back(command_action("networkd", {"networkctl", "reload"}, "units changed"));
  for (const ResolvedIface* r : reconfigure)
    plan.actions.push_back(command_action(r->resource(), {"networkctl", "reconfigure", r->name},
                                          "apply the changed unit", r->name,
                                          changes_existing(ctx, *r)));
  std::size_t from = plan.actions.size();
  plan_prune(plan, ctx.fs, "/etc/systemd/network", "60-ibsm-", desired, kFileMarker, ctx.prune);
  // A removed .netdev leaves its interface behind: networkctl delete removes it.
  remove_live_objects(plan, from, [](const Action& a) -> std::optional<LiveRemoval> {
    std::string file = a.path.substr(a.path.rfind('/') + 1);
    const std::string prefix = "60-ibsm-", ext = ".netdev";
    if (file.size() <= prefix.size() + ext.size() ||
        file.compare(file.size() - ext.size(), ext.size(), ext))
      return std::nullopt;
    std::string iface = file.substr(prefix.size(), file.size() - prefix.size() - ext.size());
    if (!valid_ifname(iface)) return std::nullopt;
    return LiveRemoval{{"networkctl", "delete", iface}, iface, false};
  });
  if (plan.actions.size() > from)
    plan.actions.push_back(command_action("networkd", {"networkctl", "reload"}, "units removed"));
}

class NetworkdBackend final : public NetworkBackend {
 public:
  std::string name() const override { return "networkd"; }
  void plan(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces,
            Plan& plan) const override {
    plan_networkd(ctx, ifaces, plan);
  }
};

}  // namespace

std::unique_ptr<NetworkBackend> make_networkd_backend() {
  return std::make_unique<NetworkdBackend>();
}

}  // namespace ibsm::agent
