#include "ctl/reports.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include <spdlog/fmt/fmt.h>

#include "common/display_text.hpp"
#include "conf/opensm_conf_writer.hpp"
#include "ctl/errors.hpp"
#include "ctl/json.hpp"
#include "ctl/port_patterns.hpp"

namespace ibsm::ctl {

namespace {

using sm::ops::OpsSnapshot;
using Snap = sa::Snapshot;

std::string hex16(std::uint64_t g) {
  return fmt::format("0x{:016x}", g);
}

Answer fail_answer(ErrorId id, std::string msg) {
  return error_answer(Error{id, std::move(msg)});
}

Answer no_fabric() {
  return fail_answer(kErrNoFabric,
                     "no fabric snapshot yet: no heavy sweep has completed (or a big fabric's "
                     "snapshot is being rebuilt); retry after the next SUBNET UP");
}

std::string width_name(std::uint8_t w) {
  switch (w) {
    case 1:
      return "1X";
    case 2:
      return "4X";
    case 4:
      return "8X";
    case 8:
      return "12X";
    case 16:
      return "2X";
    default:
      return "unknown";
  }
}

// Lane speed in Gbps as OpenSM's portstatus names it ("" = unknown).
std::string speed_name(const mad::PortInfo& pi, bool ext_capable) {
  if (ext_capable && pi.link_speed_active == 4 && pi.link_speed_ext_active != 0) {
    switch (pi.link_speed_ext_active) {
      case 1:
        return "14.0625 Gbps";
      case 2:
        return "25.78125 Gbps";
      case 4:
        return "53.125 Gbps";
      case 8:
        return "106.25 Gbps";
      default:
        return "";
    }
  }
  switch (pi.link_speed_active) {
    case 1:
      return "2.5 Gbps";
    case 2:
      return "5.0 Gbps";
    case 4:
      return "10.0 Gbps";
    default:
      return "";
  }
}

constexpr std::uint32_t kCapHasExtSpeeds =
    1u << 14;  // PortInfo.CapabilityMask.IsExtendedSpeedsSupported

struct PortRefText {
  mad::Guid node_guid;
  unsigned port;
  std::string desc;
  std::string name;
};

// The name a node goes by (node_name_map_name, sm/names/): the map's, else its
// NodeDescription, as the SM's logs and dumps show it (text::display_name).
class NodeNamer {
 public:
  explicit NodeNamer(const sm::names::NodeNameMap* map) : map_(map) {}
  std::string operator()(const sa::SnapNode& n) const {
    const std::string* mapped = nullptr;
    if (map_ != nullptr) {
      const auto it = map_->entries().find(n.guid());
      if (it != map_->entries().end()) mapped = &it->second;
    }
    return text::display_name(mapped, n.description);
  }

