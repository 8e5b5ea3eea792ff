// The node service: backends chosen by what runs (the "is it active" probe
// injected), the ifupdown backend, unattended applies, carrier in verify, and the
// watch loop with fake signals, systemd and passes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>

#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "agent/apply.hpp"
#include "agent/cli.hpp"
#include "agent/errors.hpp"
#include "agent/renderers.hpp"
#include "agent/supervised_child.hpp"
#include "agent/verify.hpp"
#include "agent/watch.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent::service_test {
namespace {

using testing::described;
using ::testing::ElementsAre;
using testing::error_ids;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::PlanRun;

class FakeServices final : public ServiceProbe {
 public:
  std::set<std::string> running;
  bool active(const std::string& unit) const override { return running.count(unit) != 0; }
};

// A stock Debian 12: /run/systemd/netif exists although networkd is disabled.
void debian_dirs(testing::Tree& t) {
  t.dir("/run/systemd/netif/links");
  t.dir("/run/NetworkManager");
}

TEST(BackendDetection, NetworkManagerWhenItsDaemonIsActive) {
  testing::Tree t;
  debian_dirs(t);
  FakeServices s;
  s.running = {"NetworkManager.service", "systemd-networkd.service", "networking.service"};
  auto c = detect_backend(t.fs(), s);
  EXPECT_EQ(c.backend, Backend::kNetworkManager);
  EXPECT_EQ(c.why, "NetworkManager.service is active");
}

TEST(BackendDetection, NetworkdWhenActiveAndNetworkManagerIsNot) {
  testing::Tree t;
  debian_dirs(t);
  FakeServices s;
  s.running = {"systemd-networkd.service"};
  EXPECT_EQ(detect_backend(t.fs(), s).backend, Backend::kNetworkd);
}

TEST(BackendDetection, IfupdownOnStockDebianWhoseNetifDirectoryExists) {
  testing::Tree t;
  debian_dirs(t);
  t.file("/sbin/ifup", "");
  FakeServices s;
  s.running = {"networking.service"};
  auto c = detect_backend(t.fs(), s);
  EXPECT_EQ(c.backend, Backend::kIfupdown);
  EXPECT_THAT(c.why, HasSubstr("networking.service is active"));
  // Without systemd's word, ifupdown's own state file says it brought interfaces up.
  s.running.clear();
  t.file("/run/network/ifstate", "lo=lo\n");
  EXPECT_EQ(detect_backend(t.fs(), s).backend, Backend::kIfupdown);
}

TEST(BackendDetection, DirectWhenNothingRuns) {
  testing::Tree t;
  debian_dirs(t);
  FakeServices s;
  s.running = {"networking.service"};  // active, but ifup is not installed
  auto c = detect_backend(t.fs(), s);
  EXPECT_EQ(c.backend, Backend::kDirect);
  EXPECT_EQ(c.why, "no network manager is active");
}

TEST(BackendDetection, RunDirProbeReadsSystemdInvocationLinksAndNmPidFile) {
  testing::Tree t;
  RunDirProbe p(t.fs());
  EXPECT_FALSE(p.active("systemd-networkd.service"));
  t.symlink("/run/systemd/units/invocation:systemd-networkd.service", "0123abcd");
  EXPECT_TRUE(p.active("systemd-networkd.service"));
  t.file("/run/NetworkManager/NetworkManager.pid", "4242\n");
  EXPECT_FALSE(p.active("NetworkManager.service"));  // stale pid file: no such process
  t.dir("/proc/4242");
  EXPECT_TRUE(p.active("NetworkManager.service"));
}

class FakeRunner final : public CommandRunner {
 public:
  std::map<std::string, int> status;  // unit -> systemctl exit status
  CommandResult run(const std::vector<std::string>& argv) const override {
    auto it = status.find(argv.back());
    return {it == status.end() ? 1 : it->second, ""};
  }
};

TEST(BackendDetection, SystemctlDecidesAndFallsBackWhenItCannotAnswer) {
  testing::Tree t;
  t.symlink("/run/systemd/units/invocation:networking.service", "0123abcd");
  RunDirProbe fallback(t.fs());
  FakeRunner r;
  r.status = {{"NetworkManager.service", 0}, {"systemd-networkd.service", 3}};
  SystemctlProbe p(r, fallback);
  EXPECT_TRUE(p.active("NetworkManager.service"));
  EXPECT_FALSE(p.active("systemd-networkd.service"));
  EXPECT_TRUE(p.active("networking.service"));  // status 1 (no systemd): the fallback says
}

TEST(Cli, BackendOverrideAndDetectionNote) {
  testing::Tree t;
  testing::build_host(t);
  t.file("/node.toml", "[[ipoib]]\nport = { device = \"mlx5_0\" }\n");
  t.file("/sbin/ifup", "");
  t.file("/run/network/ifstate", "");
  t.file("/etc/network/interfaces", "source /etc/network/interfaces.d/*\n");
  auto run = [&](std::vector<std::string> extra, std::string& out) {
    std::vector<std::string> args{"plan", "--root", t.root(), "-c", t.root() + "/node.toml"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<const char*> argv{"ibsm-agent"};
    for (const auto& a : args)
      argv.push_back(a.c_str());
    std::ostringstream o, e;
    int rc = run_cli(static_cast<int>(argv.size()), argv.data(), o, e);
    out = o.str() + e.str();
    return rc;
  };
  std::string out;
  EXPECT_EQ(run({}, out), kExitChanges);
  EXPECT_THAT(out, HasSubstr("backend: ifupdown\n"));
  EXPECT_THAT(out, HasSubstr("note: backend ifupdown: ifupdown is installed and "
                             "/run/network/ifstate exists"));
  EXPECT_EQ(run({"--backend", "direct"}, out), kExitChanges);
  EXPECT_THAT(out, HasSubstr("backend: direct\n"));
  EXPECT_EQ(run({"--backend", "bogus"}, out), kExitError);
  EXPECT_THAT(out, HasSubstr("IBSM-6401: --backend must be auto, networkmanager, networkd, "
                             "ifupdown or direct"));
}

TEST(NodeFile, BackendIfupdownIsAcceptedAndABadBackendNamesFileLineAndChoices) {
  auto ok = parse_node_file("[agent]\nbackend = \"ifupdown\"\n", "node.toml");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->backend, Backend::kIfupdown);
  auto bad = parse_node_file("[agent]\nbackend = \"ifup\"\n", "node.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().id, kNodeFileBadValue);
  EXPECT_THAT(bad.error().message, HasSubstr("node.toml:2:"));
  EXPECT_THAT(bad.error().message, HasSubstr("ifupdown"));
}

const char* const kNode = R"([[ipoib]]
port = { device = "mlx5_0" }
addresses = ["10.0.0.5/16"]
[[ipoib.child]]
pkey = 0x0002
mode = "connected"
mtu = 65520
addresses = ["10.2.0.5/16", "fd00:2::5/64"]
)";

TEST(Ifupdown, StanzaGolden) {
  ResolvedIface r;
  r.name = "ib0.8002";
  r.parent = "ib0";
  r.pkey = 0x8002;
  r.mode = IpoibMode::kConnected;
  r.mtu = 65520;
  r.addresses = {"10.2.0.5/16", "fd00:2::5/64"};
  EXPECT_EQ(ifupdown_path(r.name), "/etc/network/interfaces.d/ibsm-ib0-8002");
  EXPECT_EQ(render_ifupdown_stanza(r),
            "# Managed by ibsm-agent from the node file; local edits are overwritten.\n"
            "auto ib0.8002\n"
            "iface ib0.8002 inet manual\n"
            "    pre-up ip link add link ib0 name ib0.8002 type ipoib pkey 0x8002 mode connected\n"
            "    pre-up ip link set dev ib0.8002 mtu 65520\n"
            "    up ip link set dev ib0.8002 up\n"
            "    up ip addr replace 10.2.0.5/16 dev ib0.8002\n"
            "    up ip addr replace fd00:2::5/64 dev ib0.8002\n"
            "    post-down ip link del ib0.8002\n");
}

TEST(Ifupdown, WritesStanzasThenIfupAndIsIdempotent) {
  PlanRun r(kNode);
  r.tree.file("/etc/network/interfaces",
              "auto lo\niface lo inet loopback\n"
              "source /etc/network/interfaces.d/*\n");
  r.replan(Backend::kIfupdown);
  ASSERT_THAT(r.plan.errors, IsEmpty());
  EXPECT_EQ(r.plan.backend, "ifupdown");
  EXPECT_THAT(described(r.plan),
              ElementsAre("write /etc/network/interfaces.d/ibsm-ib0 (mode 0644)", "run ifup ib0",
                          "write /etc/network/interfaces.d/ibsm-ib0-8002 (mode 0644)",
                          "run ifup ib0.8002"));
  ASSERT_TRUE(r.apply());
  EXPECT_THAT(r.tree.read("/etc/network/interfaces.d/ibsm-ib0"),
              HasSubstr("    up ip addr replace 10.0.0.5/16 dev ib0\n"));
  r.replan(Backend::kIfupdown);
  // The tree runs no ifup, so ib0.8002 is still missing: ifup again, no rewrite.
  EXPECT_THAT(described(r.plan), ElementsAre("run ifup ib0.8002"));
}

TEST(Ifupdown, ChangedStanzaOfARunningInterfaceIsIfdownIfupAndDisruptive) {
  PlanRun r(kNode);
  r.tree.file("/etc/network/interfaces", "source-directory /etc/network/interfaces.d\n");
  r.replan(Backend::kIfupdown);
  ASSERT_TRUE(r.apply());
  r.config.ipoib[0].addresses = {"10.0.0.6/16"};
  r.replan(Backend::kIfupdown);
  ASSERT_GE(r.plan.actions.size(), 3u);
  EXPECT_EQ(r.plan.actions[1].describe(), "run ifdown ib0");
  EXPECT_TRUE(r.plan.actions[1].disruptive);
  EXPECT_EQ(r.plan.actions[2].describe(), "run ifup ib0");
}

TEST(Ifupdown, InterfacesFileThatDoesNotSourceTheSnippetsIsAnError) {
  PlanRun r(kNode);
  r.tree.file("/etc/network/interfaces", "# source /etc/network/interfaces.d/*\n");
  r.replan(Backend::kIfupdown);
  EXPECT_THAT(error_ids(r.plan), ElementsAre(kIfupdownSnippetsUnread.code));
}

TEST(Ifupdown, ForeignStanzaIsNeverOverwrittenAndPruneRemovesOnlyOurs) {
  PlanRun r(kNode);
  r.tree.file("/etc/network/interfaces", "source /etc/network/interfaces.d/*\n");
  r.tree.file("/etc/network/interfaces.d/ibsm-ib0", "iface ib0 inet manual\n");
  r.replan(Backend::kIfupdown);
  EXPECT_THAT(error_ids(r.plan), ElementsAre(kForeignObject.code));
  ASSERT_TRUE(r.tree.fs().remove("/etc/network/interfaces.d/ibsm-ib0").ok());
  r.replan(Backend::kIfupdown);
  ASSERT_TRUE(r.apply());
  r.config.ipoib[0].children.clear();
  r.replan(Backend::kIfupdown, true);
  EXPECT_THAT(described(r.plan),
              ElementsAre("run ifdown ib0.8002", "remove /etc/network/interfaces.d/ibsm-ib0-8002"));
}

TEST(Unattended, ModeSwitchWaitsWholeResourceMtuWithinTheGroupGoesAhead) {
  PlanRun r(
      "[[ipoib]]\nport = { device = \"mlx5_0\" }\nmtu = 1500\n[[ipoib.child]]\npkey = 2\n"
      "mode = \"connected\"\n");
  ASSERT_TRUE(r.apply());
  r.config.ipoib[0].mtu.bytes = 2000;                         // within 2044: safe
  r.config.ipoib[0].children[0].mode = IpoibMode::kDatagram;  // flushes paths: waits
  r.replan();
  auto report = apply_plan(r.plan, r.tree.fs(), r.kernel, {}, ApplyOptions{false, true});
  EXPECT_TRUE(report.ok());
  EXPECT_THAT(report.done, ElementsAre("set ib0 mtu 2000"));
  ASSERT_FALSE(report.waiting.empty());
  EXPECT_THAT(report.waiting[0], HasSubstr("set ib0.8002 mode datagram"));
  EXPECT_EQ(r.tree.read("/sys/class/net/ib0.8002/mode"), "connected\n");
}

TEST(Unattended, ProtectedInterfaceNeverChangesEvenWithinTheGroup) {
  PlanRun r(
      "[agent]\nprotected_interfaces = [\"ib0\"]\n[[ipoib]]\nport = { device = "
      "\"mlx5_0\" }\nmtu = 1500\n");
  auto report =
      apply_plan(r.plan, r.tree.fs(), r.kernel, protected_interfaces(r.config, r.observed),
                 ApplyOptions{true, true});  // --force is ignored when unattended
  EXPECT_TRUE(report.ok());
  EXPECT_THAT(report.waiting,
              ElementsAre(HasSubstr("set ib0 alias"), HasSubstr("set ib0 mtu 1500")));
  EXPECT_EQ(r.tree.read("/sys/class/net/ib0/mtu"), "2044\n");
}

TEST(VerifyCarrier, NoCarrierIsPendingAndAdminDownIsDrift) {
  PlanRun r("[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [2]\n");
  ASSERT_TRUE(r.apply());
  r.replan();
  EXPECT_EQ(verify_exit_code(verify(r.plan, r.observed, r.tree.fs())), 0);
  r.tree.file("/sys/class/net/ib0.8002/carrier", "0\n");
  r.replan();
  auto v = verify(r.plan, r.observed, r.tree.fs());
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].state, VerifyState::kPendingSm);
  EXPECT_THAT(v[1].reason, HasSubstr("no carrier on ib0.8002"));
  ASSERT_TRUE(r.tree.fs().remove("/sys/class/net/ib0.8002/carrier").ok());
  r.tree.file("/sys/class/net/ib0.8002/operstate", "down\n");
  r.replan();
  v = verify(r.plan, r.observed, r.tree.fs());
  EXPECT_EQ(v[1].state, VerifyState::kDrift);
}

