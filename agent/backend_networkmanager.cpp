// IPoIB through NetworkManager: one keyfile per interface (0600, [user] marker),
// loaded and activated with nmcli.
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
            command_action(r.resource(), {"nmcli", "connection", "load", path}, "profile written"));
      plan.actions.push_back(
          command_action(r.resource(), {"nmcli", "connection", "up", "id", nm_connection_id(r)},
                         written ? "activate the new profile" : "interface missing", r.name,
                         changes_existing(ctx, r)));
    }
  }
  std::size_t from = plan.actions.size();
  plan_prune(plan, ctx.fs, "/etc/NetworkManager/system-connections", "ibsm-", desired, kNmMarker,
             ctx.prune);
  // `nmcli connection delete` takes the connection down, deletes a child device NM
  // created, and removes the keyfile (the removal after it then finds nothing).
  remove_live_objects(plan, from, [](const Action& a) -> std::optional<LiveRemoval> {
    std::string file = a.path.substr(a.path.rfind('/') + 1);
    const std::string ext = ".nmconnection";
    if (file.size() <= ext.size() || file.compare(file.size() - ext.size(), ext.size(), ext))
      return std::nullopt;
    std::string id = file.substr(0, file.size() - ext.size());
    if (id.size() <= 5 || !valid_ifname(id.substr(5))) return std::nullopt;
    return LiveRemoval{{"nmcli", "connection", "delete", "id", id}, id.substr(5), true};
  });
}

class NetworkManagerBackend final : public NetworkBackend {
 public:
  std::string name() const override { return "networkmanager"; }
  void plan(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces,
            Plan& plan) const override {
    plan_networkmanager(ctx, ifaces, plan);
  }
};

}  // namespace

std::unique_ptr<NetworkBackend> make_networkmanager_backend() {
  return std::make_unique<NetworkManagerBackend>();
}

}  // namespace ibsm::agent
