#include "agent/cli.hpp"

// GCC 12 reports a "potential null pointer dereference" inside Boost.Program_options'
// typed_value<std::string>::notify after inlining; it is in Boost, not here.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "agent/apply.hpp"
#include "agent/broadcast_mtu.hpp"
#include "agent/dcb.hpp"
#include "agent/errors.hpp"
#include "agent/ibping_mad.hpp"
#include "agent/netdev_reader.hpp"
#include "agent/nm_checkpoint.hpp"
#include "agent/node_file.hpp"
#include "agent/partition_fit.hpp"
#include "agent/peer_test.hpp"
#include "agent/ping_responder.hpp"
#include "agent/planner.hpp"
#include "agent/port_source.hpp"
#include "agent/render_nmstate.hpp"
#include "agent/report.hpp"
#include "agent/run_lock.hpp"
#include "agent/sa_group_source.hpp"
#include "agent/service_probe.hpp"
#include "agent/supervised_child.hpp"
#include "agent/tree_kernel.hpp"
#include "agent/verify.hpp"
#include "agent/watch.hpp"

namespace ibsm::agent {
namespace po = boost::program_options;

namespace {

struct Options {
  std::string verb = "plan";
  std::string config = "/etc/ibsm/node.toml";
  std::string root = "/";
  std::string format = "text";
  std::string backend;
  std::string port_source = "auto";
  bool force = false;
  bool prune = false;
  bool unattended = false;
  bool runtime_only = false;
  std::optional<int> wait_s;                // verify --wait[=SECONDS]
  int interval_s = 60;                      // watch: a pass at least this often
  int poll_ms = 1000;                       // watch: fingerprint polls
  std::string self_exe = "/proc/self/exe";  // what watch and verify --wait run each pass
  std::vector<std::string> peers;           // test PEER...
  std::string ca;                           // ping-responder: device (empty: the first)
  int ca_port = 0;                          // ping-responder: port (0: the first ACTIVE)
};

// What the kernel keeps only in memory, which the boot/hotplug unit re-creates.
bool runtime_action(const Action& a) {
  switch (a.kind) {
    case ActionKind::kLoadModule:
    case ActionKind::kAddRdmaLink:
    case ActionKind::kConfigfsMkdir:
      return true;
    case ActionKind::kWriteAttribute:
      return a.path.rfind("/sys/kernel/config/", 0) == 0;
    case ActionKind::kRun:  // DCB settings live in the NIC driver until it reloads
      return !a.argv.empty() && a.argv[0] == "dcb";
    default:
      return false;
  }
}

void keep_runtime_actions(Plan& plan) {
  std::vector<Action> kept;
  std::size_t left = 0;
  for (auto& a : plan.actions)
    if (runtime_action(a))
      kept.push_back(std::move(a));
    else
      ++left;
  plan.actions = std::move(kept);
  if (left)
    plan.notes.push_back(std::to_string(left) +
                         " change(s) to files left for `ibsm-agent apply` (--runtime-only)");
}

// The options a child pass (watch, verify --wait) repeats from ours.
std::vector<std::string> forwarded(const Options& o) {
  std::vector<std::string> a{"-c", o.config, "--root", o.root, "--port-source", o.port_source};
  if (!o.backend.empty()) a.insert(a.end(), {"--backend", o.backend});
  return a;
}

PassResult run_self(const Options& o, std::vector<std::string> args) {
  std::vector<std::string> argv{o.self_exe};
  argv.insert(argv.end(), args.begin(), args.end());
  auto f = forwarded(o);
  argv.insert(argv.end(), f.begin(), f.end());
  CommandResult r = ProcessRunner().run(argv);
  return {r.status, r.output};
}

// verify --wait: a fresh `verify` each second (each sees the ports anew), printing
// what is still awaited whenever that changes, until all is ok or the deadline.
int verify_wait(const Options& o, std::ostream& out, std::ostream& err) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(*o.wait_s);
  std::string awaited;
  PassResult r;
  for (;;) {
    r = run_self(o, {"verify"});
    if (r.status == kExitOk) {
      out << r.output;
      return kExitOk;
    }
    if (r.status != kExitPending && r.status != kExitDrift) {
      err << r.output;
      return r.status < 0 ? kExitError : r.status;
    }
    std::string now;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("ok ", 0) != 0) now += "  " + line + "\n";
    if (now != awaited) {
      out << "waiting for:\n" << now;
      out.flush();
      awaited = now;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  out << r.output;
  err << format_error_id(kWaitTimedOut) << ": still not ok after " << *o.wait_s << " s\n";
  return r.status;
}

// The port source --port-source names: umad (the default on /) or sysfs (under --root).
std::unique_ptr<PortSource> make_port_source(const Options& o, const Fs& fs) {
  bool live = o.root == "/";
  bool umad = o.port_source == "umad" || (o.port_source == "auto" && live);
  if (umad) return std::make_unique<UmadPortSource>(fs);
  return std::make_unique<SysfsPortSource>(fs);
}

int watch(const Options& o, bool ibping_responder, std::ostream& err) {
  SignalEvents events;
  const char* sock = std::getenv("NOTIFY_SOCKET");
  SocketNotifier notifier(sock ? sock : "");
  WatchConfig config;
  config.interval = std::chrono::seconds(o.interval_s);
  config.poll = std::chrono::milliseconds(o.poll_ms);
  // agent.ibping_responder: answer ibping beside the passes, started again if it exits.
  SupervisedChild responder({o.self_exe, "ping-responder"}, std::chrono::seconds(10), err);
  if (ibping_responder) config.on_wake = [&] { responder.keep_running(); };
  return run_watch(
      config, events, notifier,
      [&] {
        return run_self(o, {"apply", "--unattended"});
      },
      // The ports as the passes see them: through the same port source, in a fresh
      // process as a pass is (libibumad under umad2sim sees the simulated ports only as
      // they were when the process attached; sysfs under --root has none).
      [&] {
        PassResult r = run_self(o, {"fingerprint"});
        return std::to_string(r.status) + "\n" + r.output;
      },
      err);
}

// ping-responder: answer ibping until SIGTERM/SIGINT. The signals are blocked and taken
// by a waiter thread (sigwait), which sets the flag the serving loop checks each tick.
int ping_responder(const Options& o, std::ostream& out, std::ostream& err) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::atomic<bool> stop{false};
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&set, &sig);
    stop = true;
  });
  auto finish = [&](int code) {
    if (!stop.exchange(true)) pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
    return code;
  };
  UmadPingResponder responder;
  if (auto s = responder.open(o.ca, o.ca_port); !s) {
    err << to_string(s.error()) << "\n";
    return finish(kExitError);
  }
  char host[256] = {}, domain[256] = {};
  if (gethostname(host, sizeof host - 1) < 0) std::strcpy(host, "?hostname?");
  if (getdomainname(domain, sizeof domain - 1) < 0) domain[0] = 0;
  const std::string name = ibping_host_name(host, domain);
  out << "answering ibping (class 0x32, OUI 0x001405) on "
      << (o.ca.empty() ? std::string("the first port")
                       : o.ca + " port " + std::to_string(o.ca_port))
      << " as " << name << std::endl;
  unsigned long answered = 0;
  auto s = responder.serve(name, stop, 200, [&](unsigned) { ++answered; });
  out << "answered " << answered << " ibping request(s)" << std::endl;
  if (!s) {
    err << to_string(s.error()) << "\n";
    return finish(kExitError);
  }
  return finish(kExitOk);
}

