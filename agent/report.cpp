#include "agent/report.hpp"

#include <iomanip>
#include <sstream>

#include "common/json_writer.hpp"

#include "agent/ipoib_rules.hpp"
#include "common/unified_diff.hpp"

namespace ibsm::agent {
namespace {

// The documents are indented, members of an object in key order (the layout the
// agent printed with toml++'s json_formatter, whose tables sort their keys), and end
// with a new line.
std::string json_document(JsonWriter& j) {
  std::string out = std::move(j).take();
  out += '\n';
  return out;
}

void strings(JsonWriter& j, std::string_view key, const std::vector<std::string>& v) {
  j.key(key).begin_array();
  for (const auto& s : v)
    j.str(s);
  j.end_array();
}

void error_object(JsonWriter& j, const Error& e) {
  j.begin_object().field("id", format_error_id(e.id)).field("message", e.message).end_object();
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
    return text::unified_diff(a.previous.value_or(""), a.content, a.previous ? a.path : "/dev/null",
                              a.path);
  if (a.kind == ActionKind::kRemoveFile && a.previous)
    return text::unified_diff(*a.previous, "", a.path, "/dev/null");
  return "";
}

std::string render_show(const Observed& o, Format f) {
  if (f == Format::kJson) {
    JsonWriter j(JsonLayout::kIndented);
    j.begin_object().key("devices").begin_array();
    for (const auto& d : o.devices) {
      j.begin_object()
          .field("name", d.name)
          .field("node_guid", format_guid(d.node_guid))
          .field("node_type", d.node_type)
          .field("parent", d.parent)
          .key("ports")
          .begin_array();
      for (const auto& p : d.ports) {
        j.begin_object().key("gids").begin_array();
        for (const auto& g : p.gids)
          j.begin_object()
              .field("gid", g.gid)
              .field("index", g.index)
              .field("netdev", g.ndev)
              .field("type", g.type)
              .end_object();
        j.end_array()
            .field("lid", static_cast<std::int64_t>(p.lid))
            .field("link_layer", p.link_layer);
        strings(j, "netdevs", o.netdevs_on(d, p));
        j.field("phys_state", p.phys_state).key("pkeys").begin_array();
        for (const auto& e : p.pkeys)
          j.begin_object()
              .field("index", e.index)
              .field("membership", is_full_member(e.value) ? "full" : "limited")
              .field("pkey", format_pkey(e.value))
              .end_object();
        j.end_array()
            .field("port", p.number)
            .field("port_guid", format_guid(p.guid))
            .field("sm_lid", static_cast<std::int64_t>(p.sm_lid))
            .field("state", p.state)
            .end_object();
      }
      j.end_array().end_object();
    }
    j.end_array().key("ipoib").begin_array();
    for (const auto& n : o.netdevs) {
      if (!n.ipoib()) continue;
      j.begin_object()
          .field("mode", n.mode)
          .field("mtu", n.mtu)
          .field("name", n.name)
          .field("operstate", n.operstate)
          .field("parent", n.parent)
          .field("pkey", n.pkey ? format_pkey(*n.pkey) : "")
          .end_object();
    }
    j.end_array().end_object();
    return json_document(j);
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
    JsonWriter j(JsonLayout::kIndented);
    j.begin_object().key("actions").begin_array();
    for (const auto& a : plan.actions)
      j.begin_object()
          .field("change", a.describe())
          .field("diff", action_diff(a))
          .field("disruptive", a.disruptive)
          .field("kind", kind_name(a.kind))
          .field("reason", a.reason)
          .field("refused", refusal(a))
          .field("resource", a.resource)
          .end_object();
    j.end_array()
        .field("backend", plan.backend)
        .field("changes", static_cast<std::int64_t>(plan.actions.size()))
        .key("errors")
        .begin_array();
    for (const auto& e : plan.errors)
      error_object(j, e);
    j.end_array();
    strings(j, "notes", plan.notes);
    j.key("pending").begin_array();
    for (const auto& p : plan.pending) {
      j.begin_object().key("held").begin_array();
      for (const auto& a : plan.held)
        if (a.resource == p.resource) j.str(a.describe());
      j.end_array().field("reason", p.reason).field("resource", p.resource).end_object();
    }
    j.end_array().key("skipped").begin_array();
    for (const auto& p : plan.skipped)
      j.begin_object().field("reason", p.reason).field("resource", p.resource).end_object();
    j.end_array().end_object();
    return json_document(j);
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
    JsonWriter j(JsonLayout::kIndented);
    j.begin_object().field("changes", static_cast<std::int64_t>(r.done.size()));
    strings(j, "done", r.done);
    if (r.error) error_object(j.key("error"), *r.error);
    strings(j, "not_done", r.not_done);
    strings(j, "pending", r.pending);
    strings(j, "refused", r.refused);
    strings(j, "rolled_back", r.rolled_back);
    strings(j, "skipped", r.skipped);
    strings(j, "waiting", r.waiting);
    j.end_object();
    return json_document(j);
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
    JsonWriter j(JsonLayout::kIndented);
    j.begin_object().key("resources").begin_array();
    for (const auto& v : verdicts)
      j.begin_object()
          .field("reason", v.reason)
          .field("resource", v.resource)
          .field("state", state_name(v.state))
          .end_object();
    j.end_array().end_object();
    return json_document(j);
  }
  std::ostringstream os;
  for (const auto& v : verdicts)
    os << std::left << std::setw(11) << state_name(v.state) << std::setw(28) << v.resource
       << v.reason << "\n";
  return os.str();
}

}  // namespace ibsm::agent