 private:
  const sm::names::NodeNameMap* map_;
};

// --- status -------------------------------------------------------------------------

Answer status(const OpsSnapshot& s, const sm::ops::EventBus& events) {
  Answer a;
  std::string& t = a.text;
  const auto ev = events.stats();
  t += fmt::format("   ibsm version         : {}\n", s.version);
  t += fmt::format("   SM State             : {}\n", mad::sm_state_name(s.state));
  t += fmt::format("   SM Priority          : {}\n", s.priority);
  t += fmt::format("   SM Port GUID         : {}\n", hex16(s.port_guid));
  t += fmt::format("   SA State             : {}\n",
                   s.state == mad::SmState::kMaster ? "Ready" : "Not Ready");
  t += fmt::format("   Routing Engine       : {}{}\n",
                   s.routing.engine.empty() ? "(none yet)" : s.routing.engine,
                   s.routing.fallback ? " (fallback)" : "");
  t += fmt::format("   Sweeping             : {} (interval {} s), phase {}\n",
                   s.sweeping_enabled ? "enabled" : "DISABLED", s.sweep_interval_s, s.phase);
  t += fmt::format("   Sweeps               : {} ({} heavy)\n", s.sweeps, s.heavy_sweeps);
  t += fmt::format("   Status               : {}\n", s.status_line);
  t += "\n   Known SMs\n   Port GUID          SM State     Priority\n";
  t += fmt::format("   {} {:<12} {:<8} SELF\n", hex16(s.port_guid), mad::sm_state_name(s.state),
                   s.priority);
  for (const auto& o : s.other_sms)
    t += fmt::format("   {} {:<12} {:<8} LID {}{}\n", hex16(o.guid), mad::sm_state_name(o.state),
                     o.priority, o.lid, o.answered ? "" : " (not answering)");
  t += "\n   MAD stats\n";
  t += fmt::format(
      "   SMPs sent            : {}\n   SMPs received        : {}\n"
      "   SMP timeouts         : {}\n   SMP retries          : {}\n"
      "   SA MADs received     : {}\n   SA MADs answered     : {}\n",
      s.smp.sent, s.smp.received, s.smp.timeouts, s.smp.retries, s.sa.received, s.sa.answered);
  if (!s.recent_sweeps.empty()) {
    t += "\n   Last sweeps\n";
    const std::size_t from = s.recent_sweeps.size() > 5 ? s.recent_sweeps.size() - 5 : 0;
    for (std::size_t i = from; i < s.recent_sweeps.size(); ++i) {
      const auto& r = s.recent_sweeps[i];
      t += fmt::format("   #{} {} ({}) {:.3f} s, MADs {}, {}\n", r.number,
                       sm::ops::sweep_kind_name(r.kind), r.reason, r.seconds, r.mads.sent,
                       r.standby     ? "standby"
                       : r.subnet_up ? "up"
                                     : "problems");
    }
  }
  t += fmt::format(
      "\n   Events               : {} emitted, {} dropped by slow readers, {} readers\n",
      ev.emitted, ev.dropped, ev.subscribers);
  t += "\n";
  JsonWriter j;
  j.begin_object()
      .field("version", s.version)
      .field("sm_state", mad::sm_state_name(s.state))
      .field("priority", s.priority)
      .field("port_guid", hex16(s.port_guid))
      .field("sm_lid", s.sm_lid)
      .field("sa_ready", s.state == mad::SmState::kMaster)
      .field("sweeping", s.sweeping_enabled)
      .field("sweep_interval_s", s.sweep_interval_s)
      .field("phase", s.phase)
      .field("sweeps", s.sweeps)
      .field("heavy_sweeps", s.heavy_sweeps)
      .field("status_line", s.status_line);
  j.key("routing")
      .begin_object()
      .field("engine", s.routing.engine)
      .field("fallback", s.routing.fallback)
      .field("ms", s.routing.ms)
      .field("graded", s.routing.graded)
      .field("pairs", s.routing.pairs)
      .field("unreachable", s.routing.unreachable)
      .field("loops", s.routing.loops)
      .field("acyclic", s.routing.acyclic)
      .field("max_efi", s.routing.max_efi)
      .field("mean_efi", s.routing.mean_efi)
      .end_object();
  j.key("sms").begin_array();
  for (const auto& o : s.other_sms)
    j.begin_object()
        .field("guid", hex16(o.guid))
        .field("lid", o.lid)
        .field("priority", o.priority)
        .field("state", mad::sm_state_name(o.state))
        .field("answered", o.answered)
        .end_object();
  j.end_array();
  j.key("mads")
      .begin_object()
      .field("smp_sent", s.smp.sent)
      .field("smp_received", s.smp.received)
      .field("smp_timeouts", s.smp.timeouts)
      .field("smp_retries", s.smp.retries)
      .field("sa_received", s.sa.received)
      .field("sa_answered", s.sa.answered)
      .field("sa_errors", s.sa.errors)
      .end_object();
  j.key("recent_sweeps").begin_array();
  for (const auto& r : s.recent_sweeps)
    j.begin_object()
        .field("sweep", r.number)
        .field("kind", sm::ops::sweep_kind_name(r.kind))
        .field("reason", r.reason)
        .field("seconds", r.seconds)
        .field("mads_sent", r.mads.sent)
        .field("subnet_up", r.subnet_up)
        .field("standby", r.standby)
        .field("problems", r.problems)
        .end_object();
  j.end_array();
  j.key("events")
      .begin_object()
      .field("emitted", ev.emitted)
      .field("dropped", ev.dropped)
      .field("readers", ev.subscribers)
      .end_object();
  j.end_object();
  a.json = j.text();
  return a;
}

// --- querylid -----------------------------------------------------------------------

Answer querylid(const Snap& f, const NodeNamer& name_of, mad::Lid lid) {
  const sa::PortRef r = f.find_lid(lid);
  if (!r.valid())
    return fail_answer(kErrNotFound, fmt::format("Invalid lid {}: no port holds it", lid));
  const sa::PortRef holder = f.lid_holder(r);
  const sa::SnapNode& n = f.node(holder);
  const sa::SnapPort& p = f.port(holder);
  Answer a;
  a.text = fmt::format(
      "Query results for LID {}\n   GUID                : {}\n"
      "   Node GUID           : {}\n   Node Desc           : {}\n"
      "   Node Name           : {}\n"
      "   Node Type           : {}\n   Num Ports           : {}\n"
      "   Base LID / LMC      : {} / {}\n",
      lid, hex16(p.guid), hex16(n.guid()), n.description, name_of(n),
      mad::node_type_name(n.info.node_type), n.info.num_ports, p.lid, p.lmc);
  JsonWriter j;
  j.begin_object()
      .field("lid", lid)
      .field("port_guid", hex16(p.guid))
      .field("node_guid", hex16(n.guid()))
      .field("node_desc", n.description)
      .field("node_name", name_of(n))
      .field("node_type", mad::node_type_name(n.info.node_type))
      .field("num_ports", n.info.num_ports)
      .field("base_lid", p.lid)
      .field("lmc", p.lmc);
  j.key("ports").begin_array();
  for (const sa::SnapPort& q : n.ports) {
    if (!q.present) continue;
    if (!n.is_switch() && q.num == 0) continue;
    const bool healthy = q.info.port_state != mad::PortState::kDown || q.num == 0;
    a.text += fmt::format("   Port {} state        : {} ({}), {} {}\n", q.num,
                          mad::port_state_name(q.info.port_state),
                          q.info.phys_state == mad::PhysState::kDisabled ? "disabled"
                          : healthy                                      ? "OK"
                                                                         : "down",
                          width_name(q.info.link_width_active), speed_name(q.info, true));
    j.begin_object()
        .field("port", q.num)
        .field("state", mad::port_state_name(q.info.port_state))
        .field("phys_state", static_cast<unsigned>(q.info.phys_state))
        .field("width", width_name(q.info.link_width_active))
        .field("speed", speed_name(q.info, true))
        .end_object();
  }
  j.end_array().end_object();
  a.json = j.text();
  return a;
}

// --- portstatus ---------------------------------------------------------------------

Answer portstatus(const Snap& f, const NodeNamer& name_of, const std::string& type) {
  mad::NodeType lim = mad::NodeType::kUnknown;
  if (type == "ca") lim = mad::NodeType::kCa;
  if (type == "switch") lim = mad::NodeType::kSwitch;
  if (type == "router") lim = mad::NodeType::kRouter;
  std::uint64_t nodes = 0, ports = 0, down = 0, active = 0, init = 0, armed = 0;
  std::map<std::string, std::uint64_t> widths, speeds;
  std::map<std::string, std::vector<PortRefText>> issues;
  for (const sa::SnapNode& n : f.nodes) {
    if (lim != mad::NodeType::kUnknown && n.info.node_type != lim) continue;
    ++nodes;
    const bool ext = n.is_switch() && !n.ports.empty() && n.ports[0].present
                         ? (n.ports[0].info.capability_mask & kCapHasExtSpeeds) != 0
                         : false;
    for (const sa::SnapPort& p : n.ports) {
      if (p.num == 0 || !p.present) continue;
      const auto& pi = p.info;
      const bool has_ext = n.is_switch() ? ext : (pi.capability_mask & kCapHasExtSpeeds) != 0;
      ++ports;
      PortRefText where{n.guid(), p.num, n.description, name_of(n)};
      switch (pi.port_state) {
        case mad::PortState::kDown:
          ++down;
          break;
        case mad::PortState::kActive:
          ++active;
          break;
        case mad::PortState::kInit:
          ++init;
          break;
        case mad::PortState::kArmed:
          ++armed;
          break;
        default:
          break;
      }
      if (pi.phys_state == mad::PhysState::kDisabled) issues["disabled"].push_back(where);
      if (pi.port_state == mad::PortState::kDown) continue;
      if (!(pi.link_width_active & pi.link_width_enabled))
        issues["with unenabled width"].push_back(where);
      else if ((pi.link_width_enabled ^ pi.link_width_active) > pi.link_width_active)
        issues["with reduced width"].push_back(where);
      if (!(pi.link_speed_active & pi.link_speed_enabled))
        issues["with unenabled speed"].push_back(where);
      else if ((pi.link_speed_enabled ^ pi.link_speed_active) > pi.link_speed_active)
        issues["with reduced speed"].push_back(where);
      const std::string w = width_name(pi.link_width_active);
      if (w == "unknown")
        issues["with unknown width"].push_back(where);
      else
        ++widths[w];
      const std::string sp = speed_name(pi, has_ext);
      if (sp.empty())
        issues["with unknown speed"].push_back(where);
      else
        ++speeds[sp];
    }
  }
  Answer a;
  const std::string label = type.empty()       ? "ALL"
                            : type == "ca"     ? "CA"
                            : type == "switch" ? "Switch"
                                               : "Router";
  a.text =
      fmt::format("\"{}\" port status:\n   {} port(s) scanned on {} nodes\n", label, ports, nodes);
  if (down) a.text += fmt::format("   {} down\n", down);
  if (init) a.text += fmt::format("   {} init\n", init);
  if (armed) a.text += fmt::format("   {} armed\n", armed);
  if (active) a.text += fmt::format("   {} active\n", active);
  for (const char* w : {"1X", "2X", "4X", "8X", "12X"})
    if (widths.contains(w)) a.text += fmt::format("   {} at {}\n", widths[w], w);
  for (const auto& [sp, n] : speeds)
    a.text += fmt::format("   {} at {}\n", n, sp);
  if (!issues.empty()) a.text += "\nPossible issues:\n";
  for (const auto& [what, list] : issues) {
    a.text += fmt::format("   {} {}\n", list.size(), what);
    for (const auto& r : list)
      a.text += fmt::format("      {} {} ({})\n", hex16(r.node_guid), r.port, r.name);
  }
  a.text += "\n";
  JsonWriter j;
  j.begin_object().field("type", label).field("nodes", nodes).field("ports", ports);
  j.key("states")
      .begin_object()
      .field("down", down)
      .field("init", init)
      .field("armed", armed)
      .field("active", active)
      .end_object();
  j.key("widths").begin_object();
  for (const auto& [w, n] : widths)
    j.field(w, n);
  j.end_object().key("speeds").begin_object();
  for (const auto& [sp, n] : speeds)
    j.field(sp, n);
  j.end_object().key("issues").begin_object();
  for (const auto& [what, list] : issues) {
    j.key(what).begin_array();
    for (const auto& r : list)
      j.begin_object()
          .field("node_guid", hex16(r.node_guid))
          .field("port", r.port)
          .field("node_desc", r.desc)
          .field("node_name", r.name)
          .end_object();
    j.end_array();
  }
  j.end_object().end_object();
  a.json = j.text();
  return a;
}

// --- switchbalance / lidbalance -----------------------------------------------------

// LIDs of end ports (CAs, routers), every LID of their LMC range.
std::vector<std::pair<mad::Lid, sa::PortRef>> end_port_lids(const Snap& f) {
  std::vector<std::pair<mad::Lid, sa::PortRef>> out;
  for (std::uint32_t i = 0; i < f.nodes.size(); ++i) {
    const sa::SnapNode& n = f.nodes[i];
    if (n.is_switch()) continue;
    for (const sa::SnapPort& p : n.ports) {
      if (!p.present || p.lid == 0) continue;
      for (unsigned k = 0; k < (1u << p.lmc); ++k)
        out.push_back({static_cast<mad::Lid>(p.lid + k), sa::PortRef{i, p.num}});
    }
  }
  return out;
}

bool peer_is_switch(const Snap& f, const sa::SnapPort& p) {
  return p.peer.valid() && f.nodes[p.peer.node].is_switch();
}

void switch_balance(const Snap& f, const NodeNamer& name_of, const sa::SnapNode& sw, bool verbose,
                    const std::vector<std::pair<mad::Lid, sa::PortRef>>& lids, Answer& a,
                    JsonWriter& j) {
  std::vector<std::uint32_t> count(256, 0);
  for (const auto& [lid, ref] : lids)
    if (lid < sw.lft.size() && sw.lft[lid] != 0xFF) ++count[sw.lft[lid]];
  std::vector<unsigned> outs;
  std::uint32_t mn = UINT32_MAX, mx = 0;
  for (const sa::SnapPort& p : sw.ports) {
    if (p.num == 0 || !p.present || p.info.port_state == mad::PortState::kDown) continue;
    if (!peer_is_switch(f, p)) continue;
    outs.push_back(p.num);
    mn = std::min(mn, count[p.num]);
    mx = std::max(mx, count[p.num]);
  }
  const bool unbalanced = !outs.empty() && mx - mn > 1;
  j.begin_object()
      .field("guid", hex16(sw.guid()))
      .field("node_desc", sw.description)
      .field("node_name", name_of(sw))
      .field("unbalanced", unbalanced)
      .field("min", outs.empty() ? 0 : mn)
      .field("max", mx);
  j.key("ports").begin_array();
  for (unsigned p : outs)
    j.begin_object().field("port", p).field("lids", count[p]).end_object();
  j.end_array().end_object();
  if (!verbose && !unbalanced) return;
  a.text += fmt::format("{}Switch: {} ({})\n", unbalanced ? "Unbalanced " : "", hex16(sw.guid()),
                        name_of(sw));
  for (unsigned p : outs)
    a.text += fmt::format("Port {}: {}\n", p, count[p]);
}

Answer switchbalance(const Snap& f, const NodeNamer& name_of, const Command& cmd) {
  Answer a;
  JsonWriter j;
  const auto lids = end_port_lids(f);
  j.begin_object().key("switches").begin_array();
  bool found = !cmd.guid;
  for (const sa::SnapNode& n : f.nodes) {
    if (!n.is_switch()) continue;
    if (cmd.guid && n.guid() != *cmd.guid) continue;
    found = true;
    switch_balance(f, name_of, n, cmd.flag, lids, a, j);
  }
  j.end_array().end_object();
  if (!found)
    return fail_answer(kErrNotFound,
                       fmt::format("guid {} not found among the switches", hex16(*cmd.guid)));
  a.json = j.text();
  return a;
}

Answer lidbalance(const Snap& f, const NodeNamer& name_of, const Command& cmd) {
  Answer a;
  JsonWriter j;
  j.begin_object().key("findings").begin_array();
  bool found = !cmd.guid;
  for (const sa::SnapNode& sw : f.nodes) {
    if (!sw.is_switch()) continue;
    if (cmd.guid && sw.guid() != *cmd.guid) continue;
    found = true;
    for (std::uint32_t i = 0; i < f.nodes.size(); ++i) {
      const sa::SnapNode& n = f.nodes[i];
      if (n.is_switch()) continue;
      for (const sa::SnapPort& ep : n.ports) {
        if (!ep.present || ep.lid == 0) continue;
        std::map<unsigned, std::uint32_t> by_port;
        std::map<mad::Guid, std::uint32_t> by_next;
        std::map<mad::Guid, std::string> next_name;
        for (unsigned k = 0; k < (1u << ep.lmc); ++k) {
          const mad::Lid lid = static_cast<mad::Lid>(ep.lid + k);
          if (lid >= sw.lft.size() || sw.lft[lid] == 0xFF) continue;
          const unsigned out = sw.lft[lid];
          if (out >= sw.ports.size()) continue;
          const sa::SnapPort& op = sw.ports[out];
          if (!op.present || !op.peer.valid()) continue;
          const sa::SnapNode& next = f.nodes[op.peer.node];
          ++by_port[out];
          ++by_next[next.guid()];
          next_name[next.guid()] = name_of(next);
        }
        if (by_next.empty()) continue;
        auto spread = [](const auto& m) {
          std::uint32_t lo = UINT32_MAX, hi = 0;
          for (const auto& [k, v] : m) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
          }
          return hi - lo;
        };
        const char* kind = n.info.node_type == mad::NodeType::kRouter ? "Router" : "CA";
        // OpenSM prints NodeDescriptions; ibsm the node-name map's names where it has one.
        const std::string sw_name = name_of(sw), node_name = name_of(n);
        auto finding = [&](std::string_view what) {
          j.begin_object()
              .field("kind", what)
              .field("switch", hex16(sw.guid()))
              .field("node", hex16(n.guid()))
              .field("port", ep.num)
              .field("switch_desc", sw.description)
              .field("switch_name", sw_name)
              .field("node_desc", n.description)
              .field("node_name", node_name)
              .end_object();
        };
        if (spread(by_next) > 1) {
          a.text += fmt::format("Unbalanced Remote Forwarding: Switch {} ({}): {} {} ({}): ",
                                hex16(sw.guid()), sw_name, kind, hex16(n.guid()), node_name);
          for (const auto& [g, c] : by_next)
            a.text += fmt::format("Dest {}({}) - {} ", hex16(g), next_name[g], c);
          a.text += "\n";
          finding("remote");
        }
        if (spread(by_port) > 1) {
          a.text += fmt::format("Unbalanced Port Forwarding: Switch {} ({}): {} {} ({}): ",
                                hex16(sw.guid()), sw_name, kind, hex16(n.guid()), node_name);
          for (const auto& [p, c] : by_port)
            a.text += fmt::format("Port {} - {}: ", p, c);
          a.text += "\n";
          finding("port");
        }
      }
    }
  }
  j.end_array().end_object();
  if (!found)
    return fail_answer(kErrNotFound, fmt::format("switchguid {} not found", hex16(*cmd.guid)));
  a.json = j.text();
  return a;
}

// --- dump_portguid ------------------------------------------------------------------

Answer dump_portguid(const Snap& f, const Command& cmd) {
  // RE2 (ctl/port_patterns.hpp): linear time, bounded memory; and a bound on the time
  // the whole request may take, checked every 256 nodes.
  auto patterns = DescriptionPatterns::compile(cmd.patterns);
  if (!patterns) return fail_answer(patterns.error().id, patterns.error().message);
  const auto deadline = std::chrono::steady_clock::now() + kPatternTime;
  std::size_t looked = 0;
  Answer a;
  JsonWriter j;
  j.begin_object().key("port_guids").begin_array();
  std::set<mad::Guid> seen;
  for (const sa::SnapNode& n : f.nodes) {
    if (++looked % 256 == 0 && std::chrono::steady_clock::now() > deadline)
      return fail_answer(kErrPattern,
                         fmt::format("matching took more than {} ms ({} of {} nodes); use fewer "
                                     "or simpler patterns",
                                     kPatternTime.count(), looked, f.nodes.size()));
    if (!patterns->matches(n.description)) continue;
    for (const sa::SnapPort& p : n.ports) {
      if (!p.present || p.guid == 0 || !seen.insert(p.guid).second) continue;
      a.text += hex16(p.guid) + "\n";
      j.str(hex16(p.guid));
    }
  }
  j.end_array().end_object();
  a.json = j.text();
  return a;
}

// --- routes -------------------------------------------------------------------------

std::optional<sa::PortRef> resolve(const Snap& f, const Command::Endpoint& e) {
  if (!e.is_guid) {
    auto r = f.find_lid(static_cast<mad::Lid>(e.value));
    if (!r.valid()) return std::nullopt;
    return f.lid_holder(r);
  }
  if (auto r = f.find_port_guid(e.value); r.valid()) return f.lid_holder(r);
  if (auto it = f.by_node_guid.find(e.value); it != f.by_node_guid.end()) {
    const sa::SnapNode& n = f.nodes[it->second];
    for (const sa::SnapPort& p : n.ports)
      if (p.present && (n.is_switch() ? p.num == 0 : p.lid != 0))
        return sa::PortRef{it->second, p.num};
  }
  return std::nullopt;
}

Answer routes(const OpsSnapshot& s, const Snap& f, const NodeNamer& name_of, const Command& cmd) {
  Answer a;
  JsonWriter j;
  const auto& r = s.routing;
  j.begin_object();
  j.key("report")
      .begin_object()
      .field("engine", r.engine)
      .field("fallback", r.fallback)
      .field("ms", r.ms)
      .field("graded", r.graded)
      .field("pairs", r.pairs)
      .field("unreachable", r.unreachable)
      .field("loops", r.loops)
      .field("acyclic", r.acyclic)
      .field("max_efi", r.max_efi)
      .field("mean_efi", r.mean_efi)
      .end_object();
  a.text =
      fmt::format("Routing engine {}{} ({:.1f} ms)\n", r.engine.empty() ? "(none yet)" : r.engine,
                  r.fallback ? " (fallback)" : "", r.ms);
  if (r.graded)
    a.text += fmt::format("   pairs {} unreachable {} (loops {}), CDG {}, EFI max {} mean {:.1f}\n",
                          r.pairs, r.unreachable, r.loops, r.acyclic ? "acyclic" : "CYCLIC",
                          r.max_efi, r.mean_efi);
  else
    a.text += "   route report not graded yet\n";
  if (!cmd.dest) {
    j.end_object();
    a.json = j.text();
    return a;
  }
  auto dst = resolve(f, *cmd.dest);
  if (!dst) return fail_answer(kErrNotFound, fmt::format("destination {} not found", cmd.args[0]));
  std::optional<sa::PortRef> src =
      cmd.source
          ? resolve(f, *cmd.source)
          : std::optional<sa::PortRef>(f.sm_port.valid() ? f.lid_holder(f.sm_port) : sa::PortRef{});
  if (!src || !src->valid())
    return fail_answer(kErrNotFound, cmd.source
                                         ? fmt::format("source {} not found", cmd.args[1])
                                         : std::string("the SM's own port is not in the snapshot"));
  const mad::Lid dlid = f.port(*dst).lid;
  const sa::SnapNode& dst_node = f.node(*dst);
  const sa::SnapNode& src_node = f.node(*src);
  a.text += fmt::format("Path from {} ({}) to LID {} ({}):\n", hex16(f.port(*src).guid),
                        name_of(src_node), dlid, name_of(dst_node));
  j.field("dlid", dlid);
  j.key("source")
      .begin_object()
      .field("port_guid", hex16(f.port(*src).guid))
      .field("node_guid", hex16(src_node.guid()))
      .field("node_desc", src_node.description)
      .field("node_name", name_of(src_node))
      .end_object();
  j.key("dest")
      .begin_object()
      .field("port_guid", hex16(f.port(*dst).guid))
      .field("node_guid", hex16(dst_node.guid()))
      .field("port", dst->port)
      .field("node_desc", dst_node.description)
      .field("node_name", name_of(dst_node))
      .end_object();
  j.key("hops").begin_array();
  sa::PortRef at = *src;
  bool delivered = false;
  std::string why;
  for (int hop = 0; hop < 64; ++hop) {
    const sa::SnapNode& n = f.nodes[at.node];
    if (at.node == dst->node) {
      delivered = true;
      break;
    }
    unsigned out = 0;
    if (n.is_switch()) {
      if (dlid >= n.lft.size() || n.lft[dlid] == 0xFF) {
        why = "no LFT entry";
        break;
      }
      out = n.lft[dlid];
    } else {
      out = at.port;
    }
    if (out >= n.ports.size() || !n.ports[out].present || !n.ports[out].peer.valid()) {
      why = fmt::format("port {} has no link", out);
      break;
    }
    a.text += fmt::format("   [{}] {} ({}) out port {}\n", hop, hex16(n.guid()), name_of(n), out);
    j.begin_object()
        .field("hop", hop)
        .field("node_guid", hex16(n.guid()))
        .field("node_desc", n.description)
        .field("node_name", name_of(n))
        .field("out_port", out)
        .end_object();
    at = n.ports[out].peer;
    if (hop == 63) why = "more than 64 hops (a forwarding loop)";
  }
  j.end_array().field("delivered", delivered);
  if (!why.empty()) j.field("problem", why);
  j.end_object();
  a.text += delivered ? fmt::format("   delivered to {} ({}) port {}\n", hex16(dst_node.guid()),
                                    name_of(dst_node), dst->port)
                      : fmt::format("   NOT DELIVERED: {}\n", why);
  a.json = j.text();
  return a;
}

// --- partitions ---------------------------------------------------------------------

Answer partitions(const OpsSnapshot& s, const Snap* f, const NodeNamer& name_of) {
  Answer a;
  JsonWriter j;
  const auto& p = s.partitions;
  j.begin_object()
      .field("file", p.file)
      .field("ok", p.ok)
      .field("partitions", p.partitions)
      .field("when", sm::ops::format_utc(p.when));
  j.key("errors").begin_array();
  for (const auto& e : p.errors)
    j.str(e);
  j.end_array();
  a.text = fmt::format("partitions.conf {}: {} at {} ({} partitions)\n", p.file,
                       p.ok ? "read" : "IN ERROR, last good one in force",
                       sm::ops::format_utc(p.when), p.partitions);
  for (const auto& e : p.errors)
    a.text += "   " + e + "\n";
  j.key("ports").begin_array();
  if (f != nullptr) {
    for (const sa::SnapNode& n : f->nodes)
      for (const sa::SnapPort& q : n.ports) {
        if (!q.present || q.pkeys.empty()) continue;
        if (n.is_switch() && q.num != 0)
          continue;  // inter-switch tables are not the partition view
        std::string keys;
        j.begin_object()
            .field("port_guid", hex16(q.guid))
            .field("port", q.num)
            .field("lid", q.lid)
            .field("node_desc", n.description)
            .field("node_name", name_of(n))
            .key("pkeys")
            .begin_array();
        for (std::uint16_t k : q.pkeys) {
          if ((k & 0x7fff) == 0) continue;
          keys += fmt::format(" 0x{:04x}", k);
          j.str(fmt::format("0x{:04x}", k));
        }
        j.end_array().end_object();
        a.text += fmt::format("   {} port {} LID {} ({}):{}\n", hex16(q.guid), q.num, q.lid,
                              name_of(n), keys);
      }
  }
  j.end_array().end_object();
  a.json = j.text();
  return a;
}

// --- events (history) ---------------------------------------------------------------

Answer events_history(const sm::ops::EventBus& bus, std::size_t n) {
  Answer a;
  JsonWriter j;
  j.begin_object().key("events").begin_array();
  for (const auto& e : bus.history(n)) {
    a.text += sm::ops::encode_text(*e) + "\n";
    j.raw(sm::ops::encode_json(*e));
  }
  j.end_array().end_object();
  a.json = j.text();
  return a;
}

// --- node_names -----------------------------------------------------------------------

Answer node_names(const sm::names::NodeNameMap* map) {
  Answer a;
  JsonWriter j;
  const std::string source = map ? map->source() : std::string();
  j.begin_object().field("source", source).field("names", map ? map->size() : 0);
  j.key("entries").begin_array();
  if (source.empty())
    a.text =
        "No node name map in force (node_name_map_name unset and "
        "/etc/opensm/ib-node-name-map absent): nodes go by their NodeDescription\n";
  else
    a.text = fmt::format("Node name map {}: {} names\n", source, map->size());
  if (map) {
    std::vector<std::pair<std::uint64_t, std::string>> sorted(map->entries().begin(),
                                                              map->entries().end());
    std::ranges::sort(sorted);
    for (const auto& [guid, name] : sorted) {
      a.text += fmt::format("   {} \"{}\"\n", hex16(guid), name);
      j.begin_object().field("guid", hex16(guid)).field("name", name).end_object();
    }
    for (const std::string& w : map->warnings())
      a.text += "   warning: " + w + "\n";
  }
  j.end_array().end_object();
  a.json = j.text();
  return a;
}

Answer simple(std::string text, std::string_view key, const std::string& value) {
  Answer a;
  a.text = std::move(text);
  JsonWriter j;
  j.begin_object().field(key, value).end_object();
  a.json = j.text();
  return a;
}

}  // namespace

