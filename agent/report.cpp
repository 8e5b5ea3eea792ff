#include "agent/report.hpp"

#include <toml++/toml.h>
#include <iomanip>
#include <sstream>

#include "agent/ipoib_rules.hpp"
#include "partitions/tool/unified_diff.hpp"

namespace ibsm::agent {
namespace {

std::string json(const toml::table& t) {
  std::ostringstream os;
  os << toml::json_formatter{t} << "\n";
  return os.str();
}

toml::array strings(const std::vector<std::string>& v) {
  toml::array a;
  for (const auto& s : v)
    a.push_back(s);
  return a;
}

std::string pkey_list(const PortState& p) {
  std::string s;
  for (const auto& e : p.pkeys)
    s += (s.empty() ? "" : " ") + std::string("[") + std::to_string(e.index) + "]" +
         format_pkey(e.value) + (is_full_member(e.value) ? " full" : " limited");
  return s.empty() ? "-" : s;
}

}  // namespace

std::string action_diff(const Action& a) {
  if (a.kind == ActionKind::kWriteFile)
    return partitions::unified_diff(a.previous.value_or(""), a.content,
                                    a.previous ? a.path : "/dev/null", a.path);
  if (a.kind == ActionKind::kRemoveFile && a.previous)
    return partitions::unified_diff(*a.previous, "", a.path, "/dev/null");
  return "";
}

std::string render_show(const Observed& o, Format f) {
  if (f == Format::kJson) {
    toml::array devices;
    for (const auto& d : o.devices) {
      toml::array ports;
      for (const auto& p : d.ports) {
        toml::array pkeys, gids;
        for (const auto& e : p.pkeys)
          pkeys.push_back(
              toml::table{{"index", e.index},
                          {"pkey", format_pkey(e.value)},
                          {"membership", is_full_member(e.value) ? "full" : "limited"}});
        for (const auto& g : p.gids)
          gids.push_back(toml::table{
              {"index", g.index}, {"gid", g.gid}, {"type", g.type}, {"netdev", g.ndev}});
        ports.push_back(toml::table{{"port", p.number},
                                    {"state", p.state},
                                    {"phys_state", p.phys_state},
                                    {"lid", static_cast<std::int64_t>(p.lid)},
                                    {"sm_lid", static_cast<std::int64_t>(p.sm_lid)},
                                    {"link_layer", p.link_layer},
                                    {"port_guid", format_guid(p.guid)},
                                    {"pkeys", pkeys},
                                    {"gids", gids},
                                    {"netdevs", strings(o.netdevs_on(d, p))}});
      }
      devices.push_back(toml::table{{"name", d.name},
                                    {"node_type", d.node_type},
                                    {"node_guid", format_guid(d.node_guid)},
                                    {"parent", d.parent},
                                    {"ports", ports}});
    }
    toml::array netdevs;
    for (const auto& n : o.netdevs) {
      if (!n.ipoib()) continue;
      netdevs.push_back(toml::table{{"name", n.name},
                                    {"mode", n.mode},
                                    {"pkey", n.pkey ? format_pkey(*n.pkey) : ""},
                                    {"parent", n.parent},
                                    {"mtu", n.mtu},
                                    {"operstate", n.operstate}});
    }
    return json(toml::table{{"devices", devices}, {"ipoib", netdevs}});
  }
  std::ostringstream os;
  os << std::left << std::setw(10) << "DEVICE" << std::setw(5) << "PORT" << std::setw(8) << "STATE"
     << std::setw(10) << "PHYS" << std::setw(6) << "LID" << std::setw(6) << "SMLID" << std::setw(11)
     << "LINK" << std::setw(20) << "PORT GUID"
     << "NETDEVS\n";
  for (const auto& d : o.devices)
    for (const auto& p : d.ports) {
      std::string nd;
      for (const auto& n : o.netdevs_on(d, p))
        nd += (nd.empty() ? "" : ",") + n;
      os << std::setw(10) << d.name << std::setw(5) << p.number << std::setw(8) << p.state
         << std::setw(10) << p.phys_state << std::setw(6) << p.lid << std::setw(6) << p.sm_lid
         << std::setw(11) << p.link_layer << std::setw(20) << format_guid(p.guid)
         << (nd.empty() ? "-" : nd) << "\n";
      os << "    pkeys: " << pkey_list(p) << "\n";
      for (const auto& g : p.gids)
        os << "    gid[" << g.index << "]: " << g.gid << (g.type.empty() ? "" : "  " + g.type)
           << (g.ndev.empty() ? "" : "  " + g.ndev) << "\n";
    }
  if (o.devices.empty()) os << "(no RDMA devices)\n";
  for (const auto& n : o.netdevs)
    if (n.ipoib())
      os << "ipoib " << n.name << ": " << (n.mode.empty() ? "?" : n.mode) << ", P_Key "
         << (n.pkey ? format_pkey(*n.pkey) : "?") << ", mtu " << n.mtu
         << (n.parent.empty() ? "" : ", parent " + n.parent) << ", " << n.operstate << "\n";
  return os.str();
}

std::string render_plan(const Plan& plan,
                        const std::map<std::string, std::string>& protected_ifaces, Format f) {
  auto refusal = [&](const Action& a) -> std::string {
    auto p = protected_ifaces.find(a.iface);
    return a.disruptive && p != protected_ifaces.end()
               ? a.iface + " " + p->second + ": needs --force"
               : "";
  };
  if (f == Format::kJson) {
    toml::array actions, errors;
    for (const auto& a : plan.actions)
      actions.push_back(toml::table{{"kind", std::string(kind_name(a.kind))},
                                    {"resource", a.resource},
                                    {"change", a.describe()},
                                    {"reason", a.reason},
                                    {"disruptive", a.disruptive},
                                    {"refused", refusal(a)},
                                    {"diff", action_diff(a)}});
    for (const auto& e : plan.errors)
      errors.push_back(toml::table{{"id", format_error_id(e.id)}, {"message", e.message}});
    toml::array pending;
    for (const auto& p : plan.pending) {
      toml::array held;
      for (const auto& a : plan.held)
        if (a.resource == p.resource) held.push_back(a.describe());
      pending.push_back(
          toml::table{{"resource", p.resource}, {"reason", p.reason}, {"held", held}});
    }
    toml::array skipped;
    for (const auto& p : plan.skipped)
      skipped.push_back(toml::table{{"resource", p.resource}, {"reason", p.reason}});
    return json(toml::table{{"backend", plan.backend},
                            {"changes", static_cast<std::int64_t>(plan.actions.size())},
                            {"actions", actions},
                            {"errors", errors},
                            {"pending", pending},
                            {"skipped", skipped},
                            {"notes", strings(plan.notes)}});
  }
  std::ostringstream os;
  os << "backend: " << plan.backend << "\n";
  for (const auto& e : plan.errors)
    os << "error " << to_string(e) << "\n";
  for (const auto& a : plan.actions) {
    os << "  " << (a.disruptive ? "! " : "+ ") << a.describe() << "  [" << a.resource << ": "
       << a.reason << "]";
    if (auto r = refusal(a); !r.empty()) os << "  REFUSED: " << r;
    os << "\n";
    std::istringstream diff(action_diff(a));
    for (std::string line; std::getline(diff, line);)
      os << "      " << line << "\n";
  }
  for (const auto& p : plan.pending) {
    os << "pending " << p.resource << ": " << p.reason << "\n";
    for (const auto& a : plan.held)
      if (a.resource == p.resource) os << "  ~ " << a.describe() << "  [waits]\n";
  }
  for (const auto& p : plan.skipped)
    os << "skipped " << p.resource << ": " << p.reason << "\n";
  for (const auto& n : plan.notes)
    os << "note: " << n << "\n";
  os << plan.actions.size() << " change(s)" << (plan.has_errors() ? ", plan has errors" : "")
     << (plan.pending.empty() ? "" : ", " + std::to_string(plan.pending.size()) + " pending")
     << "\n";
  return os.str();
}

std::string render_apply(const ApplyReport& r, Format f) {
  if (f == Format::kJson) {
    toml::table t{{"changes", static_cast<std::int64_t>(r.done.size())},
                  {"done", strings(r.done)},
                  {"not_done", strings(r.not_done)},
                  {"refused", strings(r.refused)},
                  {"pending", strings(r.pending)},
                  {"skipped", strings(r.skipped)},
                  {"waiting", strings(r.waiting)},
                  {"rolled_back", strings(r.rolled_back)}};
    if (r.error)
      t.insert("error",
               toml::table{{"id", format_error_id(r.error->id)}, {"message", r.error->message}});
    return json(t);
  }
  std::ostringstream os;
  for (const auto& d : r.done)
    os << "done: " << d << "\n";
  for (const auto& d : r.refused)
    os << "refused: " << d << "\n";
  for (const auto& d : r.not_done)
    os << "not done: " << d << "\n";
  for (const auto& d : r.pending)
    os << "pending: " << d << "\n";
  for (const auto& d : r.skipped)
    os << "skipped: " << d << "\n";
  for (const auto& d : r.waiting)
    os << "waits for apply: " << d << "\n";
  for (const auto& d : r.rolled_back)
    os << "rolled back: " << d << "\n";
  if (r.error) os << "error " << to_string(*r.error) << "\n";
  os << r.done.size() << " change(s) applied\n";
  return os.str();
}

std::string render_verify(const std::vector<Verdict>& verdicts, Format f) {
  if (f == Format::kJson) {
    toml::array a;
    for (const auto& v : verdicts)
      a.push_back(toml::table{{"resource", v.resource},
                              {"state", std::string(state_name(v.state))},
                              {"reason", v.reason}});
    return json(toml::table{{"resources", a}});
  }
  std::ostringstream os;
  for (const auto& v : verdicts)
    os << std::left << std::setw(11) << state_name(v.state) << std::setw(28) << v.resource
       << v.reason << "\n";
  return os.str();
}

}  // namespace ibsm::agent
