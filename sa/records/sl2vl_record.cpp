// SLtoVLMappingTableRecord (IBA 15.2.5.4): which VL each SL takes, as OpenSM 3.3.23
// serves it (osm_sa_slvl_record.c):
//  - an end port has one table, reported with InputPortNum and OutputPortNum 0 (the
//    ports in a query are ignored for it);
//  - a switch has one per (output port, input port) pair over ports 0..NumPorts, up
//    or down; ComponentMask bits InputPortNum and OutputPortNum narrow the pairs,
//    records come output port first, then input port;
//  - LID matches any LID of the port's LMC range; other fields are not compared;
//  - a record is listed only if the requester shares a partition with the (output)
//    port.
// The tables are what the ports hold as the SM read them once (sm/tables/port_tables.hpp);
// a pair the SM never read (a down port, port 0 of a base switch) reads 0, which is
// what OpenSM reports for every pair unless its QoS code programmed it.
#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"
#include "sa/records/table_records.hpp"

namespace ibsm::sa {

namespace {

constexpr unsigned kSl2VlBitLid = 0;
constexpr unsigned kSl2VlBitInPort = 1;
constexpr unsigned kSl2VlBitOutPort = 2;

std::uint64_t table_of(const SnapPort& out, PortNum in) {
  if (!out.vl_tables || in >= out.vl_tables->sl2vl.size()) return 0;
  return out.vl_tables->sl2vl[in];
}

void add(HandlerResult& r, Lid lid, PortNum in, PortNum out, std::uint64_t table) {
  auto rec = r.add();
  put_be(rec, 0, lid, 2);
  rec[2] = in;
  rec[3] = out;
  put_be(rec, 8, table, 8);
}

}  // namespace

HandlerResult handle_sl2vl_record(RequestContext& ctx) {
  // OpenSM answers nobody whose LID it cannot place (ERR 2603).
  if (!ctx.requester.valid()) return HandlerResult::silent();
  const RecordLayout& layout = *find_layout(attr::kSlToVlTableRecord);
  HandlerResult r;
  r.words = layout.words();
  const auto q = ctx.query(layout.padded_size());
  const Lid want_lid = static_cast<Lid>(get_be(q, 0, 2));
  for (const PortRef h : tables::holders_for(ctx, ctx.has(kSl2VlBitLid), want_lid)) {
    const SnapNode& n = ctx.snap.node(h);
    const Lid lid = tables::record_lid(ctx.snap, h);
    if (!n.is_switch()) {
      if (tables::requester_shares(ctx, h)) add(r, lid, 0, 0, table_of(ctx.snap.port(h), 0));
    } else {
      const std::size_t ports = n.ports.size();  // 0..NumPorts
      const std::size_t out_first = ctx.has(kSl2VlBitOutPort) ? q[3] : 0;
      const std::size_t out_last = ctx.has(kSl2VlBitOutPort) ? q[3] : ports - 1;
      const std::size_t in_first = ctx.has(kSl2VlBitInPort) ? q[2] : 0;
      const std::size_t in_last = ctx.has(kSl2VlBitInPort) ? q[2] : ports - 1;
      for (std::size_t out = out_first; out <= out_last && out < ports; ++out) {
        if (!tables::requester_shares(ctx, PortRef{n.index, static_cast<PortNum>(out)})) continue;
        for (std::size_t in = in_first; in <= in_last && in < ports && !enough(ctx, r); ++in) {
          add(r, lid, static_cast<PortNum>(in), static_cast<PortNum>(out),
              table_of(n.ports[out], static_cast<PortNum>(in)));
        }
        if (enough(ctx, r)) break;
      }
    }
    if (enough(ctx, r)) break;
  }
  return r;
}

}  // namespace ibsm::sa
