// NetworkManager and systemd-networkd rendering: golden files, the managers'
// own parsers where they are installed, idempotence and ownership.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "agent/errors.hpp"
#include "agent/network_backend.hpp"
#include "agent/renderers.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent::backend_test {
namespace {

using testing::described;
using ::testing::ElementsAre;
using testing::error_ids;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::PlanRun;

const char* const kNode = R"([[ipoib]]
port = { device = "mlx5_0" }
addresses = ["10.0.0.5/16"]
[[ipoib.child]]
pkey = 0x0002
mode = "connected"
mtu = 65520
addresses = ["10.2.0.5/16", "fd00:2::5/64"]
)";

ResolvedIface child() {
  ResolvedIface r;
  r.name = "ib0.8002";
  r.parent = "ib0";
  r.pkey = 0x8002;
  r.mode = IpoibMode::kConnected;
  r.mtu = 65520;
  r.addresses = {"10.2.0.5/16", "fd00:2::5/64"};
  return r;
}

TEST(NetworkBackend, OnePerManagerAutoFallsBackToDirect) {
  EXPECT_EQ(make_network_backend(Backend::kNetworkManager)->name(), "networkmanager");
  EXPECT_EQ(make_network_backend(Backend::kNetworkd)->name(), "networkd");
  EXPECT_EQ(make_network_backend(Backend::kDirect)->name(), "direct");
  EXPECT_EQ(make_network_backend(Backend::kAuto)->name(), "direct");
}

TEST(NetworkManager, KeyfileGolden) {
  EXPECT_EQ(render_nm_keyfile(child()),
            "[connection]\n"
            "id=ibsm-ib0.8002\n"
            "type=infiniband\n"
            "interface-name=ib0.8002\n"
            "\n[infiniband]\n"
            "mtu=65520\n"
            "p-key=32770\n"
            "parent=ib0\n"
            "transport-mode=connected\n"
            "\n[ipv4]\n"
            "address1=10.2.0.5/16\n"
            "method=manual\n"
            "\n[ipv6]\n"
            "address1=fd00:2::5/64\n"
            "method=manual\n"
            "\n[user]\n"
            "org.ibsm.owner=ibsm-agent\n");
}

// nmcli --offline (NetworkManager >= 1.40) reads a keyfile on stdin, validates it
// and prints it back; its exit status is the oracle.
int nmcli_offline(const std::string& keyfile, std::string& output) {
  testing::Tree t;
  t.file("/k.nmconnection", keyfile);
  int rc = std::system(("nmcli --offline connection modify connection.autoconnect yes < " +
                        t.root() + "/k.nmconnection > " + t.root() + "/out 2>&1")
                           .c_str());
  output = t.read("/out");
  return rc;
}

