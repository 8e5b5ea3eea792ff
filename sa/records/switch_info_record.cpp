// SwitchInfoRecord (IBA 15.2.5.5): the SwitchInfo of every switch with its port-0
// LID, as OpenSM's osm_sa_sw_info_record.c serves it: a LID in the query matches
// any LID of the switch's LMC range, and a LID component of 0 matches nothing.
#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"
#include "sa/records/topology_util.hpp"

namespace ibsm::sa {

namespace {
constexpr unsigned kSwitchInfoBitLid = 0;
}  // namespace

HandlerResult handle_switch_info_record(RequestContext& ctx) {
  // OpenSM answers no SwitchInfoRecord query from a LID it does not know.
  if (!ctx.requester.valid()) return HandlerResult::silent();
  const RecordLayout& layout = *find_layout(attr::kSwitchInfoRecord);
  HandlerResult r;
  r.words = layout.words();
  const auto query = ctx.query(layout.padded_size());
  const Lid want_lid = static_cast<Lid>(get_be(query, 0, 2));
  if (ctx.has(kSwitchInfoBitLid) && want_lid == 0) return r;
  std::vector<std::uint8_t> cand(layout.padded_size());
  for (std::uint32_t idx : nodes_in_opensm_order(ctx.snap, true)) {
    const SnapNode& n = ctx.snap.nodes[idx];
    if (!n.switch_info || n.ports.empty()) continue;
    const PortRef p0 = switch_port0(n);
    if (!visible(ctx, p0)) continue;
    const LidRange range = lid_range(ctx.snap, p0);
    if (ctx.has(kSwitchInfoBitLid) && !range.contains(want_lid)) continue;
    std::fill(cand.begin(), cand.end(), 0);
    put_be(cand, 0, range.base, 2);
    embed(cand, 4, *n.switch_info, 20);
    if (!matches_except(layout, ctx, query, cand, 1ull << kSwitchInfoBitLid)) continue;
    auto out = r.add();
    std::copy(cand.begin(), cand.end(), out.begin());
    if (enough(ctx, r)) break;
  }
  return r;
}

}  // namespace ibsm::sa
