// IPoIB resolution and validation: turns each [[ipoib]] entry into concrete
// interfaces and catches the kernel's and managers' known refusals as plan errors.
#include <algorithm>
#include <set>

#include "agent/errors.hpp"
#include "agent/input_grammar.hpp"
#include "agent/ipoib_rules.hpp"
#include "agent/kernel_support.hpp"
#include "agent/planner.hpp"

namespace ibsm::agent {
namespace {

std::string existing_ports(const Observed& o) {
  std::string s;
  for (const auto& d : o.devices)
    for (const auto& p : d.ports)
      s += (s.empty() ? "" : ", ") + d.name + "/" + std::to_string(p.number) + " (" +
           format_guid(p.guid) + ", " + p.link_layer + ")";
  return s.empty() ? "none" : s;
}

std::string existing_ipoib(const Observed& o) {
  std::string s;
  for (const auto& n : o.netdevs)
    if (n.ipoib() && n.parent.empty()) s += (s.empty() ? "" : ", ") + n.name;
  return s.empty() ? "none" : s;
}

struct PortMatch {
  const RdmaDevice* dev = nullptr;
  const PortState* port = nullptr;
};

PortMatch find_port(const PortRef& ref, const Observed& o, Plan& plan, const std::string& key) {
  if (ref.guid) {
    auto [d, p] = o.port_by_guid(*ref.guid);
    if (!p)
      plan.errors.push_back(Error{kDeviceNotFound, key + ": no port with GUID " +
                                                       format_guid(*ref.guid) +
                                                       "; ports here: " + existing_ports(o)});
    return {d, p};
  }
  const RdmaDevice* d = o.device(ref.device);
  const PortState* p = d ? d->port(ref.port) : nullptr;
  if (!p)
    plan.errors.push_back(Error{kDeviceNotFound, key + ": no RDMA port " + ref.device + "/" +
                                                     std::to_string(ref.port) +
                                                     "; ports here: " + existing_ports(o)});
  return {d, p};
}

// Checks an interface's mode and MTU against what its hardware and partition allow.
// A datagram MTU above the fallback group's limit while the group's MTU is unknown
// (the SA did not answer) is not an error but pending: the SA may allow it later.
void check_mode_mtu(ResolvedIface& r, const NetDevice& parent_dev, const BroadcastMtu& group,
                    std::optional<int> requested, Plan& plan) {
  const int broadcast_mtu = group.for_pkey(r.pkey);
  if (r.mode == IpoibMode::kConnected &&
      (!hw_address_supports_connected(parent_dev.address) || parent_dev.mode.empty()))
    plan.errors.push_back(Error{
        kConnectedModeUnsupported,
        r.name + ": connected mode requested but " + parent_dev.name +
            (parent_dev.mode.empty() ? " has no mode attribute (kernel built without IPoIB CM)"
                                     : " is datagram-only (no connected-mode flag in its hardware "
                                       "address: enhanced IPoIB)")});
  int limit = max_mtu(r.mode == IpoibMode::kConnected, broadcast_mtu);
  if (requested && *requested > limit && r.mode == IpoibMode::kDatagram && !group.known(r.pkey)) {
    r.pending = "mtu " + std::to_string(*requested) + " needs a broadcast group MTU of at least " +
                std::to_string(*requested + 4) +
                ", and the group's MTU is not known yet (the SA "
                "has not answered); waiting for it";
    return;
  }
  if (requested && *requested > limit)
    plan.errors.push_back(Error{
        kMtuTooLarge, r.name + ": mtu " + std::to_string(*requested) + " above " +
                          std::to_string(limit) + " allowed in " + ipoib_mode_name(r.mode) +
                          " mode" +
                          (r.mode == IpoibMode::kDatagram
                               ? " (broadcast group MTU " + std::to_string(broadcast_mtu) + " - 4)"
                               : "")});
}

// Says where an "auto" broadcast MTU came from when the SA answered (a fallback was
// already reported as a warning when the SA was asked).
void note_learnt_mtu(const ResolvedIface& r, const BroadcastMtu& b, Plan& plan) {
  if (b.bytes) return;
  auto it = b.learnt.find(normalize_pkey(r.pkey));
  if (it == b.learnt.end()) return;
  plan.notes.push_back(r.name + ": broadcast group MTU " + std::to_string(it->second) + " (P_Key " +
                       format_pkey(normalize_pkey(r.pkey)) + ", from the SA)");
}

void check_membership(const ResolvedIface& r, const PortState& port, Plan& plan) {
  std::string where = r.device + "/" + std::to_string(r.port);
  if (!port.active()) {
    plan.notes.push_back(r.name + ": port " + where + " is " + port.state +
                         ", not ACTIVE: pending SM");
    return;
  }
  auto entry = port.find_pkey(r.pkey);
  if (!entry)
    plan.notes.push_back(r.name + ": P_Key " + format_pkey(r.pkey) + " is not in " + where +
                         "'s table yet (pending SM); the interface comes up when the SM adds it");
  else if (!is_full_member(*entry))
    plan.notes.push_back(r.name + ": " + where + " is only a limited member of " +
                         format_pkey(r.pkey) + " (table entry " + format_pkey(*entry) +
                         "): it cannot reach other limited members");
}

}  // namespace

std::vector<ResolvedIface> resolve_ipoib(const PlanContext& ctx, Plan& plan) {
  const Observed& o = ctx.observed;
  std::vector<ResolvedIface> out;
  std::set<std::string> names;
  if (!ctx.config.ipoib.empty() && !module_available(ctx.fs, "ib_ipoib"))
    plan.errors.push_back(Error{kKernelSupportMissing,
                                "IPoIB configured but the ib_ipoib module is neither loaded nor "
                                "installed for this kernel"});
  for (std::size_t i = 0; i < ctx.config.ipoib.size(); ++i) {
    const IpoibInterface& want = ctx.config.ipoib[i];
    std::string key = "ipoib[" + std::to_string(i) + "]";
    auto [dev, port] = find_port(want.port, o, plan, key);
    if (!port) continue;
    if (!port->infiniband()) {
      plan.errors.push_back(
          Error{kNotInfiniBand, key + ": " + dev->name + "/" + std::to_string(port->number) +
                                    " is " + port->link_layer + ", IPoIB needs InfiniBand"});
      continue;
    }
    // The parent: the port's IPoIB netdev without a parent of its own.
    const NetDevice* parent_dev = nullptr;
    // Prefer the one the node file names; otherwise the first.
    for (const NetDevice* n : o.ipoib_on(*port))
      if (n->parent.empty() && (!parent_dev || n->name == want.name)) parent_dev = n;
    if (!parent_dev) {
      plan.errors.push_back(
          Error{kNetdevNotFound, key + ": no IPoIB interface on " + dev->name + "/" +
                                     std::to_string(port->number) +
                                     "; IPoIB interfaces here: " + existing_ipoib(o)});
      continue;
    }
    ResolvedIface parent;
    parent.name = want.name.empty() ? parent_dev->name : want.name;
    parent.device = dev->name;
    parent.port = port->number;
    parent.pkey = parent_dev->pkey.value_or(kDefaultPKey);
    parent.mode = want.mode;
    const int parent_group_mtu = want.broadcast_mtu.for_pkey(parent.pkey);
    parent.mtu =
        want.mtu.bytes.value_or(max_mtu(want.mode == IpoibMode::kConnected, parent_group_mtu));
    parent.mtu_auto = !want.mtu.bytes;
    parent.addresses = want.addresses;
    parent.membership = want.membership;
    parent.exists = true;
    if (parent.name != parent_dev->name) {
      if (want.persistent_name) {
        // The udev rule renames it at the next add event; runtime changes wait until then.
        parent.blocked = true;
        plan.notes.push_back(key + ": " + parent_dev->name + " will be named " + parent.name +
                             " by the udev rule at its next add event (reboot or driver reload)");
      } else {
        plan.errors.push_back(
            Error{kNetdevNotFound, key + ": " + dev->name + "/" + std::to_string(port->number) +
                                       " carries " + parent_dev->name + ", not " + want.name +
                                       " (set persistent_name = true to rename it)"});
        continue;
      }
    }
    check_mode_mtu(parent, *parent_dev, want.broadcast_mtu, want.mtu.bytes, plan);
    note_learnt_mtu(parent, want.broadcast_mtu, plan);
    std::vector<PKeyChild> children = want.children;
    if (want.auto_pkeys) {
      for (const auto& e : port->pkeys) {
        // Full members only; the default partition is the parent's own.
        if (!is_full_member(e.value) || same_partition(e.value, kDefaultPKey)) continue;
        bool listed = std::any_of(children.begin(), children.end(), [&](const PKeyChild& c) {
          return same_partition(c.pkey, e.value);
        });
        if (!listed) children.push_back(PKeyChild{e.value, "", {}, {}, {}, {}});
      }
      if (!port->active())
        plan.notes.push_back(key + ": pkeys = \"auto\" but " + dev->name + "/" +
                             std::to_string(port->number) +
                             " is not ACTIVE: the SM has not programmed its table yet");
    }
    if (!valid_ifname(parent.name)) {
      plan.errors.push_back(
          Error{kNodeFileBadName, key + ": " + parent.name + " is not an interface name"});
      continue;
    }
    for (const auto& a : parent.addresses)
      if (!valid_address(a)) plan.errors.push_back(Error{kBadAddress, parent.name + ": " + a});
    names.insert(parent.name);
    std::vector<ResolvedIface> kids;
    for (const PKeyChild& c : children) {
      if (!is_valid_pkey(c.pkey)) {
        plan.errors.push_back(
            Error{kInvalidPKey, key + ": P_Key " + format_pkey(c.pkey) +
                                    " is reserved (0x0000 and 0x8000 are invalid)"});
        continue;
      }
      ResolvedIface r;
      r.pkey = normalize_pkey(c.pkey);
      r.name = c.name.empty() ? child_name(parent.name, r.pkey) : c.name;
      r.parent = parent.name;
      r.device = parent.device;
      r.port = parent.port;
      r.mode = c.mode.value_or(want.mode);
      const int group_mtu = want.broadcast_mtu.for_pkey(r.pkey);
      r.mtu = c.mtu.bytes.value_or(max_mtu(r.mode == IpoibMode::kConnected, group_mtu));
      r.mtu_auto = !c.mtu.bytes;
      r.addresses = c.addresses;
      r.membership = c.membership.value_or(want.membership);
      r.blocked = parent.blocked;
      const NetDevice* existing = o.netdev(r.name);
      r.exists = existing != nullptr;
      if (static_cast<int>(r.name.size()) > kMaxIfNameLen) {
        plan.errors.push_back(Error{kNameTooLong, r.name + ": " + std::to_string(r.name.size()) +
                                                      " characters, Linux allows 15"});
        continue;
      }
      // Names reach rendered files a shell runs (ifupdown): the node file's were checked
      // when read, sysfs's when observed; this keeps the invariant local to the renderers.
      if (!valid_ifname(r.name)) {
        plan.errors.push_back(
            Error{kNodeFileBadName, key + ": " + r.name + " is not an interface name"});
        continue;
      }
      if (!names.insert(r.name).second ||
          std::any_of(kids.begin(), kids.end(),
                      [&](const ResolvedIface& k) { return k.pkey == r.pkey; })) {
        plan.errors.push_back(Error{kDuplicateInterface, r.name + ": P_Key " + format_pkey(r.pkey) +
                                                             " or name given twice"});
        continue;
      }
      check_mode_mtu(r, *parent_dev, want.broadcast_mtu, c.mtu.bytes, plan);
      note_learnt_mtu(r, want.broadcast_mtu, plan);
      for (const auto& a : r.addresses)
        if (!valid_address(a)) plan.errors.push_back(Error{kBadAddress, r.name + ": " + a});
      check_membership(r, *port, plan);
      kids.push_back(std::move(r));
    }
    out.push_back(std::move(parent));
    for (auto& k : kids)
      out.push_back(std::move(k));
  }
  return out;
}

}  // namespace ibsm::agent
