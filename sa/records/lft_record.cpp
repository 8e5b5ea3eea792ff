// LinearForwardingTableRecord (IBA 15.2.5.6): the LFT of every switch in blocks of
// 64 LIDs, as OpenSM's osm_sa_lft_record.c serves it: blocks 0 up to the one
// holding the switch's LinearFDBTop, each as the routing left it (0xFF: no path),
// keyed by the switch's port-0 LID (any LID of its LMC range matches).
#include "mad/attr/forwarding_table.hpp"
#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"
#include "sa/records/topology_util.hpp"

namespace ibsm::sa {

namespace {
constexpr unsigned kLftBitLid = 0;
constexpr unsigned kLftBitBlock = 1;
constexpr std::size_t kBlockEntries = mad::LftBlock::kEntries;
constexpr std::uint8_t kNoPath = 0xFF;
}  // namespace

HandlerResult handle_lft_record(RequestContext& ctx) {
  // OpenSM answers no LFTRecord query from a LID it does not know.
  if (!ctx.requester.valid()) return HandlerResult::silent();
  const RecordLayout& layout = *find_layout(attr::kLftRecord);
  HandlerResult r;
  r.words = layout.words();
  const auto query = ctx.query(layout.padded_size());
  const Lid want_lid = static_cast<Lid>(get_be(query, 0, 2));
  const std::size_t want_block = get_be(query, 2, 2);
  std::vector<std::uint8_t> cand(layout.padded_size());
  for (std::uint32_t idx : nodes_in_opensm_order(ctx.snap, true)) {
    const SnapNode& n = ctx.snap.nodes[idx];
    if (!n.switch_info || n.ports.empty()) continue;
    const PortRef p0 = switch_port0(n);
    if (!visible(ctx, p0)) continue;
    const LidRange range = lid_range(ctx.snap, p0);
    if (ctx.has(kLftBitLid) && !range.contains(want_lid)) continue;
    // The blocks in use: up to LinearFDBTop (IBA 14.2.5.4), as OpenSM counts them.
    std::size_t first = 0;
    std::size_t last = n.switch_info->linear_fdb_top / kBlockEntries;
    if (ctx.has(kLftBitBlock)) {
      if (want_block > last) continue;
      first = last = want_block;
    }
    for (std::size_t b = first; b <= last; ++b) {
      std::fill(cand.begin(), cand.end(), 0);
      put_be(cand, 0, range.base, 2);
      put_be(cand, 2, b, 2);
      for (std::size_t e = 0; e < kBlockEntries; ++e) {
        const std::size_t lid = b * kBlockEntries + e;
        cand[8 + e] = lid < n.lft.size() ? n.lft[lid] : kNoPath;
      }
      if (!matches_except(layout, ctx, query, cand, 1ull << kLftBitLid)) continue;
      auto out = r.add();
      std::copy(cand.begin(), cand.end(), out.begin());
      if (enough(ctx, r)) return r;
    }
  }
  return r;
}

}  // namespace ibsm::sa