Answer error_answer(const Error& e) {
  Answer a;
  a.ok = false;
  a.error = e.id;
  a.text = format_error_id(e.id) + ": " + e.message + "\n";
  return a;
}

Answer answer_help(const Command& cmd) {
  Answer a;
  JsonWriter j;
  j.begin_object().key("commands").begin_array();
  if (cmd.word.empty()) a.text = "Supported commands and syntax:\n";
  for (const CommandSpec& s : command_specs()) {
    if (!cmd.word.empty() && s.name != cmd.word) continue;
    a.text += cmd.word.empty()
                  ? fmt::format("{}\n", s.syntax)
                  : fmt::format("{}\n   {}{}\n", s.syntax, s.help, s.ibsm_only ? " (ibsm)" : "");
    j.begin_object()
        .field("name", s.name)
        .field("syntax", s.syntax)
        .field("help", s.help)
        .field("ibsm_only", s.ibsm_only)
        .end_object();
  }
  j.end_array().end_object();
  a.json = j.text();
  return a;
}

bool is_secret_option(std::string_view key) {
  auto has = [&](std::string_view w) { return key.find(w) != std::string_view::npos; };
  return key.ends_with("_key") || key == "key" || has("secret") || has("password") || has("passwd");
}

std::string redact_secrets(std::string_view conf_text) {
  std::string out;
  out.reserve(conf_text.size());
  while (!conf_text.empty()) {
    const auto nl = conf_text.find('\n');
    std::string_view line = conf_text.substr(0, nl);
    conf_text.remove_prefix(nl == std::string_view::npos ? conf_text.size() : nl + 1);
    // "key value" or "#ibsm: key value"; other comments and blank lines pass.
    std::string_view body = line;
    std::string_view lead;
    if (body.starts_with("#ibsm:")) {
      const auto k = body.find_first_not_of(" \t", 6);
      lead = body.substr(0, k == std::string_view::npos ? body.size() : k);
      body.remove_prefix(lead.size());
    }
    const auto sp = body.find_first_of(" \t");
    const std::string_view key = body.substr(0, sp);
    if (!body.starts_with("#") && sp != std::string_view::npos && is_secret_option(key)) {
      out.append(lead).append(key).append(" <redacted>");
    } else {
      out.append(line);
    }
    if (nl != std::string_view::npos) out += '\n';
  }
  return out;
}