// `ibsm-agent VERB --help`: what the verb does and its exit codes (ibsm-agent(8)).
const char* verb_help(const std::string& verb) {
  if (verb == "show")
    return "Usage: ibsm-agent show [--root DIR] [--port-source auto|umad|sysfs] "
           "[--format text|json]\n"
           "Lists the RDMA devices and ports (state, LIDs, P_Keys, GIDs) and the IPoIB "
           "interfaces.\n"
           "Exit status: 0 shown; 1 the ports could not be read.\n";
  if (verb == "plan")
    return "Usage: ibsm-agent plan [-c FILE] [--root DIR] [--backend B] [--prune] "
           "[--format text|json]\n"
           "Read-only: prints the changes apply would make, sections pending a fact the host "
           "does not know yet, and plan errors.\n"
           "Exit status: 0 nothing to change; 2 changes planned or a section pending; 1 "
           "node-file, observation or plan errors.\n";
  if (verb == "apply")
    return "Usage: ibsm-agent apply [-c FILE] [--root DIR] [--backend B] [--force] [--prune]\n"
           "                        [--unattended | --runtime-only] [--format text|json]\n"
           "Makes the changes plan shows. Pending sections wait; the others go ahead.\n"
           "--unattended applies only what is safe without a person (what watch runs);\n"
           "--runtime-only only what the kernel keeps in memory (the boot/hotplug unit).\n"
           "Exit status: 0 applied (or nothing to do); 2 applied, a section pending; 4 an "
           "action failed: what this apply had written or created was restored (IBSM-6505); 5 "
           "refused: a "
           "disruptive change on a protected interface needs --force; 1 errors, nothing "
           "applied.\n";
  if (verb == "verify")
    return "Usage: ibsm-agent verify [-c FILE] [--root DIR] [--wait[=SECONDS]] "
           "[--format text|json]\n"
           "Compares each resource of the node file with the live host: ok, pending-sm "
           "(port not ACTIVE, P_Key not programmed, no carrier), pending, drift, failed, "
           "skipped (the host cannot do it, e.g. a NIC without DCB; counts as ok). Deep checks: "
           "each partition's broadcast group rate and MTU against the port (from the SA, "
           "IBSM-6120), memlock in force (PAM, the group's processes, each service's MainPID), "
           "RoCE v2 GIDs, mounts.\n"
           "--wait polls until all is ok (default 300 s), printing what it waits for.\n"
           "Exit status: 0 all ok; 2 pending; 3 drift or failed; 1 errors. With --wait, the "
           "last verify's status when the deadline passed (IBSM-6503).\n";
  if (verb == "render")
    return "Usage: ibsm-agent render --format nmstate [-c FILE] [--root DIR]\n"
           "Prints the node file's IPoIB interfaces as an nmstate desired state (nmstatectl "
           "apply, the network system role).\n"
           "Exit status: 0 rendered; 1 node-file, observation or plan errors.\n";
  if (verb == "test")
    return "Usage: ibsm-agent test PEER... [-c FILE] [--format text|json]\n"
           "The guide's connection tests against each PEER (an IPoIB address): ping over each "
           "planned IPoIB interface, ibping to the peer's port (the peer runs `ibsm-agent "
           "ping-responder` or `ibping -S`), an ibv_rc_pingpong round trip over the port that "
           "reached the peer (the peer runs `ibv_rc_pingpong -d DEVICE -i PORT`), an rping "
           "round trip (the peer runs `rping -s`). Each prints a verdict and the command that "
           "reproduces it; a missing tool is skipped.\n"
           "Exit status: 0 every check passed or was skipped; 3 a check failed; 1 errors.\n";
  if (verb == "ping-responder")
    return "Usage: ibsm-agent ping-responder [--ca DEVICE] [--ca-port N]\n"
           "Answers ibping on one port, as `ibping -S` does (vendor class 0x32, OUI "
           "0x001405), with this host's name, until SIGTERM or SIGINT; for `ibsm-agent test` "
           "and ibping on other hosts. Without --ca, libibumad's first port.\n"
           "Exit status: 0 stopped by a signal; 1 the port could not be opened or the class "
           "registered (IBSM-6121).\n";
  if (verb == "watch")
    return "Usage: ibsm-agent watch [-c FILE] [--root DIR] [--backend B] [--interval SECONDS] "
           "[--poll-ms MS]\n"
           "The node service (Type=notify): an unattended apply at start, when a port's "
           "state, P_Key table or SM LID changes, on SIGHUP and every --interval (60 s). With "
           "agent.ibping_responder = true it also keeps `ping-responder` running.\n"
           "Exit status: 0 stopped by SIGTERM or SIGINT; 1 the node file is unreadable or "
           "invalid at start.\n";
  return nullptr;
}

