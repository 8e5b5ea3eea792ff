#include "agent/tree_kernel.hpp"

#include <sstream>

#include "agent/errors.hpp"
#include "agent/ipoib_rules.hpp"

namespace ibsm::agent {

static std::string net(const std::string& iface) {
  return "/sys/class/net/" + iface;
}

Status TreeKernel::need_netdev(const std::string& iface) const {
  if (fs_.is_dir(net(iface))) return {};
  return fail(kCommandFailed, "Cannot find device \"" + iface + "\"");
}

Status TreeKernel::create_ipoib_child(const std::string& parent, const std::string& name,
                                      std::uint16_t pkey, const std::string& mode) {
  if (auto s = need_netdev(parent); !s) return s;
  if (fs_.exists(net(name))) return fail(kCommandFailed, "RTNETLINK answers: File exists");
  std::string base = net(name);
  auto attr = [&](const std::string& f, const std::string& v) {
    return fs_.write_attribute(base + "/" + f, v + "\n");
  };
  if (auto s = fs_.make_dir(base); !s) return s;
  for (const auto& [f, v] : std::vector<std::pair<std::string, std::string>>{
           {"type", "32"},
           {"address", trim(fs_.read(net(parent) + "/address").value_or(""))},
           {"mtu", mode == "connected" ? "65520" : "2044"},
           {"operstate", "down"},
           {"ifalias", ""},
           {"mode", mode},
           {"pkey", format_pkey(normalize_pkey(pkey))},
           {"parent", parent}})
    if (auto s = attr(f, v); !s) return s;
  return {};
}

Status TreeKernel::set_ipoib_mode(const std::string& iface, const std::string& mode) {
  if (auto s = need_netdev(iface); !s) return s;
  // ipoib_set_mode: connected raises the MTU to 65520, datagram clamps it to the UD MTU.
  if (auto s = fs_.write_attribute(net(iface) + "/mtu", mode == "connected" ? "65520\n" : "2044\n");
      !s)
    return s;
  return fs_.write_attribute(net(iface) + "/mode", mode + "\n");
}

Status TreeKernel::set_mtu(const std::string& iface, int mtu) {
  if (auto s = need_netdev(iface); !s) return s;
  return fs_.write_attribute(net(iface) + "/mtu", std::to_string(mtu) + "\n");
}

Status TreeKernel::set_alias(const std::string& iface, const std::string& alias) {
  if (auto s = need_netdev(iface); !s) return s;
  return fs_.write_attribute(net(iface) + "/ifalias", alias + "\n");
}

Status TreeKernel::set_up(const std::string& iface) {
  if (auto s = need_netdev(iface); !s) return s;
  // A tree has no multicast join: carrier comes on with the link (verify still checks
  // the P_Key against the port's table, which the SM programs).
  if (auto s = fs_.write_attribute(net(iface) + "/carrier", "1\n"); !s) return s;
  return fs_.write_attribute(net(iface) + "/operstate", "up\n");
}

Status TreeKernel::delete_link(const std::string& iface) {
  if (auto s = need_netdev(iface); !s) return s;
  for (const auto& f : fs_.list(net(iface)))
    if (auto s = fs_.remove(net(iface) + "/" + f); !s) return s;
  return fs_.remove(net(iface));
}

std::vector<std::string> TreeKernel::addresses(const std::string& iface) const {
  std::vector<std::string> out;
  std::istringstream in(fs_.read(net(iface) + "/ibsm-tree-addresses").value_or(""));
  for (std::string a; in >> a;)
    out.push_back(a);
  return out;
}

Status TreeKernel::add_address(const std::string& iface, const std::string& cidr) {
  if (auto s = need_netdev(iface); !s) return s;
  std::string all = fs_.read(net(iface) + "/ibsm-tree-addresses").value_or("") + cidr + "\n";
  return fs_.write_attribute(net(iface) + "/ibsm-tree-addresses", all);
}

Status TreeKernel::add_rdma_link(const std::string& name, const std::string& type,
                                 const std::string& netdev) {
  if (auto s = need_netdev(netdev); !s) return s;
  std::string base = "/sys/class/infiniband/" + name;
  if (fs_.exists(base)) return fail(kCommandFailed, "rdma: device " + name + " exists");
  // siw registers as an iWARP RNIC, rxe as a CA.
  std::string node_type = type == "siw" ? "4: RNIC" : "1: CA";
  for (const auto& [f, v] :
       std::vector<std::pair<std::string, std::string>>{{"node_type", node_type},
                                                        {"parent", netdev},
                                                        {"ports/1/state", "4: ACTIVE"},
                                                        {"ports/1/phys_state", "5: LinkUp"},
                                                        {"ports/1/link_layer", "Ethernet"}}) {
    if (auto s = fs_.make_dir((base + "/" + f).substr(0, (base + "/" + f).rfind('/'))); !s)
      return s;
    if (auto s = fs_.write_attribute(base + "/" + f, v + "\n"); !s) return s;
  }
  return {};
}

Status TreeKernel::load_module(const std::string& module) {
  // xprtrdma and svcrdma are aliases of rpcrdma (net/sunrpc/xprtrdma/module.c).
  std::string m = (module == "xprtrdma" || module == "svcrdma") ? "rpcrdma" : module;
  return fs_.make_dir("/sys/module/" + m);
}

Status TreeKernel::configfs_mkdir(const std::string& path) {
  if (auto s = fs_.make_dir(path); !s) return s;
  // cma_configfs: mkdir rdma_cm/<dev> makes ports/<n>/ with the current defaults.
  std::string dev = path.substr(path.rfind('/') + 1);
  for (const auto& port : fs_.list("/sys/class/infiniband/" + dev + "/ports")) {
    std::string p = path + "/ports/" + port;
    if (auto s = fs_.make_dir(p); !s) return s;
    if (auto s = fs_.write_attribute(p + "/default_roce_mode", "IB/RoCE v1\n"); !s) return s;
    if (auto s = fs_.write_attribute(p + "/default_roce_tos", "0\n"); !s) return s;
  }
  return {};
}

Status TreeKernel::run(const std::vector<std::string>& argv) {
  commands_.push_back(argv);
  return {};
}

}  // namespace ibsm::agent
