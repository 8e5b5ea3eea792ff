// The guide's remaining host steps: the nmstate rendering and `ibsm-agent test PEER`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "agent/node_file.hpp"
#include "agent/peer_test.hpp"
#include "agent/render_nmstate.hpp"
#include "agent/verify.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::PlanRun;

TEST(Nmstate, IpoibParentAndChildWithNormalisedPKeys) {
  PlanRun r(
      "[[ipoib]]\nport = { device = \"mlx5_0\" }\naddresses = [\"10.0.0.5/16\"]\n"
      "[[ipoib.child]]\npkey = 0x0002\nmode = \"connected\"\nmtu = 65520\n"
      "addresses = [\"10.2.0.5/16\", \"fd00:2::5/64\"]\n[[roce]]\ndevice = \"mlx5_2\"\n");
  EXPECT_EQ(render_nmstate(r.plan, r.config),
            "# nmstate desired state rendered by ibsm-agent from the node file (nmstatectl "
            "apply).\n"
            "# Not expressible in nmstate, left to `ibsm-agent apply`: RoCE default mode/TOS, "
            "soft RDMA links, rdma module lists, memlock, NFS over RDMA.\n"
            "interfaces:\n"
            "  - name: ib0\n    type: infiniband\n    state: up\n"
            "    infiniband:\n      mode: datagram\n      pkey: \"0xffff\"\n"
            "    ipv4:\n      enabled: true\n      dhcp: false\n      address:\n"
            "        - ip: 10.0.0.5\n          prefix-length: 16\n"
            "    ipv6:\n      enabled: false\n"
            "  - name: ib0.8002\n    type: infiniband\n    state: up\n    mtu: 65520\n"
            "    infiniband:\n      base-iface: ib0\n      mode: connected\n"
            "      pkey: \"0x8002\"\n"
            "    ipv4:\n      enabled: true\n      dhcp: false\n      address:\n"
            "        - ip: 10.2.0.5\n          prefix-length: 16\n"
            "    ipv6:\n      enabled: true\n      dhcp: false\n      autoconf: false\n"
            "      address:\n        - ip: fd00:2::5\n          prefix-length: 64\n");
}

class ScriptedRunner final : public CommandRunner {
 public:
  std::map<std::string, CommandResult> answers;  // argv[0] -> result
  mutable std::vector<std::string> ran;
  CommandResult run(const std::vector<std::string>& argv) const override {
    std::string s;
    for (const auto& a : argv)
      s += (s.empty() ? "" : " ") + a;
    ran.push_back(s);
    auto it = answers.find(argv[0]);
    return it == answers.end() ? CommandResult{127, "not found"} : it->second;
  }
};

TEST(PeerTest, PingThenIbpingToTheGuidFromTheNeighbourEntryThenRping) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\n");
  r.tree.file("/usr/sbin/ibping", "");
  r.tree.file("/usr/bin/rping", "");
  ScriptedRunner run;
  run.answers["ping"] = {0, "3 packets transmitted, 3 received, 0% packet loss\n"};
  run.answers["ip"] = {0,
                       "10.0.0.9 lladdr 80:00:00:4a:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:"
                       "99:01 REACHABLE\n"};
  run.answers["ibping"] = {1, "ibwarn: [1234] _do_madrpc: recv failed\n"};
  run.answers["rping"] = {0, "client DISCONNECT EVENT...\n"};
  auto checks = test_peers({"10.0.0.9"}, r.plan, r.tree.fs(), run);
  EXPECT_THAT(run.ran,
              ElementsAre("ping -c 3 -W 2 -I ib0 10.0.0.9", "ip neigh show 10.0.0.9 dev ib0",
                          "ibping -c 3 -G 0x0002c90300009901", "rping -c -a 10.0.0.9 -C 3 -v"));
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_EQ(checks[0].verdict, PeerVerdict::kPassed);
  EXPECT_EQ(checks[1].verdict, PeerVerdict::kFailed);
  EXPECT_THAT(checks[1].detail,
              HasSubstr("run `ibsm-agent ping-responder` (or `ibping -S`) on the peer (port GUID "
                        "0x0002c90300009901, seen on ib0)"));
  EXPECT_EQ(checks[2].check, "rc_pingpong");
  EXPECT_EQ(checks[2].verdict, PeerVerdict::kSkipped);
  EXPECT_THAT(checks[2].detail, HasSubstr("apt install ibverbs-utils"));
  EXPECT_EQ(checks[3].verdict, PeerVerdict::kPassed);
  EXPECT_EQ(peer_exit_code(checks), 3);
  std::string text = render_peer_checks(checks, false);
  EXPECT_THAT(text, HasSubstr("        reproduce: ibping -c 3 -G 0x0002c90300009901\n"));
  EXPECT_THAT(render_peer_checks(checks, true), HasSubstr("\"verdict\" : \"FAILED\""));
}

