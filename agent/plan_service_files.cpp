// The rdma service's files: rdma-core module lists, memlock limits, the NFS over
// RDMA drop-in and udev names for IPoIB parents.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "agent/errors.hpp"
#include "agent/ipoib_rules.hpp"
#include "agent/kernel_support.hpp"
#include "agent/owned_file.hpp"
#include "agent/planner.hpp"
#include "agent/service_probe.hpp"

namespace ibsm::agent {

// Module lists are conffiles shipped by rdma-core: the agent appends the missing
// modules below one marked line, keeping a copy of the original.
void plan_modules(const PlanContext& ctx, Plan& plan) {
  std::map<std::string, std::vector<std::string>> lists;
  for (const ModuleList& l : ctx.config.modules)
    for (const auto& m : l.modules)
      lists[l.list].push_back(m);
  if (ctx.config.nfs && ctx.config.nfs->server) lists["rdma"].push_back("svcrdma");
  if (ctx.config.nfs && ctx.config.nfs->client) lists["rdma"].push_back("xprtrdma");
  const std::string marker = "# Added by ibsm-agent from the node file:";
  for (auto& [list, modules] : lists) {
    std::string resource = "modules " + list;
    plan.resources.push_back(resource);
    std::string path = "/etc/rdma/modules/" + list + ".conf";
    std::string text = ctx.fs.read(path).value_or("");
    std::set<std::string> present;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      std::string t = trim(line);
      if (!t.empty() && t[0] != '#' && t[0] != ';') present.insert(t);
    }
    std::vector<std::string> missing;
    for (const auto& m : modules) {
      if (!module_available(ctx.fs, m))
        plan.errors.push_back(Error{kKernelSupportMissing, resource + ": kernel module " + m +
                                                               " is neither loaded nor installed"});
      else if (!present.count(m) && std::find(missing.begin(), missing.end(), m) == missing.end())
        missing.push_back(m);
      if (module_available(ctx.fs, m) && !module_loaded(ctx.fs, m)) {
        Action l;
        l.kind = ActionKind::kLoadModule;
        l.resource = resource;
        l.value = m;
        l.reason = "not loaded";
        plan.actions.push_back(l);
      }
    }
    if (missing.empty()) continue;
    std::optional<std::string> before = ctx.fs.read(path);
    if (!text.empty() && text.back() != '\n') text += "\n";
    if (text.find(marker) == std::string::npos) text += marker + "\n";
    for (const auto& m : missing)
      text += m + "\n";
    Action a;
    a.kind = ActionKind::kWriteFile;
    a.resource = resource;
    a.path = path;
    a.content = text;
    a.backup = ctx.fs.exists(path);
    a.previous = before;
    std::string names;
    for (const auto& m : missing)
      names += (names.empty() ? "" : ", ") + m;
    a.reason = "not listed: " + names;
    plan.actions.push_back(a);
    // rdma-core loads the list with rdma-load-modules@<list>.service (systemd-modules-load)
    // at hardware detection: run it again so that the changed list is what is in force.
    if (ctx.fs.exists("/lib/systemd/system/rdma-load-modules@.service") ||
        ctx.fs.exists("/usr/lib/systemd/system/rdma-load-modules@.service")) {
      Action r;
      r.kind = ActionKind::kRun;
      r.resource = resource;
      r.argv = {"systemctl", "restart", "rdma-load-modules@" + list + ".service"};
      r.reason = list + ".conf changed";
      plan.actions.push_back(std::move(r));
    }
  }
}