struct TreeCli {
  testing::Tree tree;
  std::string out, err;
  TreeCli() { testing::build_host(tree); }
  int run(std::vector<std::string> args) {
    std::vector<const char*> argv{"ibsm-agent"};
    for (const auto& a : args)
      argv.push_back(a.c_str());
    std::ostringstream o, e;
    int rc = run_cli(static_cast<int>(argv.size()), argv.data(), o, e);
    out = o.str();
    err = e.str();
    return rc;
  }
  int verb(const std::string& v, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{
        v, "--root", tree.root(), "-c", tree.root() + "/node.toml", "--backend", "direct"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }
};

TEST(Cli, VerifyWaitPrintsWhatItWaitsForUntilTheSmProgramsTheKey) {
  TreeCli c;
  c.tree.file("/node.toml", "[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [6]\n");
  ASSERT_EQ(c.verb("apply"), kExitOk);
  // Each poll is a fresh verify process: the built binary, as watch runs it.
  EXPECT_EQ(c.verb("verify", {"--wait=1", "--self-exe", IBSM_AGENT_BIN}), kExitPending);
  EXPECT_THAT(c.out, HasSubstr("waiting for:\n"));
  EXPECT_THAT(c.out, HasSubstr("P_Key 0x8006 not in mlx5_0/1's table yet"));
  EXPECT_THAT(c.err, HasSubstr("IBSM-6503: still not ok after 1 s"));
  c.tree.file("/sys/class/infiniband/mlx5_0/ports/1/pkeys/4", "0x8006\n");
  EXPECT_EQ(c.verb("verify", {"--wait=30", "--self-exe", IBSM_AGENT_BIN}), kExitOk);
  EXPECT_THAT(c.out, ::testing::Not(HasSubstr("waiting for")));
}

TEST(Cli, RuntimeOnlyLeavesNetworkAndFilesToTheirOwners) {
  TreeCli c;
  c.tree.file(
      "/node.toml",
      "[[ipoib]]\nport = { device = \"mlx5_0\" }\npkeys = [2]\n"
      "[[roce]]\ndevice = \"mlx5_2\"\n[[soft_rdma]]\nname = \"rxe0\"\ntype = \"rxe\"\nnetdev = "
      "\"eth1\"\n[modules]\nrdma = [\"rdma_ucm\"]\n");
  EXPECT_EQ(c.verb("apply", {"--runtime-only"}), kExitOk);
  EXPECT_FALSE(c.tree.fs().exists("/sys/class/net/ib0.8002"));
  EXPECT_EQ(c.tree.read("/sys/kernel/config/rdma_cm/mlx5_2/ports/1/default_roce_mode"), "RoCE v2");
  EXPECT_TRUE(c.tree.fs().is_dir("/sys/class/infiniband/rxe0"));
  EXPECT_TRUE(c.tree.fs().is_dir("/sys/module/rdma_ucm"));
  EXPECT_THAT(c.tree.read("/etc/rdma/modules/rdma.conf"), ::testing::Not(HasSubstr("rdma_ucm")));
  EXPECT_EQ(c.verb("plan", {"--runtime-only"}), kExitError);
  EXPECT_THAT(c.err, HasSubstr("--runtime-only are for apply"));
}

TEST(Cli, EachVerbHasItsOwnHelpWithExitStatus) {
  TreeCli c;
  for (std::string v : {"show", "plan", "apply", "verify", "watch", "render", "test"}) {
    EXPECT_EQ(c.run({v, "--help"}), kExitOk);
    EXPECT_THAT(c.out, HasSubstr("Usage: ibsm-agent " + v)) << v;
    EXPECT_THAT(c.out, HasSubstr("Exit status: 0 ")) << v;
  }
  EXPECT_EQ(c.run({"--help"}), kExitOk);
  EXPECT_THAT(c.out, HasSubstr("Run `ibsm-agent VERB --help`"));
  EXPECT_EQ(c.run({"verify", "--help"}), kExitOk);
  EXPECT_THAT(c.out, HasSubstr("3 drift or failed"));
}

// The watch loop with scripted wake-ups.
class ScriptedEvents final : public WatchEvents {
 public:
  std::vector<WakeReason> script;
  std::size_t at = 0;
  std::function<void()> on_wait;
  WakeReason wait(std::chrono::milliseconds) override {
    if (on_wait) on_wait();
    return at < script.size() ? script[at++] : WakeReason::kStop;
  }
};

class RecordingNotifier final : public Notifier {
 public:
  std::vector<std::string> sent;
  void notify(const std::string& s) override { sent.push_back(s); }
};

TEST(Watch, PassesAtStartOnHangupOnFabricChangeAndOnInterval) {
  ScriptedEvents events;
  events.script = {WakeReason::kTimeout, WakeReason::kHangup,  WakeReason::kTimeout,
                   WakeReason::kTimeout, WakeReason::kTimeout, WakeReason::kTimeout,
                   WakeReason::kStop};
  std::string fabric = "mlx5_0/1 2: INIT sm 0x0 pkeys 0xffff\n";
  int waits = 0;
  events.on_wait = [&] {
    // The SM brings the port up (and programs a P_Key) before the third wait returns.
    if (++waits == 3) fabric = "mlx5_0/1 4: ACTIVE sm 0x1 pkeys 0xffff 0x8002\n";
  };
  RecordingNotifier notifier;
  std::vector<std::string> passes;
  int status = kExitPending;
  WatchConfig config;
  config.poll = std::chrono::milliseconds(1000);
  config.interval = std::chrono::milliseconds(3000);
  std::ostringstream log;
  int rc = run_watch(
      config, events, notifier,
      [&] {
        passes.push_back(fabric);
        return PassResult{std::exchange(status, kExitOk), "pass output\n"};
      },
      [&] { return fabric; }, log);
  EXPECT_EQ(rc, kExitOk);
  // start; SIGHUP; the fabric change; then the interval (3 polls after the last pass).
  ASSERT_EQ(passes.size(), 4u);
  EXPECT_THAT(log.str(), HasSubstr("pass (start): applied; some sections pending"));
  EXPECT_THAT(log.str(), HasSubstr("pass (SIGHUP): converged"));
  EXPECT_THAT(log.str(), ::testing::Not(HasSubstr("pass (ports changed)")));  // same output
  EXPECT_EQ(notifier.sent.front(),
            "READY=1\nSTATUS=applied; some sections pending (see the journal)");
  EXPECT_EQ(notifier.sent[1], "STATUS=converged");
  EXPECT_EQ(notifier.sent.back(), "STOPPING=1");
}

TEST(Watch, FingerprintHasStateSmLidAndProgrammedPKeys) {
  testing::Tree t;
  testing::build_host(t);
  std::string f = fabric_fingerprint(t.fs());
  EXPECT_THAT(f, HasSubstr("mlx5_0/1 4: ACTIVE sm 0x1 pkeys 0xffff 0x8002 0x0003 0x8004\n"));
  t.file("/sys/class/infiniband/mlx5_0/ports/1/pkeys/4", "0x8005\n");
  EXPECT_NE(fabric_fingerprint(t.fs()), f);
}

}  // namespace
}  // namespace ibsm::agent::service_test

