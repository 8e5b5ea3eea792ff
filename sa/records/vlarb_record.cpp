// VLArbitrationTableRecord (IBA 15.2.5.9): how a port's output shares the link among
// VLs, blocks 1-4 (low priority entries 0-31 and 32-63, high priority 0-31 and
// 32-63), as OpenSM 3.3.23 serves it (osm_sa_vlarb_record.c):
//  - every port has the four blocks listed, whatever its capabilities (blocks it does
//    not implement read 0); BlockNum in the ComponentMask picks one (only 1-4 exist);
//  - an end port is always its own port; a switch lists ports 0..NumPorts, or the one
//    OutputPortNum names;
//  - LID matches any LID of the port's LMC range; other fields are not compared;
//  - a port is listed only if the requester shares a partition with it.
// The blocks are what the ports hold as the SM read them once (sm/tables/port_tables.hpp).
#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"
#include "sa/records/table_records.hpp"

namespace ibsm::sa {

namespace {

constexpr unsigned kVlArbBitLid = 0;
constexpr unsigned kVlArbBitOutPort = 1;
constexpr unsigned kVlArbBitBlock = 2;
constexpr unsigned kBlocks = 4;

void add(HandlerResult& r, Lid lid, const SnapPort& port, unsigned block) {
  auto rec = r.add();
  put_be(rec, 0, lid, 2);
  rec[2] = port.num;
  rec[3] = static_cast<std::uint8_t>(block);
  if (!port.vl_tables) return;
  const auto& t = port.vl_tables->vlarb[block - 1];
  std::copy(t.begin(), t.end(), rec.begin() + 8);
}

}  // namespace

HandlerResult handle_vlarb_record(RequestContext& ctx) {
  // OpenSM answers nobody whose LID it cannot place (ERR 2A04).
  if (!ctx.requester.valid()) return HandlerResult::silent();
  const RecordLayout& layout = *find_layout(attr::kVlArbTableRecord);
  HandlerResult r;
  r.words = layout.words();
  const auto q = ctx.query(layout.padded_size());
  const auto consider_port = [&](const SnapNode& n, Lid lid, PortNum num) {
    if (!tables::port_exists(n, num)) return;
    if (!tables::requester_shares(ctx, PortRef{n.index, num})) return;
    for (unsigned b = 1; b <= kBlocks && !enough(ctx, r); ++b) {
      if (!ctx.has(kVlArbBitBlock) || b == q[3]) add(r, lid, n.ports[num], b);
    }
  };
  const Lid want_lid = static_cast<Lid>(get_be(q, 0, 2));
  for (const PortRef h : tables::holders_for(ctx, ctx.has(kVlArbBitLid), want_lid)) {
    const SnapNode& n = ctx.snap.node(h);
    const Lid lid = tables::record_lid(ctx.snap, h);
    if (!n.is_switch()) {
      consider_port(n, lid, h.port);
    } else if (ctx.has(kVlArbBitOutPort)) {
      consider_port(n, lid, q[2]);
    } else {
      for (std::size_t p = 0; p < n.ports.size() && !enough(ctx, r); ++p)
        consider_port(n, lid, static_cast<PortNum>(p));
    }
    if (enough(ctx, r)) break;
  }
  return r;
}

}  // namespace ibsm::sa
