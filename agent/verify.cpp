#include "agent/verify.hpp"
#include "agent/input_grammar.hpp"

#include <arpa/inet.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include <algorithm>
#include <set>

#include "agent/errors.hpp"
#include "agent/ipoib_rules.hpp"
#include "agent/memlock_check.hpp"
#include "agent/network_backend.hpp"
#include "agent/partition_fit.hpp"
#include "agent/planner.hpp"

namespace ibsm::agent {

std::string_view state_name(VerifyState s) {
  switch (s) {
    case VerifyState::kOk:
      return "ok";
    case VerifyState::kPendingSm:
      return "pending-sm";
    case VerifyState::kPending:
      return "pending";
    case VerifyState::kDrift:
      return "drift";
    case VerifyState::kFailed:
      return "failed";
    case VerifyState::kSkipped:
      return "skipped";
  }
  return "?";
}

// The GID a RoCE v2 entry carries for an address, as sysfs prints it: IPv4 as an
// IPv4-mapped IPv6 address (::ffff:a.b.c.d), eight groups of four hex digits.
static std::string gid_of_address(const std::string& cidr) {
  std::string ip = cidr.substr(0, cidr.find('/'));
  unsigned char b[16] = {};
  if (ip.find(':') == std::string::npos) {
    b[10] = b[11] = 0xff;
    if (::inet_pton(AF_INET, ip.c_str(), b + 12) != 1) return "";
  } else if (::inet_pton(AF_INET6, ip.c_str(), b) != 1) {
    return "";
  }
  char out[40];
  for (int i = 0; i < 8; ++i)
    std::snprintf(out + i * 5, 6, "%02x%02x%s", b[2 * i], b[2 * i + 1], i == 7 ? "" : ":");
  return out;
}

// rdma_cm picks the GID of the address it binds to: each address on the port's netdev
// needs a RoCE v2 entry (the kernel adds them from the netdev's addresses).
static Verdict verify_roce_gids(const std::string& resource, const Observed& o) {
  Verdict v{resource, VerifyState::kOk, "matches the node file"};
  std::string where = resource.substr(5);
  auto slash = where.find('/');
  const RdmaDevice* d = o.device(where.substr(0, slash));
  auto number =
      slash == std::string::npos ? std::nullopt : parse_uint(where.substr(slash + 1), 255);
  const PortState* p = d && number ? d->port(static_cast<int>(*number)) : nullptr;
  if (!p) return v;
  std::set<std::string> ndevs;
  for (const auto& g : p->gids)
    if (!g.ndev.empty()) ndevs.insert(g.ndev);
  int checked = 0;
  for (const auto& name : ndevs) {
    const NetDevice* n = o.netdev(name);
    if (!n) continue;
    for (const auto& a : n->addresses) {
      std::string want = gid_of_address(a);
      bool found = std::any_of(p->gids.begin(), p->gids.end(), [&](const GidEntry& g) {
        return g.type == "RoCE v2" && g.gid == want;
      });
      if (!found)
        return {resource, VerifyState::kFailed,
                "no RoCE v2 GID for " + a + " on " + name +
                    " (the kernel adds one per address of the netdev: is " + name +
                    " up and the address not tentative?)"};
      ++checked;
    }
  }
  v.reason = "default mode set; " + std::to_string(checked) + " address(es) with a RoCE v2 GID";
  return v;
}

// /proc/mounts: the mount point carries an NFS mount with proto=rdma.
static Verdict verify_mount(const std::string& resource, const Fs& fs) {
  const std::string where = resource.substr(15);
  std::istringstream mounts(fs.read("/proc/mounts").value_or(""));
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream f(line);
    std::string what, point, type, options;
    f >> what >> point >> type >> options;
    if (point != where) continue;
    if (type.rfind("nfs", 0) != 0)
      return {resource, VerifyState::kFailed, where + " holds a " + type + " mount, not NFS"};
    if (("," + options + ",").find(",proto=rdma,") == std::string::npos)
      return {resource, VerifyState::kFailed,
              what + " is mounted on " + where + " without proto=rdma (" + options + ")"};
    return {resource, VerifyState::kOk, what + " mounted over RDMA"};
  }
  return {resource, VerifyState::kFailed,
          where + " is not mounted (systemctl status " + mount_unit_name(where) + ")"};
}