TEST(NetworkManager, NmcliOfflineAcceptsTheKeyfiles) {
  if (std::system("nmcli --offline --version >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "nmcli --offline not available (apt install network-manager)";
  ResolvedIface parent;
  parent.name = "ib0";
  parent.mtu = 2044;
  ResolvedIface bare = child();
  bare.addresses.clear();
  bare.mtu_auto = true;
  std::string out;
  for (const auto& r : {child(), bare, parent}) {
    EXPECT_EQ(nmcli_offline(render_nm_keyfile(r), out), 0) << out;
    EXPECT_THAT(out, HasSubstr("interface-name=" + r.name));
  }
  // The oracle can fail: NetworkManager insists on <parent>.%04x for a child's name.
  ResolvedIface renamed = child();
  renamed.name = "ib0.2";
  EXPECT_NE(nmcli_offline(render_nm_keyfile(renamed), out), 0);
  EXPECT_THAT(out, HasSubstr("must be 'ib0.8002'"));
}

TEST(NetworkManager, ApplyTwiceThenNothingToDo) {
  PlanRun r(kNode);
  r.replan(Backend::kNetworkManager);
  ASSERT_THAT(r.plan.errors, IsEmpty());
  EXPECT_THAT(
      described(r.plan),
      ElementsAre(
          "write /etc/NetworkManager/system-connections/ibsm-ib0.nmconnection (mode 0600)",
          "run nmcli connection load /etc/NetworkManager/system-connections/ibsm-ib0.nmconnection",
          "run nmcli connection up id ibsm-ib0",
          "write /etc/NetworkManager/system-connections/ibsm-ib0.8002.nmconnection (mode 0600)",
          "run nmcli connection load "
          "/etc/NetworkManager/system-connections/ibsm-ib0.8002.nmconnection",
          "run nmcli connection up id ibsm-ib0.8002"));
  ASSERT_TRUE(r.apply());
  EXPECT_EQ(r.tree.fs().mode("/etc/NetworkManager/system-connections/ibsm-ib0.nmconnection"),
            0600u);
  // NetworkManager would now create ib0.8002; the tree plays that part.
  testing::add_netdev(r.tree, "ib0.8002", 32, testing::kIb0Address, 65520, "connected", "0x8002");
  r.tree.file("/sys/class/net/ib0.8002/parent", "ib0\n");
  r.replan(Backend::kNetworkManager);
  EXPECT_THAT(described(r.plan), IsEmpty());
}

TEST(NetworkManager, ForeignProfileIsLeftAlone) {
  PlanRun r(kNode);
  r.tree.file("/etc/NetworkManager/system-connections/ibsm-ib0.nmconnection",
              "[connection]\nid=mine\n");
  r.replan(Backend::kNetworkManager);
  EXPECT_THAT(error_ids(r.plan), ElementsAre(kForeignObject.code));
  EXPECT_FALSE(r.apply());
  EXPECT_EQ(r.tree.read("/etc/NetworkManager/system-connections/ibsm-ib0.nmconnection"),
            "[connection]\nid=mine\n");
}

TEST(NetworkManager, ForeignProfileForTheSameInterfaceIsReported) {
  PlanRun r(kNode);
  r.tree.file("/etc/NetworkManager/system-connections/ib0.nmconnection",
              "[connection]\nid=ib0\ntype=infiniband\ninterface-name=ib0\n");
  r.replan(Backend::kNetworkManager);
  EXPECT_THAT(r.plan.errors, IsEmpty());
  EXPECT_THAT(r.plan.notes,
              ElementsAre(HasSubstr("ib0.nmconnection (not ibsm-agent's) also configures ib0")));
  ASSERT_TRUE(r.apply());
  EXPECT_EQ(r.tree.read("/etc/NetworkManager/system-connections/ib0.nmconnection"),
            "[connection]\nid=ib0\ntype=infiniband\ninterface-name=ib0\n");
}

TEST(NetworkManager, CustomChildNameIsAPlanError) {
  PlanRun r(
      "[[ipoib]]\nport = { device = \"mlx5_0\" }\n[[ipoib.child]]\npkey = 2\nname = \"storage\"\n");
  r.replan(Backend::kNetworkManager);
  EXPECT_THAT(error_ids(r.plan), ElementsAre(kNodeFileBadValue.code));
}

TEST(NetworkManager, OwnedProfileNoLongerWantedIsPrunedOnlyWithPrune) {
  PlanRun r(kNode);
  r.replan(Backend::kNetworkManager);
  ASSERT_TRUE(r.apply());
  r.config.ipoib[0].children.clear();
  r.replan(Backend::kNetworkManager);
  EXPECT_THAT(described(r.plan), IsEmpty());
  EXPECT_THAT(
      r.plan.notes,
      ElementsAre(HasSubstr("ibsm-ib0.8002.nmconnection is owned by ibsm-agent but no longer")));
  r.replan(Backend::kNetworkManager, /*prune=*/true);
  // The live connection goes with its profile (nmcli deletes both).
  EXPECT_THAT(
      described(r.plan),
      ElementsAre("run nmcli connection delete id ibsm-ib0.8002",
                  "remove /etc/NetworkManager/system-connections/ibsm-ib0.8002.nmconnection"));
}

TEST(Networkd, FilesGolden) {
  EXPECT_EQ(
      render_networkd_netdev(child()),
      "# Managed by ibsm-agent from the node file; local edits are overwritten.\n"
      "[NetDev]\nName=ib0.8002\nKind=ipoib\n\n[IPoIB]\nPartitionKey=0x8002\nMode=connected\n");
  ResolvedIface parent;
  parent.name = "ib0";
  parent.mtu = 2044;
  parent.addresses = {"10.0.0.5/16"};
  EXPECT_EQ(render_networkd_network(parent, {"ib0.8002"}),
            "# Managed by ibsm-agent from the node file; local edits are overwritten.\n"
            "[Match]\nName=ib0\n\n[Link]\nMTUBytes=2044\n\n[Network]\nIPoIB=ib0.8002\n"
            "Address=10.0.0.5/16\nConfigureWithoutCarrier=yes\n");
}

// networkd's config parser is a gperf table of "Section.Key" strings compiled into
// the daemon: every key we write must be one of them (this is how the
// IgnoreUserspaceMulticastGroup(s) mismatch, systemd #36421, shows up).
TEST(Networkd, EveryKeyIsKnownToTheInstalledNetworkd) {
  std::ifstream bin("/lib/systemd/systemd-networkd", std::ios::binary);
  if (!bin) GTEST_SKIP() << "systemd-networkd not installed (apt install systemd)";
  std::stringstream ss;
  ss << bin.rdbuf();
  const std::string daemon = ss.str();
  ResolvedIface parent;
  parent.name = "ib0";
  parent.mtu = 2044;
  for (const std::string& unit :
       {render_networkd_netdev(child()), render_networkd_network(child(), {}),
        render_networkd_network(parent, {"ib0.8002"})}) {
    std::istringstream in(unit);
    std::string section;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      if (line[0] == '[') {
        section = line.substr(1, line.size() - 2);
        continue;
      }
      std::string key = section + "." + line.substr(0, line.find('='));
      EXPECT_NE(daemon.find(key + '\0'), std::string::npos)
          << key << " unknown to systemd-networkd";
    }
  }
}

TEST(Networkd, ForeignUnitForTheSameInterfaceIsReported) {
  PlanRun r(kNode);
  r.tree.file("/etc/systemd/network/10-ib0.network", "[Match]\nName=ib0\n\n[Network]\nDHCP=yes\n");
  r.replan(Backend::kNetworkd);
  EXPECT_THAT(r.plan.notes,
              ElementsAre(HasSubstr("10-ib0.network (not ibsm-agent's) also configures ib0")));
}

TEST(Networkd, ApplyTwiceThenNothingToDo) {
  PlanRun r(kNode);
  r.replan(Backend::kNetworkd);
  ASSERT_THAT(r.plan.errors, IsEmpty());
  EXPECT_THAT(described(r.plan),
              ElementsAre("write /etc/systemd/network/60-ibsm-ib0.network (mode 0644)",
                          "write /etc/systemd/network/60-ibsm-ib0.8002.netdev (mode 0644)",
                          "write /etc/systemd/network/60-ibsm-ib0.8002.network (mode 0644)",
                          "run networkctl reload", "run networkctl reconfigure ib0"));
  ASSERT_TRUE(r.apply());
  testing::add_netdev(r.tree, "ib0.8002", 32, testing::kIb0Address, 65520, "connected", "0x8002");
  r.tree.file("/sys/class/net/ib0.8002/parent", "ib0\n");
  r.replan(Backend::kNetworkd);
  EXPECT_THAT(described(r.plan), IsEmpty());
}

}  // namespace
}  // namespace ibsm::agent::backend_test
