// IPoIB directly, with iproute2 semantics, on hosts where no network manager
// runs. The interface alias "ibsm-agent:<name>" is the in-kernel ownership marker.
#include <algorithm>
#include <set>

#include "agent/errors.hpp"
#include "agent/ipoib_rules.hpp"
#include "agent/network_backend.hpp"
#include "agent/owned_file.hpp"
#include "agent/renderers.hpp"

namespace ibsm::agent {
namespace {

// The direct backend's in-kernel ownership marker (ifalias).
std::string alias_for(const ResolvedIface& r) {
  return "ibsm-agent:" + r.name;
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

class DirectBackend final : public NetworkBackend {
 public:
  std::string name() const override { return "direct"; }
  void plan(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces,
            Plan& plan) const override {
    plan_direct(ctx, ifaces, plan);
    plan_direct_prune(ctx, ifaces, plan);
  }
};

}  // namespace

std::unique_ptr<NetworkBackend> make_direct_backend() {
  return std::make_unique<DirectBackend>();
}

}  // namespace ibsm::agent
