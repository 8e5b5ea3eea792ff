#include "agent/netdev_reader.hpp"
#include "agent/input_grammar.hpp"

#include <cstdlib>
#include <sstream>

namespace ibsm::agent {

std::vector<NetDevice> read_netdevs(const Fs& fs) {
  std::vector<NetDevice> out;
  for (const auto& name : fs.list("/sys/class/net")) {
    std::string base = "/sys/class/net/" + name;
    if (!fs.is_dir(base)) continue;
    NetDevice n;
    n.name = name;
    n.type = static_cast<int>(
        parse_sysfs_uint(fs.read(base + "/type").value_or(""), 0xffff).value_or(0));
    n.address = trim(fs.read(base + "/address").value_or(""));
    n.mtu = static_cast<int>(
        parse_sysfs_uint(fs.read(base + "/mtu").value_or(""), INT32_MAX).value_or(0));
    n.operstate = trim(fs.read(base + "/operstate").value_or(""));
    n.ifalias = trim(fs.read(base + "/ifalias").value_or(""));
    if (auto c = fs.read(base + "/carrier"); c && !trim(*c).empty()) n.carrier = trim(*c) == "1";
    if (n.ipoib()) {
      n.mode = trim(fs.read(base + "/mode").value_or(""));
      if (auto pk = fs.read(base + "/pkey"))
        if (auto v = parse_sysfs_uint(*pk, 0xffff, 16)) n.pkey = static_cast<std::uint16_t>(*v);
      n.parent = trim(fs.read(base + "/parent").value_or(""));
    }
    out.push_back(std::move(n));
  }
  return out;
}

std::set<std::string> read_default_route_interfaces(const Fs& fs) {
  std::set<std::string> out;
  // /proc/net/route: "Iface Destination Gateway Flags ..." with hex fields; 00000000 = default.
  std::istringstream v4(fs.read("/proc/net/route").value_or(""));
  std::string line;
  std::getline(v4, line);  // header
  while (std::getline(v4, line)) {
    std::istringstream f(line);
    std::string iface, dest, gw, flags, refcnt, use, metric, mask;
    f >> iface >> dest >> gw >> flags >> refcnt >> use >> metric >> mask;
    if (dest == "00000000" && mask == "00000000" && !iface.empty()) out.insert(iface);
  }
  // /proc/net/ipv6_route: dest, dest_len, src, src_len, next hop, metric, refcnt, use, flags,
  // iface.
  std::istringstream v6(fs.read("/proc/net/ipv6_route").value_or(""));
  while (std::getline(v6, line)) {
    std::istringstream f(line);
    std::string dest, dlen, src, slen, hop, metric, refcnt, use, flags, iface;
    f >> dest >> dlen >> src >> slen >> hop >> metric >> refcnt >> use >> flags >> iface;
    if (dest.find_first_not_of('0') == std::string::npos && dlen == "00" && !iface.empty() &&
        iface != "lo" && hop.find_first_not_of('0') != std::string::npos)
      out.insert(iface);
  }
  return out;
}

}  // namespace ibsm::agent
