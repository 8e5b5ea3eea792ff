// Issue 38 part 4: what a node file, sysfs or the wire can carry into the agent. Each
// hostile value is refused where it enters, naming file and line with a stable ID, and
// the host (a --root tree) is left exactly as it was: no file written, no command run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "agent/cli.hpp"
#include "agent/errors.hpp"
#include "agent/input_grammar.hpp"
#include "agent/node_file.hpp"
#include "agent/port_source.hpp"
#include "agent/sa_mcmember.hpp"
#include "agent/watch.hpp"
#include "host_fixture.hpp"

namespace ibsm::agent {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(InputGrammar, InterfaceNames) {
  for (const char* ok : {"ib0", "ib0.8002", "a", "eth-1_2:3", "abcdefghijklmno"})
    EXPECT_TRUE(valid_ifname(ok)) << ok;
  for (const char* bad : {"", ".", "..", "ib0/x", "../etc", "abcdefghijklmnop", "ib0 x", "ib0\nup",
                          "ib0;reboot", "ib$(id)", "ib`x`", "ib0\"", "ib0'", "ib0%i", "ib0\\"})
    EXPECT_FALSE(valid_ifname(bad)) << bad;
  EXPECT_FALSE(valid_ifname(std::string_view("ib\0x", 4)));
  EXPECT_TRUE(valid_rdma_device_name("mlx5_0"));
  EXPECT_FALSE(valid_rdma_device_name(".."));
  EXPECT_FALSE(valid_rdma_device_name("mlx5/../../etc"));
}

TEST(InputGrammar, AddressesAreInetPtonAndAPrefixInRangeWithNothingElse) {
  for (const char* ok : {"10.0.0.1/24", "0.0.0.0/0", "10.0.0.1/32", "fd00::5/64", "::1/128",
                         "fe80::1:2:3:4/10", "::ffff:10.0.0.1/96"})
    EXPECT_TRUE(valid_address(ok)) << ok;
  for (const char* bad :
       {"10.0.0.1;reboot;#/24",
        "10.0.0.1/24;reboot",
        "10.0.0.1/33",
        "fd00::5/129",
        "10.0.0.1",
        "10.0.0.1/",
        "/24",
        "10.0.0.1/024x",
        "10.0.0.1/-1",
        "10.0.0.1/+8",
        "10.0.0.1 /24",
        "10.0.0.1/ 24",
        "10.0.0.256/24",
        "10.0.0/24",
        "fd00::5%eth0/64",
        "host.example/24",
        "10.0.0.1/1000",
        "10.0.0.1/2\n",
        "10.0.0.1\n/24",
        "10.0.0.1/9999999999999999999999999999999999999999999999999999999999999999999999999999999"
        "999999999999999999999"})
    EXPECT_FALSE(valid_address(bad)) << bad;
}

TEST(InputGrammar, NumbersWithoutExceptions) {
  EXPECT_EQ(parse_uint("4092", 65535), 4092u);
  EXPECT_EQ(parse_uint("ffff", 0xffff, 16), 0xffffu);
  EXPECT_EQ(parse_uint("65536", 65535), std::nullopt);
  EXPECT_EQ(parse_uint(std::string(100, '9'), UINT64_MAX), std::nullopt);
  EXPECT_EQ(parse_uint("18446744073709551616", UINT64_MAX), std::nullopt);
  EXPECT_EQ(parse_uint("-1", 10), std::nullopt);
  EXPECT_EQ(parse_uint("+1", 10), std::nullopt);
  EXPECT_EQ(parse_uint(" 1", 10), std::nullopt);
  EXPECT_EQ(parse_uint("", 10), std::nullopt);
  EXPECT_EQ(parse_sysfs_uint("0x8002\n", 0xffff, 16), 0x8002u);
  EXPECT_EQ(parse_sysfs_uint("2044\n", 65535), 2044u);
  EXPECT_EQ(parse_sysfs_uint(std::string(100, '7') + "\n", 65535), std::nullopt);
}

// The tree's files (path -> content), to show that a refused run changed nothing.
std::map<std::string, std::string> snapshot(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    std::string path = e.path().string().substr(root.size());
    if (e.is_symlink())
      out[path] = "-> " + std::filesystem::read_symlink(e.path()).string();
    else if (e.is_regular_file()) {
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      out[path] = ss.str();
    } else {
      out[path] = "dir";
    }
  }
  return out;
}