Answer answer_read_only(const Command& cmd, const OpsSnapshot& s, const sm::ops::EventBus& events,
                        bool sees_secrets) {
  const Snap* f = s.fabric.get();
  const NodeNamer name_of(s.node_names.get());
  switch (cmd.id) {
    case CommandId::kHelp:
      return answer_help(cmd);
    case CommandId::kVersion:
      return simple("ibsm " + s.version + "\n", "version", s.version);
    case CommandId::kStatus:
      return status(s, events);
    case CommandId::kLogLevel: {
      const unsigned v = s.options ? s.options->log_flags : 0;
      Answer a = simple(fmt::format("Current log level is 0x{:x}\n", v), "log_level",
                        fmt::format("0x{:02x}", v));
      return a;
    }
    case CommandId::kPriority:
      return simple(fmt::format("Current sm-priority is {}\n", s.priority), "priority",
                    std::to_string(s.priority));
    case CommandId::kQueryLid:
      return f ? querylid(*f, name_of, static_cast<mad::Lid>(*cmd.number)) : no_fabric();
    case CommandId::kPortStatus:
      return f ? portstatus(*f, name_of, cmd.word) : no_fabric();
    case CommandId::kSwitchBalance:
      return f ? switchbalance(*f, name_of, cmd) : no_fabric();
    case CommandId::kLidBalance:
      return f ? lidbalance(*f, name_of, cmd) : no_fabric();
    case CommandId::kDumpPortGuid:
      return f ? dump_portguid(*f, cmd) : no_fabric();
    case CommandId::kRoutes:
      return f ? routes(s, *f, name_of, cmd) : no_fabric();
    case CommandId::kPartitions:
      return partitions(s, f, name_of);
    case CommandId::kDumpConf: {
      if (!s.options) return no_fabric();
      std::string text = conf::write_opensm_conf(*s.options);
      if (!sees_secrets) text = redact_secrets(text);
      return simple(text, "opensm_conf", text);
    }
    case CommandId::kEvents:
      return events_history(events, cmd.number.value_or(20));
    case CommandId::kNodeNames:
      return node_names(s.node_names.get());
    default:
      return fail_answer(kErrUnknownCommand, "command needs the SM's thread");
  }
}

}  // namespace ibsm::ctl
