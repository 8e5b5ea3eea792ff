// LinkRecord (IBA 15.2.5.13): one record per direction of every link, from the
// port-0 LID of a switch or an end port's LID, as OpenSM's osm_sa_link_record.c
// serves them. FromLID/ToLID in a query name a node by any LID of an LMC range
// (unknown LIDs: no records); a link is reported only when the requester shares
// a partition with both ends and the ends share one with each other, each end
// judged by its own P_Key table as OpenSM does (so the cable of a limited member
// is hidden from other limited members: the switch port facing it holds only
// limited keys under partition enforcement).
#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"
#include "sa/records/topology_util.hpp"

namespace ibsm::sa {

namespace {

constexpr unsigned kBitFromLid = 0;
constexpr unsigned kBitFromPort = 1;
constexpr unsigned kBitToPort = 2;
constexpr unsigned kBitToLid = 3;

}  // namespace

HandlerResult handle_link_record(RequestContext& ctx) {
  // OpenSM answers no LinkRecord query from a LID it does not know.
  if (!ctx.requester.valid()) return HandlerResult::silent();
  const RecordLayout& layout = *find_layout(attr::kLinkRecord);
  HandlerResult r;
  r.words = layout.words();
  const auto query = ctx.query(layout.padded_size());
  const Lid from_lid = static_cast<Lid>(get_be(query, 0, 2));
  const PortNum from_port = query[2];
  const PortNum to_port = query[3];
  const Lid to_lid = static_cast<Lid>(get_be(query, 4, 2));
  std::vector<std::uint8_t> cand(layout.padded_size());

  // Emits the link from `src` to its peer, if the query selects it.
  auto link = [&](PortRef src) {
    const SnapPort& sp = ctx.snap.port(src);
    if (!sp.present || !sp.peer.valid()) return;
    const PortRef dst = sp.peer;
    if (!physp_visible(ctx, src) || !physp_visible(ctx, dst) ||
        (!ctx.trusted && !physp_share_pkey(ctx.snap, src, dst)))
      return;
    const LidRange from = lid_range(ctx.snap, src);
    const LidRange to = lid_range(ctx.snap, dst);
    if (ctx.has(kBitFromLid) && !from.contains(from_lid)) return;
    if (ctx.has(kBitToLid) && !to.contains(to_lid)) return;
    std::fill(cand.begin(), cand.end(), 0);
    put_be(cand, 0, from.base, 2);
    cand[2] = src.port;
    cand[3] = dst.port;
    put_be(cand, 4, to.base, 2);
    if (!matches_except(layout, ctx, query, cand, (1ull << kBitFromLid) | (1ull << kBitToLid)))
      return;
    auto out = r.add();
    std::copy(cand.begin(), cand.end(), out.begin());
  };
  // Every link of one node's external ports, or of the one port the query names.
  auto links_of = [&](const SnapNode& n, bool by_port, PortNum want) {
    if (by_port) {
      if (want < n.ports.size()) link(PortRef{n.index, want});
      return;
    }
    for (PortNum p = 1; p < n.ports.size(); ++p) {
      link(PortRef{n.index, p});
      if (enough(ctx, r)) return;
    }
  };

  PortRef src;
  PortRef dst;
  if (ctx.has(kBitFromLid)) {
    src = ctx.snap.find_lid(from_lid);
    if (!src.valid()) return r;
  }
  if (ctx.has(kBitToLid)) {
    dst = ctx.snap.find_lid(to_lid);
    if (!dst.valid()) return r;
  }
  if (src.valid()) {
    // With both ends named, the links between the two nodes (ToLID filters them).
    links_of(ctx.snap.node(src), !dst.valid() && ctx.has(kBitFromPort), from_port);
  } else if (dst.valid()) {
    // Links into the named node: walk its ports and report the other direction.
    const SnapNode& n = ctx.snap.node(dst);
    auto into = [&](PortNum p) {
      if (p >= n.ports.size()) return;
      const SnapPort& port = n.ports[p];
      if (port.present && port.peer.valid()) link(port.peer);
    };
    if (ctx.has(kBitToPort)) {
      into(to_port);
    } else {
      for (PortNum p = 1; p < n.ports.size() && !enough(ctx, r); ++p)
        into(p);
    }
  } else {
    for (std::uint32_t idx : nodes_in_opensm_order(ctx.snap, false)) {
      links_of(ctx.snap.nodes[idx], false, 0);
      if (enough(ctx, r)) break;
    }
  }
  return r;
}

}  // namespace ibsm::sa