struct Host {
  testing::Tree tree;
  std::string out, err;
  Host() {
    testing::build_host(tree);
    // ifupdown reads the agent's stanzas: the backend whose lines /bin/sh runs as root.
    tree.file("/etc/network/interfaces", "source /etc/network/interfaces.d/*\n");
    tree.dir("/etc/network/interfaces.d");
  }
  int apply(const std::string& node_file, const std::string& backend) {
    tree.file("/node.toml", node_file);
    return apply(backend);
  }
  int apply(const std::string& backend) {
    std::vector<std::string> args{"ibsm-agent", "apply", "--root",
                                  tree.root(),  "-c",    tree.root() + "/node.toml",
                                  "--backend",  backend, "--force"};
    std::vector<const char*> argv;
    for (const auto& a : args)
      argv.push_back(a.c_str());
    std::ostringstream o, e;
    int rc = run_cli(static_cast<int>(argv.size()), argv.data(), o, e);
    out = o.str();
    err = e.str();
    return rc;
  }
};

struct Hostile {
  const char* what;
  std::string file;
  const char* id;        // IBSM-nnnn
  const char* location;  // node.toml:LINE:
};

std::vector<Hostile> hostile_files() {
  const std::string port = "[[ipoib]]\nport = { device = \"mlx5_0\" }\n";
  return {
      {"shell in an address", port + "addresses = [\"10.0.0.1;reboot;#/24\"]\n", "IBSM-6006",
       "node.toml:3:"},
      {"shell after the prefix", port + "addresses = [\"10.0.0.1/24 && reboot\"]\n", "IBSM-6006",
       "node.toml:3:"},
      {"a name with /", port + "name = \"../../etc/passwd\"\n", "IBSM-6005", "node.toml:3:"},
      {"a name of ..", port + "name = \"..\"\n", "IBSM-6005", "node.toml:3:"},
      {"a name with a newline", port + "name = \"ib0\\n    up reboot\"\n", "IBSM-6005",
       "node.toml:3:"},
      {"a child named with shell", port + "[[ipoib.child]]\npkey = 0x0002\nname = \"x;reboot\"\n",
       "IBSM-6005", "node.toml:5:"},
      {"a child address with a newline",
       port + "[[ipoib.child]]\npkey = 0x0002\naddresses = [\"10.0.0.1/24\\n  up reboot\"]\n",
       "IBSM-6006", "node.toml:5:"},
      {"a 100-digit MTU", port + "mtu = " + std::string(100, '9') + "\n", "IBSM-6002",
       "node.toml:3:"},
      {"a 100-digit prefix", port + "addresses = [\"10.0.0.1/" + std::string(100, '9') + "\"]\n",
       "IBSM-6006", "node.toml:3:"},
      {"a 100-digit GUID", "[[ipoib]]\nport = { guid = \"" + std::string(100, 'f') + "\" }\n",
       "IBSM-6004", "node.toml:2:"},
      {"a 100-digit memlock", "[memlock]\nsoft = \"" + std::string(100, '9') + "\"\n", "IBSM-6004",
       "node.toml:2:"},
      {"a 100-digit DSCP",
       "[[roce]]\ndevice = \"mlx5_2\"\n[roce.dcb]\ndscp_prio = [\"" + std::string(100, '9') +
           ":3\"]\n",
       "IBSM-6004", "node.toml:4:"},
      {"a RoCE device with /", "[[roce]]\ndevice = \"../../../tmp\"\n", "IBSM-6005",
       "node.toml:2:"},
      {"a soft RDMA netdev with shell",
       "[[soft_rdma]]\nname = \"rxe0\"\ntype = \"rxe\"\nnetdev = \"eth1;reboot\"\n", "IBSM-6005",
       "node.toml:4:"},
      {"a module with a newline", "[modules]\nrdma = [\"ib_uverbs\\nrdma_cm\"]\n", "IBSM-6005",
       "node.toml:2:"},
      {"a group with a newline", "[memlock]\ngroup = \"rdma\\n* hard memlock unlimited\"\n",
       "IBSM-6005", "node.toml:2:"},
      {"a service with a specifier", "[memlock]\nservices = [\"x%n.service\"]\n", "IBSM-6005",
       "node.toml:2:"},
      {"a mount point with ..",
       "[nfs_rdma]\n[[nfs_rdma.mount]]\nwhat = \"srv:/export\"\nwhere = \"/mnt/../etc\"\n",
       "IBSM-6004", "node.toml:4:"},
      {"an export with a specifier",
       "[nfs_rdma]\n[[nfs_rdma.mount]]\nwhat = \"srv:/export%h\"\nwhere = \"/mnt/x\"\n",
       "IBSM-6004", "node.toml:3:"},
      {"a protected interface with shell", "[agent]\nprotected_interfaces = [\"ib0;reboot\"]\n",
       "IBSM-6005", "node.toml:2:"},
  };
}

