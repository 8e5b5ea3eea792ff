#include "host_fixture.hpp"

namespace ibsm::agent::testing {

void add_ib_port(Tree& t, const std::string& dev, int port, const std::string& guid_gid,
                 const std::vector<std::string>& pkeys, const std::string& state) {
  std::string p = "/sys/class/infiniband/" + dev + "/ports/" + std::to_string(port);
  t.file("/sys/class/infiniband/" + dev + "/node_type", "1: CA\n");
  t.file("/sys/class/infiniband/" + dev + "/node_guid", "0002:c903:0000:1233\n");
  t.file(p + "/state", state + "\n");
  t.file(p + "/phys_state", "5: LinkUp\n");
  t.file(p + "/lid", "0x11\n");
  t.file(p + "/sm_lid", "0x1\n");
  t.file(p + "/link_layer", "InfiniBand\n");
  t.file(p + "/gids/0", guid_gid + "\n");
  t.file(p + "/gids/1", "0000:0000:0000:0000:0000:0000:0000:0000\n");
  for (std::size_t i = 0; i < pkeys.size(); ++i)
    t.file(p + "/pkeys/" + std::to_string(i), pkeys[i] + "\n");
  t.file(p + "/pkeys/" + std::to_string(pkeys.size()), "0x0000\n");
}

void add_netdev(Tree& t, const std::string& name, int type, const std::string& address, int mtu,
                const std::string& mode, const std::string& pkey) {
  std::string b = "/sys/class/net/" + name;
  t.file(b + "/type", std::to_string(type) + "\n");
  t.file(b + "/address", address + "\n");
  t.file(b + "/mtu", std::to_string(mtu) + "\n");
  t.file(b + "/operstate", "up\n");
  t.file(b + "/ifalias", "\n");
  if (!mode.empty()) t.file(b + "/mode", mode + "\n");
  if (!pkey.empty()) t.file(b + "/pkey", pkey + "\n");
}

void build_host(Tree& t) {
  add_ib_port(t, "mlx5_0", 1, "fe80:0000:0000:0000:0002:c903:0000:1234",
              {"0xffff", "0x8002", "0x0003", "0x8004"});
  add_ib_port(t, "mlx5_1", 1, "fe80:0000:0000:0000:0c42:a103:0000:5678", {"0xffff"});
  add_netdev(t, "ib0", 32, kIb0Address, 2044, "datagram", "0xffff");
  add_netdev(t, "ib1", 32, "00:00:10:87:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:00:56:78", 2044,
             "datagram", "0xffff");

  std::string r = "/sys/class/infiniband/mlx5_2/ports/1";
  t.file("/sys/class/infiniband/mlx5_2/node_type", "1: CA\n");
  t.file(r + "/state", "4: ACTIVE\n");
  t.file(r + "/phys_state", "5: LinkUp\n");
  t.file(r + "/lid", "0x0\n");
  t.file(r + "/sm_lid", "0x0\n");
  t.file(r + "/link_layer", "Ethernet\n");
  t.file(r + "/pkeys/0", "0xffff\n");
  t.file(r + "/gids/0", "fe80:0000:0000:0000:0a0b:0cff:fe0d:0e0f\n");
  t.file(r + "/gids/1", "fe80:0000:0000:0000:0a0b:0cff:fe0d:0e0f\n");
  t.file(r + "/gid_attrs/types/0", "IB/RoCE v1\n");
  t.file(r + "/gid_attrs/types/1", "RoCE v2\n");
  t.file(r + "/gid_attrs/ndevs/0", "eth2\n");
  t.file(r + "/gid_attrs/ndevs/1", "eth2\n");

  add_netdev(t, "eth0", 1, "52:54:00:00:00:01", 1500);
  add_netdev(t, "eth1", 1, "52:54:00:00:00:02", 1500);
  add_netdev(t, "eth2", 1, "0a:0b:0c:0d:0e:0f", 1500);
  t.file("/proc/net/route",
         "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
         "eth0\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
         "eth0\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n");

  for (auto m : {"ib_core", "ib_ipoib", "ib_umad", "rdma_cm", "ib_uverbs"})
    t.dir(std::string("/sys/module/") + m);
  t.file("/proc/sys/kernel/osrelease", "6.1.0-test\n");
  t.file(
      "/lib/modules/6.1.0-test/modules.dep",
      "kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz: kernel/drivers/infiniband/core/ib_core.ko\n"
      "kernel/drivers/infiniband/sw/siw/siw.ko.xz:\n"
      "kernel/net/sunrpc/xprtrdma/rpcrdma.ko.xz:\n"
      "kernel/drivers/infiniband/core/rdma_ucm.ko.xz:\n");
  t.dir("/sys/kernel/config/rdma_cm");
  t.file("/etc/rdma/modules/rdma.conf", "# Load RDMA modules\nib_uverbs\n# rds_rdma\n");
}

}  // namespace ibsm::agent::testing
