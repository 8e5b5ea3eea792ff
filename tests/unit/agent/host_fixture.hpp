// A small but complete fake host, built as a tree: what the unit tests plan against.
//
//   mlx5_0 port 1  InfiniBand, ACTIVE, LID 17, SM LID 1, GUID 0x0002c90300001234
//                  P_Keys: [0] 0xffff  [1] 0x8002 (full)  [2] 0x0003 (limited)  [3] 0x8004 (full)
//                  netdev ib0 (connected-mode capable, datagram, MTU 2044)
//   mlx5_1 port 1  InfiniBand, ACTIVE, GUID 0x0c42a10300005678, enhanced IPoIB: ib1 lacks the CM
//   flag mlx5_2 port 1  Ethernet (RoCE) on eth2, GIDs of both RoCE types eth0           carries the
//   default route;  eth1: a plain Ethernet netdev for rxe/siw kernel:        ib_ipoib, ib_umad,
//   rdma_cm loaded; rdma_rxe, siw installed; configfs mounted
#pragma once

#include "tree.hpp"

namespace ibsm::agent::testing {

inline constexpr const char* kIb0Address =
    "80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:12:34";

void add_ib_port(Tree& t, const std::string& dev, int port, const std::string& guid_gid,
                 const std::vector<std::string>& pkeys, const std::string& state = "4: ACTIVE");
void add_netdev(Tree& t, const std::string& name, int type, const std::string& address, int mtu,
                const std::string& mode = "", const std::string& pkey = "");
void build_host(Tree& t);

}  // namespace ibsm::agent::testing