TEST(HostileNodeFile, RefusedNamingFileAndLineAndTheHostIsUnchanged) {
  for (const char* backend : {"ifupdown", "networkd", "networkmanager", "direct"})
    for (const Hostile& h : hostile_files()) {
      Host host;
      host.tree.file("/node.toml", h.file);
      const auto before = snapshot(host.tree.root());
      EXPECT_EQ(host.apply(backend), kExitError) << h.what << " " << backend;
      EXPECT_THAT(host.err, HasSubstr(h.id)) << h.what << " " << backend << ": " << host.err;
      EXPECT_THAT(host.err, HasSubstr(h.location)) << h.what << " " << backend << ": " << host.err;
      EXPECT_TRUE(snapshot(host.tree.root()) == before) << h.what << " " << backend;
      // No action ran: apply reports every step it takes ("done: ...") on stdout.
      EXPECT_EQ(host.out, "") << h.what << " " << backend;
    }
}

// The fuzz replay's hostile seeds (tests/fuzz/corpus/agent_inputs/node-hostile-*.toml): the
// replay checks that no mutant is accepted with a value outside the grammars; here each seed
// itself is refused, naming the file and line with a node-file ID.
TEST(HostileNodeFile, EveryHostileFuzzSeedIsRefusedNamingFileAndLine) {
  const std::filesystem::path dir =
      std::filesystem::path(IBSM_SOURCE_DIR) / "tests/fuzz/corpus/agent_inputs";
  int seeds = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("node-hostile-", 0) != 0) continue;
    ++seeds;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    auto r = parse_node_file(text.str(), name);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_GE(r.error().id.code, 6002) << name << ": " << r.error().message;
    EXPECT_LE(r.error().id.code, 6006) << name << ": " << r.error().message;
    EXPECT_THAT(r.error().message, ::testing::StartsWith(name + ":")) << name;
  }
  EXPECT_GE(seeds, 12);
}

TEST(HostileNodeFile, TheSameFileWithSafeValuesApplies) {
  // The control: the refusals above are the values', not the files' shape.
  Host host;
  EXPECT_EQ(host.apply("[[ipoib]]\nport = { device = \"mlx5_0\" }\naddresses = [\"10.0.0.1/24\"]\n"
                       "[[ipoib.child]]\npkey = 0x0002\naddresses = [\"10.2.0.1/24\"]\n",
                       "ifupdown"),
            kExitOk)
      << host.out << host.err;
  const std::string stanza = host.tree.read("/etc/network/interfaces.d/ibsm-ib0-8002");
  EXPECT_THAT(stanza, HasSubstr("    up ip addr replace 10.2.0.1/24 dev ib0.8002\n"));
}

TEST(HostileSysfs, NetdevsWithNamesOutsideTheGrammarAreLeftAlone) {
  Host host;
  // The kernel allows ';' in a name (dev_valid_name refuses only '/', ':' and spaces).
  testing::add_netdev(host.tree, "ib0;reboot", 32, testing::kIb0Address, 2044, "datagram",
                      "0xffff");
  EXPECT_EQ(host.apply("[[ipoib]]\nport = { device = \"mlx5_0\" }\nname = \"ib0\"\n", "ifupdown"),
            kExitOk)
      << host.out << host.err;
  EXPECT_THAT(host.err, HasSubstr("IBSM-6306"));
  EXPECT_THAT(host.out + host.tree.read("/etc/network/interfaces.d/ibsm-ib0"),
              Not(HasSubstr("reboot")));
}

