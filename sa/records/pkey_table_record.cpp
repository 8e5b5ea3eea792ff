// P_KeyTableRecord (IBA 15.2.5.11): the P_Key tables of end ports and of every port
// of a switch, one record per 32-entry block, as OpenSM 3.3.23 serves them
// (osm_sa_pkey_record.c):
//  - only for trusted requesters (15.2.5.11 restricts the record to trusted requests):
//    any other SM_Key gets ERR_REQ_INVALID;
//  - ComponentMask selects LID (any LID of the port's LMC range), BlockNum and PortNum;
//    for an end port the port is always its own, whatever the query says; other
//    fields are not compared;
//  - the blocks a port has are those of the table the SM read from it (PartitionCap,
//    or PartitionEnforcementCap for switch external ports). A block beyond them has no
//    record: OpenSM returns an all-zero record there, which its own source marks as
//    wrong (IBA: no such block, no record);
//  - a port is listed only if the requester shares a partition with it.
#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"
#include "sa/records/table_records.hpp"

namespace ibsm::sa {

namespace {

constexpr unsigned kPKeyTableBitLid = 0;
constexpr unsigned kPKeyTableBitBlock = 1;
constexpr unsigned kPKeyTableBitPort = 2;
constexpr std::size_t kPKeysPerBlock = 32;

// BlockNum leaves in little-endian byte order. IBA says big-endian, and OpenSM reads
// the query's BlockNum that way, but its answer stores the host-order number (no
// cl_hton16 in sa_pkey_create): on x86, block 1 is the bytes 01 00. saquery prints
// the field without swapping, so with OpenSM it shows the right block and with a
// big-endian answer block 1 as 256. The clients that read this record were written
// against OpenSM's form, so ibsm sends that form.
void put_block_num(std::span<std::uint8_t> rec, std::size_t block) {
  rec[2] = static_cast<std::uint8_t>(block & 0xff);
  rec[3] = static_cast<std::uint8_t>(block >> 8);
}

void add_block(HandlerResult& r, Lid lid, const SnapPort& port, std::size_t block) {
  auto rec = r.add();
  put_be(rec, 0, lid, 2);
  put_block_num(rec, block);
  rec[4] = port.num;
  for (std::size_t e = 0; e < kPKeysPerBlock; ++e) {
    const std::size_t at = block * kPKeysPerBlock + e;
    put_be(rec, 8 + 2 * e, at < port.pkeys.size() ? port.pkeys[at] : 0, 2);
  }
}

}  // namespace

HandlerResult handle_pkey_table_record(RequestContext& ctx) {
  if (!ctx.trusted) return HandlerResult::error(status::kReqInvalid);
  // OpenSM answers nobody whose LID it cannot place (ERR 4604).
  if (!ctx.requester.valid()) return HandlerResult::silent();
  const RecordLayout& layout = *find_layout(attr::kPKeyTableRecord);
  HandlerResult r;
  r.words = layout.words();
  const auto q = ctx.query(layout.padded_size());
  const auto want_block = static_cast<std::size_t>(get_be(q, 2, 2));
  const auto consider_port = [&](const SnapNode& n, Lid lid, PortNum num) {
    if (!tables::port_exists(n, num)) return;
    if (!tables::requester_shares(ctx, PortRef{n.index, num})) return;
    const SnapPort& port = n.ports[num];
    const std::size_t blocks = (port.pkeys.size() + kPKeysPerBlock - 1) / kPKeysPerBlock;
    if (ctx.has(kPKeyTableBitBlock)) {
      if (want_block < blocks) add_block(r, lid, port, want_block);
      return;
    }
    for (std::size_t b = 0; b < blocks && !enough(ctx, r); ++b)
      add_block(r, lid, port, b);
  };
  const Lid want_lid = static_cast<Lid>(get_be(q, 0, 2));
  for (const PortRef h : tables::holders_for(ctx, ctx.has(kPKeyTableBitLid), want_lid)) {
    const SnapNode& n = ctx.snap.node(h);
    const Lid lid = tables::record_lid(ctx.snap, h);
    if (!n.is_switch()) {
      consider_port(n, lid, h.port);
    } else if (ctx.has(kPKeyTableBitPort)) {
      consider_port(n, lid, q[4]);
    } else {
      for (std::size_t p = 0; p < n.ports.size() && !enough(ctx, r); ++p)
        consider_port(n, lid, static_cast<PortNum>(p));
    }
    if (enough(ctx, r)) break;
  }
  return r;
}

}  // namespace ibsm::sa