void plan_memlock(const PlanContext& ctx, Plan& plan) {
  const auto& m = ctx.config.memlock;
  if (!m) return;
  plan.memlock = m;
  std::string content = file_header() + "# Lets members of " + m->group +
                        " pin memory for RDMA (limits.conf(5); effective at the next login).\n" +
                        "@" + m->group + " soft memlock " + m->soft + "\n" + "@" + m->group +
                        " hard memlock " + m->hard + "\n";
  plan_owned_file(plan, ctx.fs, "memlock " + m->group,
                  "/etc/security/limits.d/90-ibsm-agent-memlock.conf", content, 0644, kFileMarker);
  // limits.d is read by pam_limits at login; a service's limit is its unit's LimitMEMLOCK=
  // (bytes; limits.conf counts KiB).
  const std::string limit = m->hard == "unlimited" ? "infinity" : m->hard + "K";
  bool written = false;
  for (const auto& unit : m->services) {
    std::size_t before = plan.actions.size();
    plan_owned_file(plan, ctx.fs, "memlock " + unit,
                    "/etc/systemd/system/" + unit + ".d/90-ibsm-agent-memlock.conf",
                    file_header() + "# RDMA pins memory: " + unit + " may lock " +
                        (m->hard == "unlimited" ? "any amount" : m->hard + " KiB") +
                        " (systemd.exec(5)); effective at its next restart.\n[Service]\n"
                        "LimitMEMLOCK=" +
                        limit + "\n",
                    0644, kFileMarker);
    written = written || plan.actions.size() > before;
  }
  if (written) {
    Action a;
    a.kind = ActionKind::kRun;
    a.resource = "memlock " + m->services.front();
    a.argv = {"systemctl", "daemon-reload"};
    a.reason = "LimitMEMLOCK drop-ins changed";
    plan.actions.push_back(std::move(a));
  }
}

namespace {

// The default zone's permanent configuration: /etc/firewalld/zones/<zone>.xml, else the
// shipped one (which opens nothing for NFS over RDMA).
std::string firewalld_zone_xml(const Fs& fs) {
  std::string zone = "public";
  std::istringstream conf(fs.read("/etc/firewalld/firewalld.conf").value_or(""));
  for (std::string line; std::getline(conf, line);)
    if (line.rfind("DefaultZone=", 0) == 0) zone = trim(line.substr(12));
  if (auto x = fs.read("/etc/firewalld/zones/" + zone + ".xml")) return *x;
  return fs.read("/usr/lib/firewalld/zones/" + zone + ".xml").value_or("");
}

bool zone_opens(const std::string& xml, int port, const std::string& proto) {
  const std::string p = "port=\"" + std::to_string(port) + "\"";
  for (std::size_t at = xml.find("<port "); at != std::string::npos;
       at = xml.find("<port ", at + 1)) {
    std::string tag = xml.substr(at, xml.find('>', at) - at);
    if (tag.find(p) != std::string::npos &&
        tag.find("protocol=\"" + proto + "\"") != std::string::npos)
      return true;
  }
  return false;
}

}  // namespace

// The guide opens NFS over RDMA's port through firewalld (tcp and udp) when firewalld
// runs; the permanent rule is read from the zone file, the change made with firewall-cmd.
static void plan_nfs_firewall(const PlanContext& ctx, const NfsRdma& n, Plan& plan) {
  if (!RunDirProbe(ctx.fs).active("firewalld.service")) return;
  plan.resources.push_back("nfs_rdma firewall");
  std::string xml = firewalld_zone_xml(ctx.fs);
  std::vector<std::string> add{"firewall-cmd", "--permanent"};
  std::string missing;
  for (const char* proto : {"tcp", "udp"})
    if (!zone_opens(xml, n.port, proto)) {
      add.push_back("--add-port=" + std::to_string(n.port) + "/" + proto);
      missing += (missing.empty() ? "" : ", ") + std::to_string(n.port) + "/" + proto;
    }
  if (missing.empty()) return;
  for (auto argv : {add, std::vector<std::string>{"firewall-cmd", "--reload"}}) {
    Action a;
    a.kind = ActionKind::kRun;
    a.resource = "nfs_rdma firewall";
    a.argv = argv;
    a.reason = "firewalld does not open " + missing;
    plan.actions.push_back(std::move(a));
  }
}