TEST(AnswerBinding, OnlyTheRequestsOwnAnswerFromTheLidAsked) {
  const SaMad request = encode_port_info_get(17, 0x01020304);
  SaMad answer = request;
  answer[3] = 0x81;  // GetResp
  EXPECT_EQ(answer_mismatch(answer, 1, request, 1), nullptr);
  EXPECT_STREQ(answer_mismatch(answer, 2, request, 1), "from another LID than the one asked");
  SaMad other = answer;
  other[15] ^= 1;  // TID
  EXPECT_STREQ(answer_mismatch(other, 1, request, 1), "another TID");
  other = answer;
  other[17] ^= 1;  // attribute ID
  EXPECT_STREQ(answer_mismatch(other, 1, request, 1), "another attribute ID");
  other = answer;
  other[23] ^= 1;  // attribute modifier
  EXPECT_STREQ(answer_mismatch(other, 1, request, 1), "another attribute modifier");
  other = answer;
  other[3] = 0x01;  // a request, not a response
  EXPECT_STREQ(answer_mismatch(other, 1, request, 1), "not a response");
  other = answer;
  other[1] = 0x04;  // PerfMgt
  EXPECT_STREQ(answer_mismatch(other, 1, request, 1), "another management class");
  EXPECT_STREQ(answer_mismatch(std::span(answer.data(), 20), 1, request, 1), "short MAD");
}

// A port source whose ports the test changes, as the SM would.
class ScriptedPorts final : public PortSource {
 public:
  std::vector<RdmaDevice> now;
  Result<std::vector<RdmaDevice>> devices() const override { return now; }
};

TEST(WatchFingerprint, SeesAPortGoingActiveAndANewPKeyThroughItsPortSource) {
  ScriptedPorts ports;
  RdmaDevice d;
  d.name = "mlx5_0";
  PortState p;
  p.number = 1;
  p.state_code = 2;
  p.state = "INIT";
  p.pkeys = {{0, 0xffff}};
  d.ports.push_back(p);
  ports.now = {d};
  const std::string init = port_fingerprint(ports);
  ports.now[0].ports[0].state_code = 4;
  ports.now[0].ports[0].state = "ACTIVE";
  ports.now[0].ports[0].sm_lid = 1;
  const std::string active = port_fingerprint(ports);
  EXPECT_NE(active, init);
  ports.now[0].ports[0].pkeys.push_back({1, 0x8002});
  EXPECT_NE(port_fingerprint(ports), active);
  EXPECT_EQ(port_fingerprint(ports), port_fingerprint(ports));
}

// watch polls `ibsm-agent fingerprint` (a fresh process, the given --port-source): the
// verb's output changes when the SM programs a P_Key or the port goes Active.
TEST(WatchFingerprint, TheVerbWatchPollsSeesTheTreesPortsChange) {
  Host host;
  auto fingerprint = [&] {
    std::vector<std::string> args{"ibsm-agent",     "fingerprint",   "--root",
                                  host.tree.root(), "--port-source", "sysfs"};
    std::vector<const char*> argv;
    for (const auto& a : args)
      argv.push_back(a.c_str());
    std::ostringstream o, e;
    EXPECT_EQ(run_cli(static_cast<int>(argv.size()), argv.data(), o, e), kExitOk) << e.str();
    return o.str();
  };
  const std::string before = fingerprint();
  EXPECT_THAT(before, HasSubstr("mlx5_0/1 4 ACTIVE lid 17 sm 1 pkeys 0:65535"));
  host.tree.file("/sys/class/infiniband/mlx5_0/ports/1/pkeys/9", "0x8009\n");
  const std::string added = fingerprint();
  EXPECT_NE(added, before);
  host.tree.file("/sys/class/infiniband/mlx5_0/ports/1/state", "2: INIT\n");
  EXPECT_NE(fingerprint(), added);
}

}  // namespace
}  // namespace ibsm::agent
