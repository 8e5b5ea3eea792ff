#include "agent/renderers.hpp"

#include <sstream>

#include "agent/ipoib_rules.hpp"
#include "agent/owned_file.hpp"

namespace ibsm::agent {
namespace {

// An [ipv4]/[ipv6] section: manual with addresses, otherwise disabled (the agent
// configures static IPoIB addressing only).
void ip_section(std::ostringstream& os, const ResolvedIface& r, bool v6) {
  os << "\n[" << (v6 ? "ipv6" : "ipv4") << "]\n";
  int n = 0;
  for (const auto& a : r.addresses)
    if (is_ipv6_address(a) == v6) os << "address" << ++n << "=" << a << "\n";
  os << "method=" << (n ? "manual" : "disabled") << "\n";
}

}  // namespace

std::string nm_connection_id(const ResolvedIface& r) {
  return "ibsm-" + r.name;
}

std::string nm_keyfile_path(const ResolvedIface& r) {
  return "/etc/NetworkManager/system-connections/" + nm_connection_id(r) + ".nmconnection";
}

std::string render_nm_keyfile(const ResolvedIface& r) {
  std::ostringstream os;
  os << "[connection]\n"
     << "id=" << nm_connection_id(r) << "\n"
     << "type=infiniband\n"
     << "interface-name=" << r.name << "\n"
     << "\n[infiniband]\n";
  if (!r.mtu_auto) os << "mtu=" << r.mtu << "\n";  // no key: NetworkManager leaves it to the kernel
  // NM writes p-key in decimal; the normalised key makes NM's <parent>.%04x name match ours.
  if (!r.parent.empty())
    os << "p-key=" << r.pkey << "\n"
       << "parent=" << r.parent << "\n";
  os << "transport-mode=" << ipoib_mode_name(r.mode) << "\n";
  ip_section(os, r, false);
  ip_section(os, r, true);
  os << "\n[user]\n" << kNmMarker << "\n";
  return os.str();
}

std::string networkd_path(const std::string& iface, const std::string& ext) {
  return "/etc/systemd/network/60-ibsm-" + iface + "." + ext;
}

std::string render_networkd_netdev(const ResolvedIface& child) {
  std::ostringstream os;
  os << file_header() << "[NetDev]\n"
     << "Name=" << child.name << "\n"
     << "Kind=ipoib\n"
     << "\n[IPoIB]\n"
     << "PartitionKey=" << format_pkey(child.pkey) << "\n"
     << "Mode=" << ipoib_mode_name(child.mode) << "\n";
  return os.str();
}

std::string render_networkd_network(const ResolvedIface& r,
                                    const std::vector<std::string>& children) {
  std::ostringstream os;
  os << file_header() << "[Match]\n"
     << "Name=" << r.name << "\n";
  if (!r.mtu_auto) os << "\n[Link]\nMTUBytes=" << r.mtu << "\n";
  os << "\n[Network]\n";
  for (const auto& c : children)
    os << "IPoIB=" << c << "\n";
  for (const auto& a : r.addresses)
    os << "Address=" << a << "\n";
  if (r.addresses.empty()) os << "LinkLocalAddressing=no\n";
  // A child stays without carrier until the SM programs its P_Key; configure it anyway.
  os << "ConfigureWithoutCarrier=yes\n";
  return os.str();
}

std::string ifupdown_path(const std::string& iface) {
  std::string name = iface;
  for (auto& c : name)
    if (c == '.') c = '-';
  return "/etc/network/interfaces.d/ibsm-" + name;
}

std::string render_ifupdown_stanza(const ResolvedIface& r) {
  std::ostringstream os;
  os << file_header() << "auto " << r.name << "\niface " << r.name << " inet manual\n";
  const std::string dev = " dev " + r.name;
  if (!r.parent.empty())
    os << "    pre-up ip link add link " << r.parent << " name " << r.name << " type ipoib pkey "
       << format_pkey(r.pkey) << " mode " << ipoib_mode_name(r.mode) << "\n";
  else
    os << "    pre-up ip link set" << dev << " type ipoib mode " << ipoib_mode_name(r.mode) << "\n";
  if (!r.mtu_auto) os << "    pre-up ip link set" << dev << " mtu " << r.mtu << "\n";
  os << "    up ip link set" << dev << " up\n";
  for (const auto& a : r.addresses)
    os << "    up ip addr replace " << a << dev << "\n";
  if (!r.parent.empty())
    os << "    post-down ip link del " << r.name << "\n";
  else
    for (const auto& a : r.addresses)
      os << "    down ip addr del " << a << dev << "\n";
  return os.str();
}

}  // namespace ibsm::agent