std::string mount_unit_name(const std::string& where) {
  std::string path = where.substr(1);
  std::string out;
  char hex[5];
  for (std::size_t i = 0; i < path.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(path[i]);
    if (c == '/') {
      out += '-';
    } else if (std::isalnum(c) || c == '_' || (c == '.' && i != 0 && path[i - 1] != '/')) {
      out += static_cast<char>(c);
    } else {
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out + ".mount";
}

// Client mounts as systemd mount units with proto=rdma (the guide's client step);
// a new unit is enabled and started, a changed one restarted (disruptive: it unmounts).
static void plan_nfs_mounts(const PlanContext& ctx, const NfsRdma& n, Plan& plan) {
  bool reloaded = false;
  for (const NfsMount& m : n.mounts) {
    const std::string unit = mount_unit_name(m.where);
    const std::string path = "/etc/systemd/system/" + unit;
    const std::string resource = "nfs_rdma mount " + m.where;
    std::string options = "proto=rdma,port=" + std::to_string(n.port);
    for (const auto& o : m.options)
      options += "," + o;
    std::string content = file_header() + "[Unit]\nDescription=NFS over RDMA: " + m.what +
                          "\nWants=network-online.target\nAfter=network-online.target "
                          "rdma-hw.target\n\n[Mount]\nWhat=" +
                          m.what + "\nWhere=" + m.where + "\nType=nfs\nOptions=" + options +
                          "\n\n[Install]\nWantedBy=remote-fs.target\n";
    bool existed = ctx.fs.exists(path);
    std::size_t before = plan.actions.size();
    plan_owned_file(plan, ctx.fs, resource, path, content, 0644, kFileMarker);
    if (plan.actions.size() == before) continue;
    auto run = [&](std::vector<std::string> argv, std::string reason, bool disruptive) {
      Action a;
      a.kind = ActionKind::kRun;
      a.resource = resource;
      a.argv = std::move(argv);
      a.reason = std::move(reason);
      a.disruptive = disruptive;
      plan.actions.push_back(std::move(a));
    };
    if (!reloaded) run({"systemctl", "daemon-reload"}, "mount unit written", false);
    reloaded = true;
    if (existed)
      run({"systemctl", "restart", unit}, "mount options changed: remount", true);
    else
      run({"systemctl", "enable", "--now", unit}, "new mount", false);
  }
}

void plan_nfs(const PlanContext& ctx, Plan& plan) {
  const auto& n = ctx.config.nfs;
  if (!n) return;
  plan_nfs_mounts(ctx, *n, plan);
  if (!n->server) return;
  // rpc.nfsd reads rdma-port only when rdma is also true (nfs-utils configure_listeners).
  std::string content =
      file_header() + "[nfsd]\nrdma=y\nrdma-port=" + std::to_string(n->port) + "\n";
  std::size_t before = plan.actions.size();
  plan_owned_file(plan, ctx.fs, "nfs_rdma server", "/etc/nfs.conf.d/90-ibsm-agent-rdma.conf",
                  content, 0644, kFileMarker);
  // rpc.nfsd reads nfs.conf at start only: restart the server when its configuration
  // changed, and only if it runs (try-restart).
  if (plan.actions.size() > before) {
    Action a;
    a.kind = ActionKind::kRun;
    a.resource = "nfs_rdma server";
    a.argv = {"systemctl", "try-restart", "nfs-server.service"};
    a.reason = "nfs.conf drop-in changed";
    plan.actions.push_back(std::move(a));
  }
  plan_nfs_firewall(ctx, *n, plan);
}

void plan_udev_names(const PlanContext& ctx, const std::vector<ResolvedIface>& ifaces, Plan& plan) {
  std::string rules;
  for (std::size_t i = 0; i < ctx.config.ipoib.size(); ++i) {
    const IpoibInterface& want = ctx.config.ipoib[i];
    if (!want.persistent_name) continue;
    auto it = std::find_if(ifaces.begin(), ifaces.end(), [&](const ResolvedIface& r) {
      return r.parent.empty() && (want.name.empty() || r.name == want.name);
    });
    const PortState* port = nullptr;
    if (it != ifaces.end())
      if (const RdmaDevice* d = ctx.observed.device(it->device)) port = d->port(it->port);
    if (!port || want.name.empty()) {
      if (want.name.empty())
        plan.errors.push_back(Error{
            kNodeFileBadValue, "ipoib[" + std::to_string(i) + "]: persistent_name needs name"});
      continue;
    }
    // Match the last 8 bytes (the port GUID) only: bytes 1-11 hold QPN and subnet prefix.
    std::string g = format_guid(port->guid).substr(2);
    std::string mac;
    for (std::size_t b = 0; b < 16; b += 2)
      mac += ":" + g.substr(b, 2);
    rules +=
        "ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
        "ATTR{address}==\"?*" +
        mac + "\", NAME=\"" + want.name + "\"\n";
  }
  if (rules.empty()) return;
  plan_owned_file(plan, ctx.fs, "udev ipoib names", "/etc/udev/rules.d/70-ibsm-agent-ipoib.rules",
                  file_header() + rules, 0644, kFileMarker);
}

}  // namespace ibsm::agent
