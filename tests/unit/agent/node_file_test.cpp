#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "agent/errors.hpp"
#include "agent/node_file.hpp"

namespace ibsm::agent {
namespace {

using ::testing::HasSubstr;

TEST(NodeFile, ParsesAFullExample) {
  auto r = parse_node_file(R"(
[agent]
backend = "networkd"
protected_interfaces = ["ib0"]

[[ipoib]]
port = { guid = 0x0002c90300001234 }
name = "ib0"
mode = "connected"
mtu = 65520
addresses = ["10.0.0.5/16"]
broadcast_mtu = 4096
membership = "any"
pkeys = [0x0002]
persistent_name = true

[[ipoib.child]]
pkey = 0x8003
mode = "datagram"
mtu = "auto"
addresses = ["10.3.0.5/16"]
membership = "full"

[[ipoib]]
port = { device = "mlx5_1", port = 2 }
pkeys = "auto"

[[roce]]
device = "mlx5_2"
default_mode = "v1"
tos = 106

[[soft_rdma]]
name = "siw0"
type = "siw"
netdev = "eth1"

[modules]
rdma = ["ib_uverbs", "rdma_ucm"]

[memlock]
group = "hpc"
soft = 65536

[nfs_rdma]
server = true
port = 20050
)",
                           "node.toml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const NodeConfig& c = *r;
  EXPECT_EQ(c.backend, Backend::kNetworkd);
  EXPECT_EQ(c.protected_interfaces, std::vector<std::string>{"ib0"});
  ASSERT_EQ(c.ipoib.size(), 2u);
  EXPECT_EQ(c.ipoib[0].port.guid, 0x0002c90300001234u);
  EXPECT_EQ(c.ipoib[0].mode, IpoibMode::kConnected);
  EXPECT_EQ(c.ipoib[0].mtu.bytes, 65520);
  EXPECT_EQ(c.ipoib[0].broadcast_mtu.bytes, 4096);
  EXPECT_FALSE(c.ipoib[1].broadcast_mtu.bytes.has_value());  // absent: "auto", asked from the SA
  EXPECT_EQ(c.ipoib[0].membership, Membership::kAny);
  EXPECT_TRUE(c.ipoib[0].persistent_name);
  ASSERT_EQ(c.ipoib[0].children.size(), 2u);
  EXPECT_EQ(c.ipoib[0].children[0].pkey, 0x0002);
  EXPECT_EQ(c.ipoib[0].children[1].pkey, 0x8003);
  EXPECT_EQ(c.ipoib[0].children[1].mode, IpoibMode::kDatagram);
  EXPECT_FALSE(c.ipoib[0].children[1].mtu.bytes.has_value());
  EXPECT_EQ(c.ipoib[0].children[1].membership, Membership::kFull);
  EXPECT_EQ(c.ipoib[1].port.device, "mlx5_1");
  EXPECT_EQ(c.ipoib[1].port.port, 2);
  EXPECT_TRUE(c.ipoib[1].auto_pkeys);
  ASSERT_EQ(c.roce.size(), 1u);
  EXPECT_EQ(c.roce[0].mode, RoceMode::kV1);
  EXPECT_EQ(c.roce[0].tos, 106);
  ASSERT_EQ(c.soft_rdma.size(), 1u);
  EXPECT_EQ(c.soft_rdma[0].type, SoftRdmaType::kSiw);
  ASSERT_EQ(c.modules.size(), 1u);
  EXPECT_EQ(c.modules[0].list, "rdma");
  ASSERT_TRUE(c.memlock.has_value());
  EXPECT_EQ(c.memlock->group, "hpc");
  EXPECT_EQ(c.memlock->soft, "65536");
  EXPECT_EQ(c.memlock->hard, "unlimited");
  ASSERT_TRUE(c.nfs.has_value());
  EXPECT_TRUE(c.nfs->server);
  EXPECT_EQ(c.nfs->port, 20050);
}

TEST(NodeFile, GuidMayBeAHexStringAboveInt64) {
  auto r = parse_node_file("[[ipoib]]\nport = { guid = \"0xf452140300a1b2c3\" }\n", "n.toml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->ipoib[0].port.guid, 0xf452140300a1b2c3u);
}

TEST(NodeFile, UnknownKeyNamesFileLineColumnAndKey) {
  auto r = parse_node_file("[[ipoib]]\nport = { device = \"mlx5_0\" }\nmdoe = \"connected\"\n",
                           "/etc/ibsm/node.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kNodeFileUnknownKey);
  EXPECT_THAT(r.error().message, HasSubstr("/etc/ibsm/node.toml:3:1: ipoib[0].mdoe: unknown key"));
}

TEST(NodeFile, UnknownKeyInsideInlineTable) {
  auto r = parse_node_file("[[ipoib]]\nport = { dev = \"mlx5_0\" }\n", "n.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kNodeFileUnknownKey);
  EXPECT_THAT(r.error().message, HasSubstr("n.toml:2:10: ipoib[0].port.dev"));
}

TEST(NodeFile, SyntaxErrorNamesPosition) {
  auto r = parse_node_file("[memlock]\ngroup = \n", "n.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kNodeFileSyntax);
  EXPECT_THAT(r.error().message, HasSubstr("n.toml:2:"));
}

TEST(NodeFile, BadEnumListsChoices) {
  auto r = parse_node_file("[[ipoib]]\nport = { device = \"mlx5_0\" }\nmode = \"cm\"\n", "n.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kNodeFileBadValue);
  EXPECT_THAT(r.error().message,
              HasSubstr("n.toml:3:8: ipoib[0].mode: expected one of \"datagram\", \"connected\""));
}

TEST(NodeFile, PortNeedsExactlyOneIdentity) {
  auto r = parse_node_file("[[ipoib]]\nport = { guid = 1, device = \"mlx5_0\" }\n", "n.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("ipoib[0].port: give either guid or device"));
}

TEST(NodeFile, PKeysMustBeAutoOrList) {
  auto r = parse_node_file("[[ipoib]]\nport = { device = \"d\" }\npkeys = \"all\"\n", "n.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("ipoib[0].pkeys: expected \"auto\""));
}

TEST(NodeFile, BroadcastMtuMustBeAnIbMtu) {
  auto r =
      parse_node_file("[[ipoib]]\nport = { device = \"d\" }\nbroadcast_mtu = 3000\n", "n.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("or an IB MTU: 256, 512, 1024, 2048 or 4096"));
}

TEST(NodeFile, BroadcastMtuAutoAsksTheSa) {
  auto r =
      parse_node_file("[[ipoib]]\nport = { device = \"d\" }\nbroadcast_mtu = \"auto\"\n", "n.toml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->ipoib[0].broadcast_mtu.bytes.has_value());
  EXPECT_EQ(r->ipoib[0].broadcast_mtu.for_pkey(0xffff), 2048);  // nothing learnt yet
}

TEST(NodeFile, BroadcastMtuBadValuesNameKeyAndLine) {
  for (const char* bad : {"\"big\"", "3000", "8192", "128", "true", "4096.0"}) {
    auto r = parse_node_file(
        std::string("[[ipoib]]\nport = { device = \"d\" }\nbroadcast_mtu = ") + bad + "\n",
        "n.toml");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().id, kNodeFileBadValue) << bad;
    EXPECT_THAT(r.error().message, HasSubstr("n.toml:3:")) << bad;
    EXPECT_THAT(r.error().message, HasSubstr("ipoib[0].broadcast_mtu: ")) << bad;
    EXPECT_THAT(r.error().message, HasSubstr("expected \"auto\" or an IB MTU")) << bad;
  }
}

TEST(NodeFile, MissingFileIsUnreadable) {
  auto r = load_node_file("/nonexistent/ibsm-node.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kNodeFileUnreadable);
}

}  // namespace
}  // namespace ibsm::agent

namespace ibsm::agent {
namespace {

// The full example in docs/agent.md must stay a valid node file.
TEST(NodeFile, DocumentedExampleParses) {
  std::ifstream in(std::string(IBSM_SOURCE_DIR) + "/docs/agent.md");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  auto start = doc.find("```toml\n");
  ASSERT_NE(start, std::string::npos);
  start += 8;
  auto end = doc.find("```", start);
  auto r = parse_node_file(doc.substr(start, end - start), "docs/agent.md");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->ipoib.size(), 1u);
  EXPECT_TRUE(r->ipoib[0].auto_pkeys);
  EXPECT_EQ(r->ipoib[0].children.size(), 1u);
  EXPECT_EQ(r->roce.size(), 1u);
  EXPECT_EQ(r->soft_rdma.size(), 1u);
  EXPECT_EQ(r->modules.size(), 2u);
  EXPECT_TRUE(r->memlock && r->nfs);
}

}  // namespace
}  // namespace ibsm::agent
