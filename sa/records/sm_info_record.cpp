// SMInfoRecord (IBA 15.2.5.9): the SMs of the subnet, this master first, as
// OpenSM's osm_sa_sminfo_record.c serves them. A LID in the query names the port
// of one SM (any LID of its LMC range); a requester that shares no partition with
// the master's port gets no answer at all, as from OpenSM. SM_Key reads 0 unless
// the request is trusted (IBA 15.2.5.9: the key goes only to those who know the
// SA key; OpenSM never fills it).
#include "mad/attr/sm_info.hpp"
#include "sa/handlers.hpp"
#include "sa/records/record_util.hpp"
#include "sa/records/topology_util.hpp"

namespace ibsm::sa {

namespace {
constexpr unsigned kSmInfoBitLid = 0;
}  // namespace

HandlerResult handle_sm_info_record(RequestContext& ctx) {
  // OpenSM answers no SMInfoRecord query from a LID it does not know.
  if (!ctx.requester.valid()) return HandlerResult::silent();
  const RecordLayout& layout = *find_layout(attr::kSmInfoRecord);
  HandlerResult r;
  r.words = layout.words();
  const auto query = ctx.query(layout.padded_size());
  std::vector<std::uint8_t> cand(layout.padded_size());

  auto add = [&](const SnapSm& sm) {
    std::fill(cand.begin(), cand.end(), 0);
    const Lid lid = sm.port.valid() ? lid_range(ctx.snap, sm.port).base : sm.lid;
    put_be(cand, 0, lid, 2);
    mad::SmInfo info;
    info.guid = sm.guid;
    info.sm_key = ctx.trusted ? sm.sm_key : 0;
    info.act_count = sm.act_count;
    info.priority = sm.priority;
    info.state = sm.state;
    embed(cand, 4, info, 21);
    if (!matches_except(layout, ctx, query, cand, 1ull << kSmInfoBitLid)) return;
    auto out = r.add();
    std::copy(cand.begin(), cand.end(), out.begin());
  };

  PortRef target;  // the LID-holding port the query names, if any
  if (ctx.has(kSmInfoBitLid)) {
    target = ctx.snap.find_lid(static_cast<Lid>(get_be(query, 0, 2)));
    if (!target.valid()) return r;
  }
  const SnapSm* local = nullptr;
  for (const SnapSm& sm : ctx.snap.sms)
    if (sm.port.valid() && sm.port == ctx.snap.sm_port) local = &sm;
  if (local == nullptr) return HandlerResult::silent();  // no port of our own: OpenSM is silent
  if (!target.valid() || target == local->port) {
    if (!visible(ctx, local->port)) return HandlerResult::silent();
    add(*local);
  }
  if (target.valid() && target == local->port) return r;
  // The other SMs this one knows (discovered by their SMInfo), in OpenSM's order.
  std::vector<const SnapSm*> remotes;
  for (const SnapSm& sm : ctx.snap.sms) {
    if (&sm == local || !sm.port.valid()) continue;
    if (target.valid() && ctx.snap.lid_holder(sm.port) != target) continue;
    remotes.push_back(&sm);
  }
  std::sort(remotes.begin(), remotes.end(), [](const SnapSm* a, const SnapSm* b) {
    return opensm_key_order(a->guid) < opensm_key_order(b->guid);
  });
  for (const SnapSm* sm : remotes) {
    add(*sm);
    if (enough(ctx, r)) break;
  }
  return r;
}

}  // namespace ibsm::sa