TEST(PeerTest, MissingToolsAreSkippedWithThePackageAndAFailedPingSaysWhy) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\n");
  ScriptedRunner run;
  run.answers["ping"] = {1, "3 packets transmitted, 0 received, 100% packet loss\n"};
  auto checks = test_peers({"10.0.0.9"}, r.plan, r.tree.fs(), run);
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_EQ(checks[0].verdict, PeerVerdict::kFailed);
  EXPECT_THAT(checks[0].detail, HasSubstr("100% packet loss; is ib0 up with carrier"));
  EXPECT_EQ(checks[1].verdict, PeerVerdict::kSkipped);
  EXPECT_THAT(checks[1].detail, HasSubstr("apt install infiniband-diags"));
  EXPECT_THAT(checks[2].detail, HasSubstr("apt install ibverbs-utils"));
  EXPECT_THAT(checks[3].detail, HasSubstr("apt install rdmacm-utils"));
}

TEST(PeerTest, IbpingExitsZeroWhateverItLostSoItsStatisticsDecide) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\n");
  r.tree.file("/usr/sbin/ibping", "");
  ScriptedRunner run;
  run.answers["ping"] = {0, "3 packets transmitted, 3 received, 0% packet loss\n"};
  run.answers["ip"] = {0,
                       "10.0.0.9 lladdr 80:00:00:4a:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:"
                       "99:01 REACHABLE\n"};
  run.answers["ibping"] = {0,
                           "\n--- vm (Lid 3) ibping statistics ---\n3 packets transmitted, 0 "
                           "received, 100% packet loss, time 3001 ms\n"};
  auto checks = test_peers({"10.0.0.9"}, r.plan, r.tree.fs(), run);
  EXPECT_EQ(checks[1].verdict, PeerVerdict::kFailed);
  EXPECT_THAT(checks[1].detail, HasSubstr("100% packet loss"));
  EXPECT_THAT(checks[1].detail, HasSubstr("run `ibsm-agent ping-responder`"));
  run.answers["ibping"] = {0,
                           "Pong from vm (Lid 3): time 0.048 ms\n--- vm (Lid 3) ibping "
                           "statistics ---\n3 packets transmitted, 3 received, 0% packet "
                           "loss, time 2001 ms\nrtt min/avg/max = 0.048/0.482/0.916 ms\n"};
  checks = test_peers({"10.0.0.9"}, r.plan, r.tree.fs(), run);
  EXPECT_EQ(checks[1].verdict, PeerVerdict::kPassed);
  EXPECT_EQ(checks[1].detail, "rtt min/avg/max = 0.048/0.482/0.916 ms");
  EXPECT_EQ(ping_loss("2 packets transmitted, 1 received, 50% packet loss"), 1);
  EXPECT_EQ(ping_loss("garbage"), std::nullopt);
}

TEST(PeerTest, GuidFromIpoibLinkLayerAddress) {
  EXPECT_EQ(guid_from_ipoib_lladdr("80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:12:34"),
            "0x0002c90300001234");
  EXPECT_EQ(guid_from_ipoib_lladdr("52:54:00:00:00:01"), "");
}

}  // namespace
}  // namespace ibsm::agent

namespace ibsm::agent {
namespace {

TEST(NfsRdma, ServerRestartsOnlyWhenItsConfigurationChanged) {
  testing::PlanRun r("[nfs_rdma]\nserver = true\n");
  std::vector<std::string> nfs;
  for (const auto& a : r.plan.actions)
    if (a.resource == "nfs_rdma server") nfs.push_back(a.describe());
  EXPECT_THAT(nfs, ElementsAre("write /etc/nfs.conf.d/90-ibsm-agent-rdma.conf (mode 0644)",
                               "run systemctl try-restart nfs-server.service"));
  ASSERT_TRUE(r.apply());
  r.replan();
  EXPECT_THAT(testing::described(r.plan), ::testing::IsEmpty());
}

TEST(NfsRdma, FirewalldRunningOpensTheRdmaPortTcpAndUdp) {
  testing::PlanRun r("[nfs_rdma]\nserver = true\n");
  ASSERT_TRUE(r.apply());
  r.tree.symlink("/run/systemd/units/invocation:firewalld.service", "0123abcd");
  r.tree.file("/etc/firewalld/firewalld.conf", "DefaultZone=internal\n");
  r.tree.file("/etc/firewalld/zones/internal.xml",
              "<zone>\n  <port port=\"20049\" protocol=\"tcp\"/>\n</zone>\n");
  r.replan();
  EXPECT_THAT(testing::described(r.plan),
              ElementsAre("run firewall-cmd --permanent --add-port=20049/udp",
                          "run firewall-cmd --reload"));
  r.tree.file("/etc/firewalld/zones/internal.xml",
              "<zone>\n  <port port=\"20049\" protocol=\"tcp\"/>\n"
              "  <port protocol=\"udp\" port=\"20049\"/>\n</zone>\n");
  r.replan();
  EXPECT_THAT(testing::described(r.plan), ::testing::IsEmpty());
}

}  // namespace
}  // namespace ibsm::agent

