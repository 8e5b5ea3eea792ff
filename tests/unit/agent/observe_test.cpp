#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/netdev_reader.hpp"
#include "agent/port_source.hpp"
#include "host_fixture.hpp"

namespace ibsm::agent {
namespace {

using testing::build_host;
using testing::Tree;

TEST(Observe, SysfsPortSourceReadsStateLidsPKeysAndGids) {
  Tree t;
  build_host(t);
  auto devs = SysfsPortSource(t.fs()).devices();
  ASSERT_TRUE(devs.ok());
  ASSERT_EQ(devs->size(), 3u);
  const RdmaDevice& d = (*devs)[0];
  EXPECT_EQ(d.name, "mlx5_0");
  EXPECT_EQ(d.node_type, "CA");
  EXPECT_EQ(d.node_guid, 0x0002c90300001233u);
  ASSERT_EQ(d.ports.size(), 1u);
  const PortState& p = d.ports[0];
  EXPECT_TRUE(p.active());
  EXPECT_EQ(p.state, "ACTIVE");
  EXPECT_EQ(p.lid, 17u);
  EXPECT_EQ(p.sm_lid, 1u);
  EXPECT_TRUE(p.infiniband());
  EXPECT_EQ(p.guid, 0x0002c90300001234u);
  ASSERT_EQ(p.pkeys.size(), 4u);  // the empty slot is dropped
  EXPECT_EQ(p.find_pkey(0x0002), 0x8002);
  EXPECT_EQ(p.find_pkey(0x8003), 0x0003);  // only a limited entry
  EXPECT_FALSE(p.find_pkey(0x0005).has_value());
  EXPECT_EQ(p.gids.size(), 1u);  // zero GIDs are dropped

  const PortState& roce = (*devs)[2].ports[0];
  EXPECT_FALSE(roce.infiniband());
  ASSERT_EQ(roce.gids.size(), 2u);
  EXPECT_EQ(roce.gids[1].type, "RoCE v2");
  EXPECT_EQ(roce.gids[1].ndev, "eth2");
}

TEST(Observe, NetdevsMapToPortsByTheGuidInTheirAddress) {
  Tree t;
  build_host(t);
  Observed o;
  o.devices = *SysfsPortSource(t.fs()).devices();
  o.netdevs = read_netdevs(t.fs());
  const PortState& p = o.devices[0].ports[0];
  EXPECT_EQ(o.netdevs_on(o.devices[0], p), std::vector<std::string>{"ib0"});
  EXPECT_EQ(o.netdevs_on(o.devices[2], o.devices[2].ports[0]), std::vector<std::string>{"eth2"});
  const NetDevice* ib0 = o.netdev("ib0");
  ASSERT_NE(ib0, nullptr);
  EXPECT_EQ(ib0->mode, "datagram");
  EXPECT_EQ(ib0->pkey, 0xffff);
}

TEST(Observe, DefaultRouteInterfaces) {
  Tree t;
  build_host(t);
  t.file("/proc/net/ipv6_route",
         "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
         "fe800000000000000000000000000001 00000400 00000001 00000000 00000003 ib0\n"
         "fe800000000000000000000000000000 40 00000000000000000000000000000000 00 "
         "00000000000000000000000000000000 00000100 00000001 00000000 00000001 eth1\n");
  EXPECT_EQ(read_default_route_interfaces(t.fs()), (std::set<std::string>{"eth0", "ib0"}));
}

TEST(Observe, MissingTreeYieldsNoDevices) {
  Tree t;
  auto devs = SysfsPortSource(t.fs()).devices();
  ASSERT_TRUE(devs.ok());
  EXPECT_TRUE(devs->empty());
  EXPECT_TRUE(read_netdevs(t.fs()).empty());
}

}  // namespace
}  // namespace ibsm::agent