static Verdict verify_ipoib(const ResolvedIface& r, const Observed& o) {
  Verdict v{r.resource(), VerifyState::kOk, ""};
  const NetDevice* n = o.netdev(r.name);
  if (!n)
    return {v.resource, r.blocked ? VerifyState::kDrift : VerifyState::kFailed,
            r.blocked ? "waiting for the udev rename"
                      : "configuration in place but the interface does not exist"};
  const RdmaDevice* d = o.device(r.device);
  const PortState* p = d ? d->port(r.port) : nullptr;
  std::string where = r.device + "/" + std::to_string(r.port);
  if (!p || !p->active())
    return {v.resource, VerifyState::kPendingSm,
            "port " + where + " is " + (p ? p->state : "gone") + ", not ACTIVE"};
  std::uint16_t pkey = r.parent.empty() ? n->pkey.value_or(kDefaultPKey) : r.pkey;
  auto entry = p->find_pkey(pkey);
  if (!entry)
    return {v.resource, VerifyState::kPendingSm,
            "P_Key " + format_pkey(pkey) + " not in " + where + "'s table yet"};
  if (!is_full_member(*entry) && r.membership == Membership::kFull)
    return {v.resource, VerifyState::kFailed,
            "only a limited member of " + format_pkey(pkey) + " (entry " + format_pkey(*entry) +
                "); full membership required: fix the partition in the SM"};
  // The guide's warning: a group faster or with a larger MTU than the port refuses its
  // join, so the interface would wait for carrier forever. Checked first, to say why.
  std::string group_text;
  const auto key = std::make_tuple(r.device, r.port, normalize_pkey(pkey));
  if (auto g = o.sa.groups.find(key); g != o.sa.groups.end()) {
    auto pm = o.sa.port_mtu.find({r.device, r.port});
    const int port_mtu = pm == o.sa.port_mtu.end() ? 0 : pm->second;
    const std::string group = format_mgid(ipoib_broadcast_mgid(pkey));
    if (auto why = group_misfit(g->second, p->rate_gbps, port_mtu))
      return {v.resource, VerifyState::kFailed,
              format_error_id(kPartitionMisfit) + ": P_Key " + format_pkey(pkey) +
                  " broadcast group " + group + " has rate " +
                  format_gbps(ib_rate_gbps(g->second.rate_code)) + " and MTU " +
                  std::to_string(g->second.mtu_bytes) + "; port " + where + " runs at " +
                  (p->rate_gbps > 0 ? format_gbps(p->rate_gbps) : "an unknown rate") +
                  " with MTU " + (port_mtu ? std::to_string(port_mtu) : "unknown") + ": " + *why +
                  ", so the SA refuses the join (lower the partition's rate=/mtu= in the SM's "
                  "partitions.conf)"};
    group_text = ", group " + format_gbps(ib_rate_gbps(g->second.rate_code)) + "/" +
                 std::to_string(g->second.mtu_bytes) + " suits the port";
  }
  // Carrier is IPoIB's "joined the broadcast group": without it nothing passes.
  if (n->carrier && !*n->carrier)
    return {v.resource, VerifyState::kPendingSm,
            "no carrier on " + r.name + " (operstate " + n->operstate +
                "): the broadcast group join has not succeeded yet (the SM must create the "
                "group: `ipoib` in partitions.conf)"};
  // The live interface against the plan, whatever wrote its configuration: a manager
  // may have applied something else, or someone changed it by hand.
  if (!r.blocked) {
    if (!n->mode.empty() && n->mode != (r.mode == IpoibMode::kConnected ? "connected" : "datagram"))
      return {v.resource, VerifyState::kDrift,
              "live mode is " + n->mode + ", the plan says " +
                  (r.mode == IpoibMode::kConnected ? "connected" : "datagram")};
    if (!mtu_matches(r, *n))
      return {v.resource, VerifyState::kDrift,
              "live mtu is " + std::to_string(n->mtu) + ", the plan says " +
                  (r.mtu_auto ? "at most " : "") + std::to_string(r.mtu)};
    for (const auto& a : r.addresses)
      if (std::find(n->addresses.begin(), n->addresses.end(), a) == n->addresses.end())
        return {v.resource, VerifyState::kDrift, "address " + a + " is not on the live interface"};
  }
  if (!n->carrier && n->operstate == "down")
    return {v.resource, VerifyState::kDrift, r.name + " is administratively down"};
  v.reason = format_pkey(pkey) + (is_full_member(*entry) ? " full" : " limited") + " member, " +
             n->mode + ", mtu " + std::to_string(n->mtu) + ", " +
             (n->operstate.empty() ? "unknown" : n->operstate) + group_text;
  return v;
}