namespace ibsm::agent {
namespace {

TEST(Modules, RdmaLoadModulesRunsAgainAfterItsListChanged) {
  testing::PlanRun r("[modules]\nrdma = [\"rdma_ucm\"]\n");
  r.tree.file("/lib/systemd/system/rdma-load-modules@.service", "[Service]\n");
  r.replan();
  EXPECT_THAT(testing::described(r.plan),
              ElementsAre("load module rdma_ucm",
                          "write /etc/rdma/modules/rdma.conf (mode 0644, original kept as "
                          ".ibsm-agent-bak)",
                          "run systemctl restart rdma-load-modules@rdma.service"));
  ASSERT_TRUE(r.apply());
  r.replan();
  EXPECT_THAT(testing::described(r.plan), ::testing::IsEmpty());
}

}  // namespace
}  // namespace ibsm::agent

namespace ibsm::agent {
namespace {

const char* const kMount =
    "[nfs_rdma]\n[[nfs_rdma.mount]]\nwhat = \"fs1:/export/data\"\nwhere = \"/mnt/nfs-data\"\n"
    "options = [\"vers=4.2\"]\n";

TEST(NfsRdma, ClientMountIsASystemdMountUnitWithProtoRdmaCheckedInProcMounts) {
  EXPECT_EQ(mount_unit_name("/mnt/nfs-data"), "mnt-nfs\\x2ddata.mount");
  EXPECT_EQ(mount_unit_name("/srv/.hidden/a b"), "srv-\\x2ehidden-a\\x20b.mount");
  testing::PlanRun r(kMount);
  std::vector<std::string> mount;
  for (const auto& a : r.plan.actions)
    if (a.resource == "nfs_rdma mount /mnt/nfs-data") mount.push_back(a.describe());
  EXPECT_THAT(mount, ElementsAre("write /etc/systemd/system/mnt-nfs\\x2ddata.mount (mode 0644)",
                                 "run systemctl daemon-reload",
                                 "run systemctl enable --now mnt-nfs\\x2ddata.mount"));
  // A client mount needs xprtrdma (the client module list).
  EXPECT_THAT(testing::described(r.plan), ::testing::Contains("load module xprtrdma"));
  ASSERT_TRUE(r.apply());
  EXPECT_THAT(r.tree.read("/etc/systemd/system/mnt-nfs\\x2ddata.mount"),
              HasSubstr("[Mount]\nWhat=fs1:/export/data\nWhere=/mnt/nfs-data\nType=nfs\n"
                        "Options=proto=rdma,port=20049,vers=4.2\n"));
  r.replan();
  auto state = [&] {
    for (const auto& v : verify(r.plan, r.observed, r.tree.fs()))
      if (v.resource == "nfs_rdma mount /mnt/nfs-data")
        return std::string(state_name(v.state)) + ": " + v.reason;
    return std::string("none");
  };
  EXPECT_EQ(state(),
            "failed: /mnt/nfs-data is not mounted (systemctl status "
            "mnt-nfs\\x2ddata.mount)");
  r.tree.file("/proc/mounts", "fs1:/export/data /mnt/nfs-data nfs4 rw,vers=4.2,proto=tcp 0 0\n");
  EXPECT_THAT(state(), HasSubstr("without proto=rdma"));
  r.tree.file("/proc/mounts",
              "fs1:/export/data /mnt/nfs-data nfs4 rw,vers=4.2,proto=rdma,port=20049 0 0\n");
  EXPECT_EQ(state(), "ok: fs1:/export/data mounted over RDMA");
}

TEST(NfsRdma, BadMountEntriesNameFileAndLineAndNothingIsPlanned) {
  for (const char* bad :
       {"what = \"fs1\"\nwhere = \"/mnt/a\"", "what = \"fs1:/x\"\nwhere = \"mnt/a\"",
        "what = \"fs1:/x\"\nwhere = \"/mnt/../etc\"", "what = \"fs1:/x\"\nwhere = \"/..\"",
        "what = \"fs1:/x\"\nwhere = \"/mnt/a/\"",
        "what = \"fs1:/x\"\nwhere = \"/mnt/a\"\noptions = [\"proto=tcp\"]",
        "what = \"fs1:/x\"\nwhere = \"/mnt/a\"\noptions = [\"ro,soft\"]",
        "what = \"fs1:/x\"\nwhere = \"/mnt/a\"\nwhen = \"now\"", "where = \"/mnt/a\""}) {
    auto c =
        parse_node_file(std::string("[nfs_rdma]\n[[nfs_rdma.mount]]\n") + bad + "\n", "node.toml");
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_THAT(c.error().message, ::testing::StartsWith("node.toml:")) << bad;
    EXPECT_THAT(c.error().message, HasSubstr("nfs_rdma.mount[0]")) << bad;
  }
}

}  // namespace
}  // namespace ibsm::agent