namespace ibsm::agent::service_test {
namespace {

TEST(ProcessRunner, CommandsStartWithNoSignalBlockedEvenUnderWatch) {
  SignalEvents events;  // blocks SIGHUP, SIGTERM, SIGINT as watch does
  CommandResult r = ProcessRunner().run({"sh", "-c", "grep SigBlk /proc/self/status"});
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, "SigBlk:\t0000000000000000\n");
}

}  // namespace
}  // namespace ibsm::agent::service_test

namespace ibsm::agent::service_test {
namespace {

TEST(Watch, OnWakeRunsBeforeTheFirstPassAndAtEveryWake) {
  ScriptedEvents events;
  events.script = {WakeReason::kTimeout, WakeReason::kHangup, WakeReason::kStop};
  RecordingNotifier notifier;
  std::vector<std::string> seen;
  WatchConfig config;
  config.on_wake = [&] { seen.push_back("wake"); };
  std::ostringstream log;
  run_watch(
      config, events, notifier,
      [&] {
        seen.push_back("pass");
        return PassResult{kExitOk, ""};
      },
      [] { return std::string("same"); }, log);
  // start: wake, pass; timeout: wake; SIGHUP: wake, pass; the stop wakes nothing.
  EXPECT_THAT(seen, ::testing::ElementsAre("wake", "pass", "wake", "wake", "pass"));
}

TEST(SupervisedChild, StartsAgainAfterItExitsAndStopsWithSigterm) {
  testing::Tree t;
  const std::string count = t.root() + "/starts";
  std::ostringstream log;
  {
    SupervisedChild quitter({"/bin/sh", "-c", "echo x >> " + count + "; exit 3"},
                            std::chrono::milliseconds(0), log);
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (quitter.starts() < 3 && std::chrono::steady_clock::now() < end) {
      quitter.keep_running();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_GE(quitter.starts(), 3);
  }
  EXPECT_THAT(log.str(), HasSubstr("exited 3; started again"));
  // A long-running child is ended by stop(), quickly (SIGTERM, no blocked signals).
  SupervisedChild sleeper({"/bin/sleep", "30"}, std::chrono::seconds(10), log);
  sleeper.keep_running();
  ASSERT_TRUE(sleeper.running());
  const auto before = std::chrono::steady_clock::now();
  sleeper.stop();
  EXPECT_FALSE(sleeper.running());
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(4));
  // Within the backoff a child that exited is not started again.
  SupervisedChild slow({"/bin/true"}, std::chrono::seconds(60), log);
  slow.keep_running();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  slow.keep_running();
  EXPECT_EQ(slow.starts(), 1);
  EXPECT_FALSE(slow.running());
}

TEST(NodeFile, IbpingResponderIsABoolean) {
  auto c = parse_node_file("[agent]\nibping_responder = true\n", "node.toml");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->ibping_responder);
  auto bad = parse_node_file("[agent]\nibping_responder = \"yes\"\n", "node.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("node.toml:2:"));
  EXPECT_THAT(bad.error().message, HasSubstr("agent.ibping_responder: expected true or false"));
}

}  // namespace
}  // namespace ibsm::agent::service_test
