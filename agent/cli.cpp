#include "agent/cli.hpp"

// GCC 12 reports a "potential null pointer dereference" inside Boost.Program_options'
// typed_value<std::string>::notify after inlining; it is in Boost, not here.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <boost/program_options.hpp>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "agent/apply.hpp"
#include "agent/broadcast_mtu.hpp"
#include "agent/errors.hpp"
#include "agent/netdev_reader.hpp"
#include "agent/node_file.hpp"
#include "agent/planner.hpp"
#include "agent/port_source.hpp"
#include "agent/report.hpp"
#include "agent/run_lock.hpp"
#include "agent/sa_group_source.hpp"
#include "agent/tree_kernel.hpp"
#include "agent/verify.hpp"

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
};

constexpr const char* usage_text =
    "Usage: ibsm-agent [show|plan|apply|verify] [options]\n"
    "Sets up IPoIB, RoCE and the rdma service on this host to match the node file.\n"
    "plan (the default) is read-only; apply changes the host.\n";

Result<Observed> observe(const Options& o, const Fs& fs) {
  bool live = o.root == "/";
  bool umad = o.port_source == "umad" || (o.port_source == "auto" && live);
  std::unique_ptr<PortSource> ports;
  if (umad)
    ports = std::make_unique<UmadPortSource>(fs);
  else
    ports = std::make_unique<SysfsPortSource>(fs);
  auto devices = ports->devices();
  if (!devices) return fail(devices.error());
  Observed obs;
  obs.devices = std::move(*devices);
  obs.netdevs = read_netdevs(fs);
  obs.default_route_interfaces = read_default_route_interfaces(fs);
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
      "override agent.backend: auto, networkmanager, networkd, direct")(
      "port-source", po::value<std::string>(),
      "auto (umad on /, sysfs under --root), umad or sysfs")(
      "force", po::bool_switch(&o.force), "allow disruptive changes on protected interfaces")(
      "prune", po::bool_switch(&o.prune), "remove owned objects no longer in the node file");
  po::options_description hidden;
  hidden.add_options()("verb", po::value<std::string>());
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("verb", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
    for (auto [name, field] :
         {std::pair{"verb", &o.verb}, std::pair{"config", &o.config}, std::pair{"root", &o.root},
          std::pair{"format", &o.format}, std::pair{"backend", &o.backend},
          std::pair{"port-source", &o.port_source}})
      if (vm.count(name)) *field = vm[name].as<std::string>();
  } catch (const po::error& e) {
    err << format_error_id(kUsage) << ": " << e.what() << "\n" << usage_text;
    return kExitError;
  }
  if (vm.count("help")) {
    out << usage_text << desc;
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
  if (o.verb != "show" && o.verb != "plan" && o.verb != "apply" && o.verb != "verify")
    return usage_error("unknown verb \"" + o.verb + "\" (show, plan, apply, verify)");
  if (o.format != "text" && o.format != "json") return usage_error("--format must be text or json");
  if (o.port_source != "auto" && o.port_source != "umad" && o.port_source != "sysfs")
    return usage_error("--port-source must be auto, umad or sysfs");
  Format fmt = o.format == "json" ? Format::kJson : Format::kText;

  RootFs fs(o.root);
  auto observed = observe(o, fs);
  if (!observed) {
    err << to_string(observed.error()) << "\n";
    return kExitError;
  }
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
    else if (o.backend == "direct")
      config->backend = Backend::kDirect;
    else
      return usage_error("--backend must be auto, networkmanager, networkd or direct");
  }
  Backend backend = config->backend == Backend::kAuto ? detect_backend(fs) : config->backend;

  // broadcast_mtu = "auto": ask the SA now, so that the planner stays a pure function.
  // A tree read through sysfs has no port to send from: "auto" plans with 2048 there.
  if (o.root == "/" || o.port_source == "umad") {
    UmadGroupMtuSource sa;
    for (const Error& w : resolve_broadcast_mtus(*config, *observed, sa))
      err << "warning " << to_string(w) << "\n";
  }

  // A tree has no kernel: TreeKernel plays its visible part there.
  ProcessRunner runner;
  std::unique_ptr<Kernel> kernel;
  if (o.root == "/")
    kernel = std::make_unique<LiveKernel>(fs, runner);
  else
    kernel = std::make_unique<TreeKernel>(fs);

  // $SSH_CONNECTION = "client-ip client-port server-ip server-port": the server end is ours.
  if (const char* ssh = std::getenv("SSH_CONNECTION")) {
    std::istringstream f(ssh);
    std::string client, cport, server;
    f >> client >> cport >> server;
    observed->management_interfaces = interfaces_with_address(*observed, *kernel, server);
  }

  PlanContext ctx{*config, *observed, fs, *kernel, backend, o.prune};
  Plan plan = make_plan(ctx);
  auto guarded = protected_interfaces(*config, *observed);

  if (o.verb == "plan") {
    out << render_plan(plan, guarded, fmt);
    if (plan.has_errors()) return kExitError;
    return plan.actions.empty() ? kExitOk : kExitChanges;
  }
  if (o.verb == "verify") {
    auto verdicts = verify(plan, *observed, fs);
    out << render_verify(verdicts, fmt);
    return verify_exit_code(verdicts);
  }
  auto lock = RunLock::acquire(fs.real("/run/ibsm-agent.lock"));
  if (!lock) {
    err << to_string(lock.error()) << "\n";
    return kExitError;
  }
  ApplyReport report = apply_plan(plan, fs, *kernel, guarded, o.force);
  out << render_apply(report, fmt);
  if (plan.has_errors()) {
    if (fmt == Format::kText) out << render_plan(plan, guarded, fmt);
    return kExitError;
  }
  if (!report.refused.empty()) return kExitRefused;
  return report.error ? kExitPartial : kExitOk;
}

}  // namespace ibsm::agent