namespace ibsm::agent {
namespace {

// What rdma-core's rc_pingpong prints after its round trips (both lines are needed).
constexpr const char* kRcPingpongOutput =
    "  local address:  LID 0x0011, QPN 0x00004a, PSN 0x0c1d2e, GID ::\n"
    "  remote address: LID 0x0012, QPN 0x00004b, PSN 0x3a2b1c, GID ::\n"
    "819200 bytes in 0.01 seconds = 655.36 Mbit/sec\n"
    "100 iters in 0.01 seconds = 100.00 usec/iter\n";

TEST(PeerTest, RcPingpongRunsOverThePortThatReachedThePeerAndNeedsBothSummaryLines) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\n");
  r.tree.file("/usr/bin/ibv_rc_pingpong", "");
  ScriptedRunner run;
  run.answers["ping"] = {0, "3 received\n"};
  run.answers["ip"] = {0,
                       "10.0.0.9 lladdr 80:00:00:4a:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:"
                       "99:01 REACHABLE\n"};
  run.answers["ibv_rc_pingpong"] = {0, kRcPingpongOutput};
  auto checks = test_peers({"10.0.0.9"}, r.plan, r.tree.fs(), run);
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_EQ(checks[2].check, "rc_pingpong");
  EXPECT_EQ(checks[2].verdict, PeerVerdict::kPassed);
  EXPECT_EQ(checks[2].command, "ibv_rc_pingpong -d mlx5_0 -i 1 -n 100 10.0.0.9");
  EXPECT_EQ(checks[2].detail, "655.36 Mbit/s, 100.00 usec/iter");
  // Exit 0 without the summary is no proof of a round trip.
  run.answers["ibv_rc_pingpong"] = {0, "819200 bytes in 0.01 seconds = 655.36 Mbit/sec\n"};
  checks = test_peers({"10.0.0.9"}, r.plan, r.tree.fs(), run);
  EXPECT_EQ(checks[2].verdict, PeerVerdict::kFailed);
  EXPECT_THAT(checks[2].detail, HasSubstr("without the throughput and latency lines"));
  // No server on the peer: the tool's own words and what to run there.
  run.answers["ibv_rc_pingpong"] = {1, "Couldn't connect to 10.0.0.9:18515\n"};
  checks = test_peers({"10.0.0.9"}, r.plan, r.tree.fs(), run);
  EXPECT_EQ(checks[2].verdict, PeerVerdict::kFailed);
  EXPECT_EQ(checks[2].detail,
            "Couldn't connect to 10.0.0.9:18515; run `ibv_rc_pingpong -d DEVICE -i PORT` on the "
            "peer");
  // No IPoIB ping answered: no port is known to reach the peer.
  run.answers["ping"] = {1, "100% packet loss\n"};
  checks = test_peers({"10.0.0.9"}, r.plan, r.tree.fs(), run);
  EXPECT_EQ(checks[2].verdict, PeerVerdict::kSkipped);
  EXPECT_THAT(checks[2].detail, HasSubstr("no IPoIB ping answered"));
}

TEST(PeerTest, RcPingpongSummaryParsing) {
  EXPECT_EQ(parse_rc_pingpong(kRcPingpongOutput), "655.36 Mbit/s, 100.00 usec/iter");
  EXPECT_EQ(parse_rc_pingpong(""), std::nullopt);
  EXPECT_EQ(parse_rc_pingpong("100 iters in 0.01 seconds = 100.00 usec/iter\n"), std::nullopt);
  EXPECT_EQ(parse_rc_pingpong("819200 bytes in x = 1 Mbit/sec\n100 iters in 0.01 seconds = 1 "
                              "usec/iter\n"),
            std::nullopt);
}

}  // namespace
}  // namespace ibsm::agent
