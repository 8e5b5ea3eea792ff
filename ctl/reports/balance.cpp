// switchbalance and lidbalance: how evenly the switches spread the end ports' LIDs over
// their inter-switch ports (per port), and one end port's LMC range over the ports and
// next switches (per LID), as OpenSM's console reports them.
#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "ctl/errors.hpp"
#include "ctl/reports/families.hpp"

namespace ibsm::ctl::reports {

namespace {

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

}  // namespace

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

}  // namespace ibsm::ctl::reports
