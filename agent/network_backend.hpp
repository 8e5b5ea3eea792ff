// The network-manager seam: how IPoIB interfaces become configuration. One
// backend per manager that can own a host's networking: NetworkManager
// (keyfiles), systemd-networkd (.netdev/.network units), ifupdown
// (/etc/network/interfaces.d stanzas) and direct (iproute2
// semantics, for hosts without a manager). Each turns resolved interfaces into
// plan actions; their effects go through Fs (files) and Kernel (commands), whose
// tree fakes (RootFs on a tree, TreeKernel) stand in for the manager in tests.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/plan.hpp"
#include "agent/planner.hpp"

namespace ibsm::agent {

class NetworkBackend {
 public:
  virtual ~NetworkBackend() = default;
  virtual std::string name() const = 0;
  virtual void plan(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces,
                    Plan& plan) const = 0;
};

std::unique_ptr<NetworkBackend> make_direct_backend();
std::unique_ptr<NetworkBackend> make_networkmanager_backend();
std::unique_ptr<NetworkBackend> make_networkd_backend();
std::unique_ptr<NetworkBackend> make_ifupdown_backend();
std::unique_ptr<NetworkBackend> make_network_backend(Backend b);  // kAuto: direct

// Helpers the backends share (network_backend.cpp).
const char* mode_name(IpoibMode m);
Action link_action(ActionKind k, const ResolvedIface& r, std::string value, std::string reason,
                   bool disruptive = false);
// A manager command (nmcli, networkctl).
Action command_action(const std::string& resource, std::vector<std::string> argv,
                      std::string reason, const std::string& iface = "", bool disruptive = false);
// Whether the interface's MTU matches; "auto" accepts what the kernel chose.
bool mtu_matches(const ResolvedIface& r, const NetDevice& n);
// Mode and MTU changes of an existing interface (both disruptive).
void plan_mode_mtu(const ResolvedIface& r, const NetDevice& n, Plan& plan);
// Whether (re)activating `r` would change an existing interface's mode or MTU.
bool changes_existing(const PlanContext& ctx, const ResolvedIface& r);
// --prune: before (or after) each removal plan_prune added from index `from`, the
// command that removes the live object too; `live` maps a removed file to it.
struct LiveRemoval {
  std::vector<std::string> argv;
  std::string iface;
  bool before = true;  // run before the file goes (ifdown needs the stanza)
};
void remove_live_objects(Plan& plan, std::size_t from,
                         const std::function<std::optional<LiveRemoval>(const Action&)>& live);

// Reports profiles in `dir` without our marker that mention `needle` (never touches them).
void note_foreign_profiles(const PlanContext& ctx, const ResolvedIface& r, const std::string& dir,
                           const std::string& ours, const std::string& needle, Plan& plan);

}  // namespace ibsm::agent