constexpr const char* usage_text =
    "Usage: ibsm-agent [show|plan|apply|verify|watch|render|test|ping-responder] [options]\n"
    "Sets up IPoIB, RoCE and the rdma service on this host to match the node file.\n"
    "plan (the default) is read-only; apply changes the host; watch keeps it converged.\n";

Result<Observed> observe(const Options& o, const Fs& fs) {
  auto devices = make_port_source(o, fs)->devices();
  if (!devices) return fail(devices.error());
  Observed obs;
  obs.devices = std::move(*devices);
  obs.netdevs = read_netdevs(fs);
  obs.default_route_interfaces = read_default_route_interfaces(fs);
  drop_unsafe_names(obs);
  return obs;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  Options o;
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("version", "print the version")(
      "config,c", po::value<std::string>(), "node file (default /etc/ibsm/node.toml)")(
      "root", po::value<std::string>(),
      "run every file access against this tree (tests, image builds)")(
      "format", po::value<std::string>(), "text or json")(
      "backend", po::value<std::string>(),
      "override agent.backend: auto, networkmanager, networkd, ifupdown, direct")(
      "port-source", po::value<std::string>(),
      "auto (umad on /, sysfs under --root), umad or sysfs")(
      "force", po::bool_switch(&o.force), "allow disruptive changes on protected interfaces")(
      "prune", po::bool_switch(&o.prune), "remove owned objects no longer in the node file")(
      "unattended", po::bool_switch(&o.unattended),
      "apply: only what is safe without a person (what watch runs)")(
      "runtime-only", po::bool_switch(&o.runtime_only),
      "apply: only what the kernel keeps in memory (rdma links, configfs RoCE mode, "
      "module loads); no files, no network interfaces")(
      "wait", po::value<int>()->implicit_value(300),
      "verify: wait up to SECONDS (default 300) until all is ok")(
      "interval", po::value<int>(&o.interval_s), "watch: a pass at least every SECONDS (60)")(
      "poll-ms", po::value<int>(&o.poll_ms), "watch: port state polls (1000)")(
      "ca", po::value<std::string>(&o.ca), "ping-responder: RDMA device (default: the first)")(
      "ca-port", po::value<int>(&o.ca_port), "ping-responder: port number (default: the first)");
  po::options_description hidden;
  hidden.add_options()("verb", po::value<std::string>())("self-exe", po::value<std::string>())(
      "peer", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("verb", 1).add("peer", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
    for (auto [name, field] :
         {std::pair{"verb", &o.verb}, std::pair{"config", &o.config}, std::pair{"root", &o.root},
          std::pair{"format", &o.format}, std::pair{"backend", &o.backend},
          std::pair{"port-source", &o.port_source}, std::pair{"self-exe", &o.self_exe}})
      if (vm.count(name)) *field = vm[name].as<std::string>();
    if (vm.count("wait")) o.wait_s = vm["wait"].as<int>();
    if (vm.count("peer")) o.peers = vm["peer"].as<std::vector<std::string>>();
  } catch (const po::error& e) {
    err << format_error_id(kUsage) << ": " << e.what() << "\n" << usage_text;
    return kExitError;
  }
  if (vm.count("help")) {
    const char* verb = vm.count("verb") ? verb_help(o.verb) : nullptr;
    out << (verb ? verb : usage_text) << desc;
    if (!verb) out << "Run `ibsm-agent VERB --help` for a verb's exit status.\n";
    return kExitOk;
  }
  if (vm.count("version")) {
    out << "ibsm-agent 0.1.0\n";
    return kExitOk;
  }
  auto usage_error = [&](const std::string& what) {
    err << format_error_id(kUsage) << ": " << what << "\n";
    return kExitError;
  };
  if (o.verb != "show" && o.verb != "plan" && o.verb != "apply" && o.verb != "verify" &&
      o.verb != "watch" && o.verb != "render" && o.verb != "test" && o.verb != "ping-responder" &&
      o.verb != "fingerprint")
    return usage_error("unknown verb \"" + o.verb +
                       "\" (show, plan, apply, verify, watch, render, test, ping-responder)");
  if ((!o.ca.empty() || o.ca_port != 0) && o.verb != "ping-responder")
    return usage_error("--ca and --ca-port are for ping-responder");
  if (o.ca_port < 0 || o.ca_port > 254) return usage_error("--ca-port must be 0..254");
  if (!o.peers.empty() && o.verb != "test")
    return usage_error("unexpected argument \"" + o.peers.front() + "\"");
  if (o.verb == "test" && o.peers.empty()) return usage_error("test needs at least one PEER");
  if (o.verb == "render" && o.format == "text") o.format = "nmstate";
  if ((o.verb == "render") != (o.format == "nmstate"))
    return usage_error("render prints --format nmstate, and only render does");
  if (o.wait_s && (o.verb != "verify" || *o.wait_s < 0))
    return usage_error("--wait is for verify, with SECONDS >= 0");
  if ((o.unattended || o.runtime_only) && o.verb != "apply")
    return usage_error("--unattended and --runtime-only are for apply");
  if (o.interval_s < 1 || o.poll_ms < 10)
    return usage_error("--interval must be >= 1 s and --poll-ms >= 10");
  if (!o.backend.empty() && o.backend != "auto" && o.backend != "networkmanager" &&
      o.backend != "networkd" && o.backend != "ifupdown" && o.backend != "direct")
    return usage_error("--backend must be auto, networkmanager, networkd, ifupdown or direct");
  if (o.format != "text" && o.format != "json" && o.format != "nmstate")
    return usage_error("--format must be text or json (nmstate for render)");
  if (o.port_source != "auto" && o.port_source != "umad" && o.port_source != "sysfs")
    return usage_error("--port-source must be auto, umad or sysfs");
  Format fmt = o.format == "json" ? Format::kJson : Format::kText;

  RootFs fs(o.root);
  if (o.verb == "ping-responder") return ping_responder(o, out, err);
  if (o.verb == "fingerprint") {
    // watch's poll (not in the usage: an internal verb): the ports' state, LIDs and P_Key
    // tables through the port source, from a fresh process, as the passes see them.
    out << port_fingerprint(*make_port_source(o, fs));
    return kExitOk;
  }
  if (o.verb == "verify" && o.wait_s) return verify_wait(o, out, err);
  if (o.verb == "watch") {
    // Fail at start on what no pass could fix, so that systemd shows it.
    auto c = load_node_file(o.config);
    if (!c) {
      err << to_string(c.error()) << "\n";
      return kExitError;
    }
    return watch(o, c->ibping_responder, err);
  }
  auto observed = observe(o, fs);
  if (!observed) {
    err << to_string(observed.error()) << "\n";
    return kExitError;
  }
  for (const Error& w : observed->refused)
    err << "warning " << to_string(w) << "\n";
  if (o.verb == "show") {
    out << render_show(*observed, fmt);
    return kExitOk;
  }

  auto config = load_node_file(o.config);
  if (!config) {
    err << to_string(config.error()) << "\n";
    return kExitError;
  }
  if (!o.backend.empty()) {
    if (o.backend == "auto")
      config->backend = Backend::kAuto;
    else if (o.backend == "networkmanager")
      config->backend = Backend::kNetworkManager;
    else if (o.backend == "networkd")
      config->backend = Backend::kNetworkd;
    else if (o.backend == "ifupdown")
      config->backend = Backend::kIfupdown;
    else
      config->backend = Backend::kDirect;
  }
  ProcessRunner runner;
  // Which manager owns the network is decided by what runs: systemctl on the host; in a
  // --root tree, what the tree's /run says.
  RunDirProbe run_dir(fs);
  SystemctlProbe systemctl(runner, run_dir);
  const ServiceProbe& services =
      o.root == "/" ? static_cast<const ServiceProbe&>(systemctl) : run_dir;
  Backend backend = config->backend;
  std::string backend_note;
  if (backend == Backend::kAuto) {
    BackendChoice choice = detect_backend(fs, services);
    backend = choice.backend;
    backend_note = "backend " + backend_name(backend) + ": " + choice.why;
  }

  // --runtime-only (the boot/hotplug unit): the network belongs to the network service.
  if (o.runtime_only) config->ipoib.clear();

  // broadcast_mtu = "auto": ask the SA now, so that the planner stays a pure function.
  // A tree read through sysfs has no port to send from: "auto" plans with 2048 there.
  const bool ask_sa = o.root == "/" || o.port_source == "umad";
  UmadGroupMtuSource sa;
  sa.set_log(&err);
  if (ask_sa) {
    for (const Error& w : resolve_broadcast_mtus(*config, *observed, sa))
      err << "warning " << to_string(w) << "\n";
  }

  // A tree has no kernel: TreeKernel plays its visible part there.
  std::unique_ptr<Kernel> kernel;
  if (o.root == "/")
    kernel = std::make_unique<LiveKernel>(fs, runner);
  else
    kernel = std::make_unique<TreeKernel>(fs);

  // The live addresses of IPoIB interfaces and of the netdevs behind RoCE ports, for
  // verify's comparison with the plan and its RoCE v2 GID check.
  auto roce_netdev = [&](const Observed& seen, const std::string& name) {
    for (const auto& d : seen.devices)
      for (const auto& p : d.ports)
        for (const auto& g : p.gids)
          if (g.ndev == name) return true;
    return false;
  };
  for (auto& n : observed->netdevs)
    if (n.ipoib() || roce_netdev(*observed, n.name)) n.addresses = kernel->addresses(n.name);

  // $SSH_CONNECTION = "client-ip client-port server-ip server-port": the server end is ours.
  if (const char* ssh = std::getenv("SSH_CONNECTION")) {
    std::istringstream f(ssh);
    std::string client, cport, server;
    f >> client >> cport >> server;
    observed->management_interfaces = interfaces_with_address(*observed, *kernel, server);
  }

  // [roce.dcb]: what the NIC's DCB settings are now (on the host only; a tree has no NIC).
  if (o.root == "/") {
    DcbTool dcb(runner);
    for (const RoceSetting& r : config->roce) {
      const RdmaDevice* d = r.dcb ? observed->device(r.device) : nullptr;
      const PortState* p = d ? d->port(r.port) : nullptr;
      if (!p || p->infiniband()) continue;
      for (const auto& n : observed->netdevs_on(*d, *p))
        if (!observed->dcb.count(n)) observed->dcb[n] = dcb.read(n);
    }
  }

  PlanContext ctx{*config, *observed, fs, *kernel, backend, o.prune};
  Plan plan = make_plan(ctx);
  if (!backend_note.empty()) plan.notes.insert(plan.notes.begin(), backend_note);
  if (o.runtime_only) keep_runtime_actions(plan);
  auto guarded = protected_interfaces(*config, *observed);

  if (o.verb == "render") {
    if (plan.has_errors()) {
      out << render_plan(plan, guarded, Format::kText);
      return kExitError;
    }
    out << render_nmstate(plan, *config);
    return kExitOk;
  }
  if (o.verb == "test") {
    auto checks = test_peers(o.peers, plan, fs, runner);
    out << render_peer_checks(checks, fmt == Format::kJson);
    return peer_exit_code(checks);
  }
  if (o.verb == "plan") {
    out << render_plan(plan, guarded, fmt);
    if (plan.has_errors()) return kExitError;
    return plan.actions.empty() && plan.pending.empty() ? kExitOk : kExitChanges;
  }
  if (o.verb == "verify") {
    // The guide's partition check: each group's rate and MTU against the port's.
    if (ask_sa) read_group_facts(plan, *observed, sa);
    // memlock in force: what systemd has loaded for each service of the node file.
    if (config->memlock)
      for (const auto& unit : config->memlock->services)
        if (auto m = services.memlock(unit)) observed->unit_memlock[unit] = *m;
    auto verdicts = verify(plan, *observed, fs);
    out << render_verify(verdicts, fmt);
    return verify_exit_code(verdicts);
  }
  auto lock = RunLock::acquire(fs.real("/run/ibsm-agent.lock"));
  if (!lock) {
    err << to_string(lock.error()) << "\n";
    return kExitError;
  }
  ApplyOptions apply_options{o.force, o.unattended};
  BusctlCheckpointer nm_checkpoint(runner);
  if (o.root == "/" && backend == Backend::kNetworkManager)
    apply_options.checkpoint = &nm_checkpoint;
  ApplyReport report = apply_plan(plan, fs, *kernel, guarded, apply_options);
  out << render_apply(report, fmt);
  if (plan.has_errors()) {
    if (fmt == Format::kText) out << render_plan(plan, guarded, fmt);
    return kExitError;
  }
  if (!report.refused.empty()) return kExitRefused;
  if (report.error) return kExitPartial;
  return report.pending.empty() ? kExitOk : kExitPending;
}

}  // namespace ibsm::agent
