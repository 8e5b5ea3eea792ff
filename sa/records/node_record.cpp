// NodeRecord (IBA 15.2.5.2): NodeInfo and NodeDescription of every node, one
// record per CA/router port (that port's LID, PortGUID, LocalPortNum) and one per
// switch (port 0), as OpenSM's osm_sa_node_record.c. A LID in the query matches
// any LID of the port's LMC range.
#include <cstring>

#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"

namespace ibsm::sa {

namespace {
constexpr unsigned kNodeBitLid = 0;
}

void fill_node_record(const Snapshot& snap, PortRef p, std::span<std::uint8_t> rec) {
  const SnapNode& n = snap.node(p);
  const SnapPort& port = snap.port(p);
  put_be(rec, 0, port.lid, 2);
  mad::NodeInfo info = n.info;
  info.port_guid = port.guid;
  info.local_port_num = p.port;
  embed(rec, 4, info, 40);
  std::memcpy(rec.data() + 44, n.description.data(),
              std::min<std::size_t>(n.description.size(), 64));
}

HandlerResult handle_node_record(RequestContext& ctx) {
  const RecordLayout& layout = *find_layout(attr::kNodeRecord);
  HandlerResult r;
  r.words = layout.words();
  const auto query = ctx.query(layout.padded_size());
  const Lid want_lid = static_cast<Lid>(get_be(query, 0, 2));
  std::vector<std::uint8_t> cand(layout.padded_size());
  auto consider = [&](PortRef p) {
    const SnapPort& port = ctx.snap.port(p);
    if (ctx.has(kNodeBitLid) && !lid_in_range(want_lid, port.lid, port.lmc)) return;
    if (!visible(ctx, p)) return;
    std::fill(cand.begin(), cand.end(), 0);
    fill_node_record(ctx.snap, p, cand);
    if (!matches_except(layout, ctx, query, cand, 1ull << kNodeBitLid)) return;
    auto out = r.add();
    std::copy(cand.begin(), cand.end(), out.begin());
  };
  if (ctx.has(kNodeBitLid)) {  // the common narrow query: one port by LID
    const PortRef p = ctx.snap.find_lid(want_lid);
    if (p.valid()) consider(p);
    return r;
  }
  for (const SnapNode& n : ctx.snap.nodes) {
    for (const SnapPort& port : n.ports) {
      if (!port.present || (n.is_switch() ? port.num != 0 : port.num == 0)) continue;
      consider(PortRef{n.index, port.num});
      if (enough(ctx, r)) return r;
    }
  }
  return r;
}

}  // namespace ibsm::sa
