// routes: the route report (engine, grading) and, with a destination, the path from a
// source traced hop by hop through the switches' LFTs in the snapshot.
#include <optional>
#include <string>

#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "ctl/errors.hpp"
#include "ctl/reports/families.hpp"

namespace ibsm::ctl::reports {

namespace {

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

}  // namespace

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

}  // namespace ibsm::ctl::reports
