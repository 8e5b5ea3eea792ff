#include "agent/partition_fit.hpp"

#include <cstdio>
#include <set>

#include "agent/errors.hpp"
#include "agent/ipoib_rules.hpp"

namespace ibsm::agent {

std::string format_gbps(double gbps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g Gb/s", gbps);
  return buf;
}

std::optional<std::string> group_misfit(const BroadcastGroup& group, double port_gbps,
                                        int port_mtu) {
  const double group_gbps = ib_rate_gbps(group.rate_code);
  std::string why;
  if (port_gbps > 0 && group_gbps > port_gbps)
    why = "rate " + format_gbps(group_gbps) + " above the port's " + format_gbps(port_gbps);
  if (port_mtu > 0 && group.mtu_bytes > port_mtu)
    why += (why.empty() ? "" : " and ") + std::string("MTU ") + std::to_string(group.mtu_bytes) +
           " above the port's " + std::to_string(port_mtu);
  if (why.empty()) return std::nullopt;
  return why;
}

void read_group_facts(const Plan& plan, Observed& observed, GroupMtuSource& sa) {
  std::set<std::pair<std::string, int>> silent;
  for (const ResolvedIface& r : plan.interfaces) {
    const RdmaDevice* d = observed.device(r.device);
    const PortState* p = d ? d->port(r.port) : nullptr;
    if (!p || !p->infiniband() || !p->active() || p->sm_lid == 0) continue;
    const auto where = std::make_pair(r.device, r.port);
    if (silent.count(where)) continue;
    std::uint16_t pkey = r.pkey;
    if (r.parent.empty()) {
      const NetDevice* n = observed.netdev(r.name);
      pkey = n && n->pkey ? *n->pkey : kDefaultPKey;
    }
    pkey = normalize_pkey(pkey);
    const auto key = std::make_tuple(r.device, r.port, pkey);
    if (observed.sa.groups.count(key)) continue;
    auto group = sa.broadcast_group(r.device, r.port, pkey);
    if (!group) {
      // A silent SA is not asked again for this port; a refused group is just left out.
      if (group.error().id != kGroupMtuRejected) silent.insert(where);
      continue;
    }
    observed.sa.groups[key] = *group;
    if (!observed.sa.port_mtu.count(where))
      if (auto mtu = sa.port_mtu(r.device, r.port, p->lid)) observed.sa.port_mtu[where] = *mtu;
  }
}

}  // namespace ibsm::agent
