#include "agent/render_nmstate.hpp"

#include <sstream>

#include "agent/ipoib_rules.hpp"

namespace ibsm::agent {
namespace {

// nmstate's ipv4/ipv6 block: static addresses, or disabled.
void ip_block(std::ostringstream& os, const ResolvedIface& r, bool v6) {
  os << "    " << (v6 ? "ipv6" : "ipv4") << ":\n";
  bool any = false;
  for (const auto& a : r.addresses)
    any = any || is_ipv6_address(a) == v6;
  if (!any) {
    os << "      enabled: false\n";
    return;
  }
  os << "      enabled: true\n";
  if (!v6) os << "      dhcp: false\n";
  if (v6) os << "      dhcp: false\n      autoconf: false\n";
  os << "      address:\n";
  for (const auto& a : r.addresses) {
    if (is_ipv6_address(a) != v6) continue;
    auto slash = a.find('/');
    os << "        - ip: " << a.substr(0, slash)
       << "\n          prefix-length: " << a.substr(slash + 1) << "\n";
  }
}

}  // namespace

std::string render_nmstate(const Plan& plan, const NodeConfig& config) {
  std::ostringstream os;
  os << "# nmstate desired state rendered by ibsm-agent from the node file (nmstatectl apply).\n";
  if (!config.roce.empty() || !config.soft_rdma.empty() || !config.modules.empty() ||
      config.memlock || config.nfs)
    os << "# Not expressible in nmstate, left to `ibsm-agent apply`: RoCE default mode/TOS, "
          "soft RDMA links, rdma module lists, memlock, NFS over RDMA.\n";
  os << "interfaces:\n";
  if (plan.interfaces.empty()) os << "  []\n";
  for (const ResolvedIface& r : plan.interfaces) {
    os << "  - name: " << r.name << "\n    type: infiniband\n    state: up\n";
    if (!r.mtu_auto) os << "    mtu: " << r.mtu << "\n";
    os << "    infiniband:\n";
    if (!r.parent.empty()) os << "      base-iface: " << r.parent << "\n";
    os << "      mode: " << (r.mode == IpoibMode::kConnected ? "connected" : "datagram") << "\n";
    os << "      pkey: \"" << (r.parent.empty() ? "0xffff" : format_pkey(r.pkey)) << "\"\n";
    ip_block(os, r, false);
    ip_block(os, r, true);
  }
  return os.str();
}

}  // namespace ibsm::agent