std::vector<Verdict> verify(const Plan& plan, const Observed& observed, const Fs& fs) {
  std::vector<Verdict> out;
  for (const auto& e : plan.errors)
    out.push_back({"plan", VerifyState::kFailed, to_string(e)});
  std::set<std::string> seen;
  for (const auto& resource : plan.resources) {
    if (!seen.insert(resource).second) continue;
    if (auto p = std::find_if(plan.pending.begin(), plan.pending.end(),
                              [&](const Pending& x) { return x.resource == resource; });
        p != plan.pending.end()) {
      out.push_back({resource, VerifyState::kPending, p->reason});
      continue;
    }
    if (auto p = std::find_if(plan.skipped.begin(), plan.skipped.end(),
                              [&](const Pending& x) { return x.resource == resource; });
        p != plan.skipped.end()) {
      out.push_back({resource, VerifyState::kSkipped, p->reason});
      continue;
    }
    auto action = std::find_if(plan.actions.begin(), plan.actions.end(),
                               [&](const Action& a) { return a.resource == resource; });
    if (action != plan.actions.end()) {
      out.push_back(
          {resource, VerifyState::kDrift, action->describe() + " (" + action->reason + ")"});
      continue;
    }
    auto iface = std::find_if(plan.interfaces.begin(), plan.interfaces.end(),
                              [&](const ResolvedIface& r) { return r.resource() == resource; });
    if (iface != plan.interfaces.end()) {
      out.push_back(verify_ipoib(*iface, observed));
      continue;
    }
    Verdict v{resource, VerifyState::kOk, "matches the node file"};
    if (resource == "nfs_rdma server") {
      auto ports = fs.read("/proc/fs/nfsd/portlist");
      if (!ports) {
        v.reason = "drop-in in place; nfsd not running";
      } else if (ports->find("rdma ") == std::string::npos) {
        v.state = VerifyState::kFailed;
        v.reason = "nfsd is not listening on RDMA (restart nfs-server to read the drop-in)";
      }
    } else if (resource.rfind("nfs_rdma mount ", 0) == 0) {
      v = verify_mount(resource, fs);
    } else if (resource.rfind("roce ", 0) == 0) {
      v = verify_roce_gids(resource, observed);
    } else if (resource.rfind("soft_rdma ", 0) == 0) {
      // A soft device's port follows its netdev's carrier.
      std::string name = resource.substr(10);
      const RdmaDevice* d = observed.device(name);
      const PortState* p = d ? d->port(1) : nullptr;
      if (!p) {
        v.state = VerifyState::kFailed;
        v.reason = "RDMA device " + name + " does not exist";
      } else if (!p->active()) {
        v.state = VerifyState::kFailed;
        v.reason = name + " port 1 is " + p->state + ", not ACTIVE (is " + d->parent + " up?)";
      } else {
        v.reason = name + " on " + d->parent + ", port 1 ACTIVE";
      }
    } else if (resource.rfind("memlock ", 0) == 0 && plan.memlock) {
      // memlock GROUP, or memlock UNIT.service: what runs now, not just the files.
      const std::string what = resource.substr(8);
      v = what == plan.memlock->group
              ? verify_memlock_group(resource, *plan.memlock, fs)
              : verify_memlock_service(resource, what, *plan.memlock, observed, fs);
    }
    out.push_back(v);
  }
  return out;
}

int verify_exit_code(const std::vector<Verdict>& verdicts) {
  bool pending = false;
  for (const auto& v : verdicts) {
    if (v.state == VerifyState::kDrift || v.state == VerifyState::kFailed) return 3;
    pending = pending || v.state == VerifyState::kPendingSm || v.state == VerifyState::kPending;
  }
  return pending ? 2 : 0;
}

}  // namespace ibsm::agent
