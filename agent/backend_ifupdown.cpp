// IPoIB through ifupdown (Debian's classic /etc/network/interfaces): one owned
// stanza file per interface in /etc/network/interfaces.d, brought up with ifup.
// A changed stanza of a running interface is applied with ifdown + ifup, which
// interrupts it (disruptive, so refused on protected interfaces without --force).
#include <set>

#include "agent/errors.hpp"
#include "agent/input_grammar.hpp"
#include "agent/network_backend.hpp"
#include "agent/owned_file.hpp"
#include "agent/renderers.hpp"

namespace ibsm::agent {
namespace {

constexpr const char* kInterfacesDir = "/etc/network/interfaces.d";

// Whether /etc/network/interfaces reads the snippets: Debian's default has
// "source /etc/network/interfaces.d/*"; source-directory is the other form.
bool snippets_are_read(const Fs& fs) {
  auto text = fs.read("/etc/network/interfaces");
  if (!text) return false;
  std::size_t pos = 0;
  while (pos < text->size()) {
    std::size_t end = text->find('\n', pos);
    if (end == std::string::npos) end = text->size();
    std::string line = trim(text->substr(pos, end - pos));
    pos = end + 1;
    auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    line = line.substr(first);
    if (line.rfind("source", 0) == 0 && line.find("interfaces.d") != std::string::npos) return true;
  }
  return false;
}

void plan_ifupdown(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces, Plan& plan) {
  std::set<std::string> desired;
  if (!ifaces.empty() && !snippets_are_read(ctx.fs)) {
    plan.errors.push_back(
        Error{kIfupdownSnippetsUnread,
              "/etc/network/interfaces does not source /etc/network/interfaces.d: "
              "ifupdown would never read the agent's stanzas"});
    return;
  }
  for (const ResolvedIface& r : ifaces) {
    // The stanza's pre-up/up/down lines run through /bin/sh as root: every value in them
    // must match a grammar without shell metacharacters (names, addresses; the rest the
    // agent formats itself). The node file and sysfs were checked on the way in; this
    // keeps the rule where the shell line is made.
    bool safe = valid_ifname(r.name) && (r.parent.empty() || valid_ifname(r.parent));
    for (const auto& a : r.addresses)
      safe = safe && valid_address(a);
    if (!safe) {
      plan.errors.push_back(Error{kNodeFileBadName, "iface " + r.name +
                                                        ": a name or address fails its grammar; "
                                                        "no stanza written"});
      continue;
    }
    std::string path = ifupdown_path(r.name);
    desired.insert(path);
    note_foreign_profiles(ctx, r, kInterfacesDir, path, "iface " + r.name + " ", plan);
    bool existed = ctx.fs.exists(path);
    std::size_t before = plan.actions.size();
    plan_owned_file(plan, ctx.fs, r.resource(), path, render_ifupdown_stanza(r), 0644, kFileMarker);
    bool written = plan.actions.size() > before;
    if (r.blocked) continue;
    const NetDevice* n = ctx.observed.netdev(r.name);
    if (written && existed && n) {
      // ifdown runs the old stanza's down hooks (a child is deleted), ifup the new one.
      plan.actions.push_back(command_action(r.resource(), {"ifdown", r.name},
                                            "stanza changed: take the interface down", r.name,
                                            true));
      plan.actions.push_back(
          command_action(r.resource(), {"ifup", r.name}, "bring it up with the new stanza"));
    } else if (written || !n) {
      plan.actions.push_back(command_action(r.resource(), {"ifup", r.name},
                                            written ? "stanza written" : "interface missing",
                                            r.name, changes_existing(ctx, r)));
    }
  }
  std::size_t from = plan.actions.size();
  plan_prune(plan, ctx.fs, kInterfacesDir, "ibsm-", desired, kFileMarker, ctx.prune);
  // ifdown runs the stanza's down hooks (a child is deleted) while the stanza still exists.
  remove_live_objects(plan, from, [](const Action& a) -> std::optional<LiveRemoval> {
    const std::string text = a.previous.value_or("");
    auto at = text.find("\niface ");
    if (at == std::string::npos) return std::nullopt;
    std::string iface = text.substr(at + 7, text.find(' ', at + 7) - at - 7);
    // The file is the agent's own, but it lies in /etc: a name that is not one is left alone.
    if (!valid_ifname(iface)) return std::nullopt;
    return LiveRemoval{{"ifdown", iface}, iface, true};
  });
}

class IfupdownBackend final : public NetworkBackend {
 public:
  std::string name() const override { return "ifupdown"; }
  void plan(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces,
            Plan& plan) const override {
    plan_ifupdown(ctx, ifaces, plan);
  }
};

}  // namespace

std::unique_ptr<NetworkBackend> make_ifupdown_backend() {
  return std::make_unique<IfupdownBackend>();
}

}  // namespace ibsm::agent
