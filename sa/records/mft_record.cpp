// MulticastForwardingTableRecord (IBA 15.2.5.8): the MFT of every switch in blocks
// of 32 MLIDs by 16 ports, as OpenSM's osm_sa_mft_record.c serves it: only
// switches with a multicast table (MulticastFDBCap > 0) that forward some MLID,
// blocks 0 up to the last in use, every position the switch's ports need, keyed
// by the switch's port-0 LID. The table is SnapNode::mft (encoding in
// sa/snapshot.hpp).
#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"
#include "sa/records/topology_util.hpp"

namespace ibsm::sa {

namespace {

constexpr unsigned kMftBitLid = 0;
constexpr unsigned kMftBitPosition = 1;
constexpr unsigned kMftBitBlock = 3;
constexpr std::size_t kMlidsPerBlock = 32;  // IBA 14.2.5.11
constexpr std::uint16_t kBlockMask = 0x01FF;

}  // namespace

HandlerResult handle_mft_record(RequestContext& ctx) {
  // OpenSM answers no MFTRecord query from a LID it does not know.
  if (!ctx.requester.valid()) return HandlerResult::silent();
  const RecordLayout& layout = *find_layout(attr::kMftRecord);
  HandlerResult r;
  r.words = layout.words();
  const auto query = ctx.query(layout.padded_size());
  const Lid want_lid = static_cast<Lid>(get_be(query, 0, 2));
  const auto position_block = static_cast<std::uint16_t>(get_be(query, 2, 2));
  const std::size_t want_block = position_block & kBlockMask;
  const std::size_t want_position = position_block >> 12;
  std::vector<std::uint8_t> cand(layout.padded_size());
  for (std::uint32_t idx : nodes_in_opensm_order(ctx.snap, true)) {
    const SnapNode& n = ctx.snap.nodes[idx];
    if (!n.switch_info || n.ports.empty()) continue;
    const PortRef p0 = switch_port0(n);
    if (!visible(ctx, p0)) continue;
    const LidRange range = lid_range(ctx.snap, p0);
    if (ctx.has(kMftBitLid) && !range.contains(want_lid)) continue;
    if (n.switch_info->multicast_fdb_cap == 0 || n.mft.empty()) continue;
    const std::size_t positions = n.mft_positions();
    const std::size_t rows = (n.mft.size() + positions - 1) / positions;
    std::size_t block_first = 0;
    std::size_t block_last = (rows + kMlidsPerBlock - 1) / kMlidsPerBlock - 1;
    if (ctx.has(kMftBitBlock)) {
      if (want_block > block_last) continue;
      block_first = block_last = want_block;
    }
    std::size_t pos_first = 0;
    std::size_t pos_last = positions - 1;
    if (ctx.has(kMftBitPosition)) {
      if (want_position > pos_last) continue;
      pos_first = pos_last = want_position;
    }
    for (std::size_t b = block_first; b <= block_last; ++b) {
      for (std::size_t pos = pos_first; pos <= pos_last; ++pos) {
        std::fill(cand.begin(), cand.end(), 0);
        put_be(cand, 0, range.base, 2);
        put_be(cand, 2, (pos << 12) | b, 2);
        for (std::size_t e = 0; e < kMlidsPerBlock; ++e) {
          const std::size_t at = (b * kMlidsPerBlock + e) * positions + pos;
          put_be(cand, 8 + 2 * e, at < n.mft.size() ? n.mft[at] : 0, 2);
        }
        if (!matches_except(layout, ctx, query, cand, 1ull << kMftBitLid)) continue;
        auto out = r.add();
        std::copy(cand.begin(), cand.end(), out.begin());
        if (enough(ctx, r)) return r;
      }
    }
  }
  return r;
}

}  // namespace ibsm::sa
