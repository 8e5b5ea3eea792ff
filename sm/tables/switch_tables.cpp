// SwitchTables: the LFTs and LinearFDBTop the switches hold and the Sets that differ
// (sm/tables/switch_tables.hpp).
#include "sm/tables/switch_tables.hpp"

#include <algorithm>
#include <functional>
#include <utility>

#include "mad/attr/forwarding_table.hpp"
#include "mad/attr/switch_info.hpp"
#include "sm/errors.hpp"

namespace ibsm::sm::tables {

using mad::SmpOutcome;
using mad::SmpRequest;

// One program_switches call: what its feed and the Sets' callbacks use, owned by them.
struct SwitchTables::Round {
  Fabric& f;
  SweepReport& report;
  mad::SmpClient& client;
  std::function<void(const SmpOutcome&)> failed;  // SweepContext::on_failure
  std::uint8_t life = 0;                          // packet_life_time
  std::shared_ptr<const routing::Routes> routes;
  std::vector<NodeIndex> switches;
};

void SwitchTables::adopt_mirrored_tables(const Fabric& f) {
  if (!takeover_) return;
  election::MirroredTables t = std::move(*takeover_);
  takeover_.reset();
  if (t.empty()) {
    log_->info("takeover: no switch tables read while standby; every LFT block is sent");
    return;
  }
  if (election::topology_signature(f) != t.signature) {
    log_->info(
        "takeover: the fabric changed since the standby read its tables; every LFT block is "
        "sent");
    return;
  }
  log_->info("takeover: LFTs of {} switches read while standby; only blocks that differ are sent",
             t.lft.size());
  programmed_lft_ = std::move(t.lft);
  programmed_top_ = std::move(t.top);
}

void SwitchTables::forget_reset_switches(const Fabric& f) {
  std::unordered_map<Guid, std::vector<PortNum>> kept;
  std::unordered_map<Guid, Lid> kept_top;
  for (const Node& n : f.nodes()) {
    if (!n.is_switch() || !n.switch_info) continue;
    auto it = programmed_lft_.find(n.guid());
    auto top = programmed_top_.find(n.guid());
    if (it == programmed_lft_.end() || top == programmed_top_.end()) continue;
    if (n.switch_info->linear_fdb_top != top->second || n.ports[0].info.lid == 0) continue;
    kept.emplace(n.guid(), std::move(it->second));
    kept_top.emplace(n.guid(), top->second);
  }
  programmed_lft_ = std::move(kept);
  programmed_top_ = std::move(kept_top);
}

void SwitchTables::forget_all() {
  programmed_lft_.clear();
  programmed_top_.clear();
}

const std::vector<PortNum>* SwitchTables::held_lft(Guid guid) const {
  auto it = programmed_lft_.find(guid);
  return it == programmed_lft_.end() ? nullptr : &it->second;
}

void SwitchTables::program_switches(const SweepContext& ctx,
                                    std::shared_ptr<const routing::Routes> routes,
                                    std::vector<NodeIndex> switches) {
  lft_blocks_sent_ = 0;
  auto round = std::make_shared<Round>(Round{ctx.fabric, ctx.report, ctx.client, ctx.on_failure,
                                             ctx.options.packet_life_time, std::move(routes),
                                             std::move(switches)});
  // A feed, switch by switch as the window takes them, as PortInfo programming does: the
  // wire works while the next switches' blocks are compared (kary-18-3-5832: 73 ms of
  // CPU in which the wire stood idle when they were all queued first), and while the
  // P_Key planner runs on its worker (PartitionManager::program).
  ctx.client.submit_feed([this, round, s = std::size_t{0}](mad::SmpClient& client) mutable {
    const std::size_t before = client.queued();
    const std::size_t n = std::min(round->routes->lfts.size(), round->switches.size());
    while (s < n && client.queued() == before)
      program_switch(round, s++);
    return s < n;
  });
}

void SwitchTables::program_switch(const std::shared_ptr<Round>& round, std::size_t s) {
  Fabric& f = round->f;
  const NodeIndex idx = round->switches[s];
  Node& node = f.node(idx);
  if (!node.switch_info) return;
  const routing::Lft& lft = round->routes->lfts[s];
  const Guid guid = node.guid();
  const mad::DrPath path = node.path;
  Lid top = 0;
  for (std::size_t l = lft.size(); l-- > 1;) {
    if (lft[l] != routing::kNoPath) {
      top = static_cast<Lid>(l);
      break;
    }
  }
  // LifeTimeValue: how long a packet may wait in the switch (opensm.conf
  // packet_life_time, IBA 14.2.5.4; OpenSM sets it with LinearFDBTop).
  const std::uint8_t life = round->life;
  if (node.switch_info->linear_fdb_top != top || node.switch_info->port_state_change ||
      node.switch_info->life_time_value != life) {
    mad::SwitchInfo si = *node.switch_info;
    si.linear_fdb_top = top;
    si.life_time_value = life;
    si.port_state_change = true;  // write 1 to clear (IBA 14.2.5.4)
    round->client.submit(
        SmpRequest::set(path, si), [this, round, idx, guid, top](const SmpOutcome& o) {
          if (!o.ok()) {
            report_failure(routing_log_, &round->report, kErrProgrammingFailed, o,
                           "SwitchInfo LinearFDBTop");
            round->report.set_failed(guid, 0);
            if (round->failed) round->failed(o);
            return;
          }
          programmed_top_[guid] = top;
          // The GetResp of a Set carries what the switch now holds (SA SwitchInfoRecord).
          Node* n = round->f.node_if(idx, guid);
          if (auto held = mad::decode<mad::SwitchInfo>(o.response->data()); held.ok() && n)
            n->switch_info = *held;
        });
  } else {
    programmed_top_[guid] = top;
  }
  auto& held = programmed_lft_[guid];
  const std::size_t blocks =
      (static_cast<std::size_t>(top) + mad::LftBlock::kEntries) / mad::LftBlock::kEntries;
  if (held.size() < blocks * mad::LftBlock::kEntries) {
    // Unknown contents: assume nothing useful and send every block.
    held.resize(blocks * mad::LftBlock::kEntries, 0);
    std::fill(held.begin(), held.end(), std::uint8_t{0xFE});  // never equals a real entry
  }
  for (std::size_t b = 0; b < blocks; ++b) {
    mad::LftBlock block;
    for (std::size_t e = 0; e < mad::LftBlock::kEntries; ++e) {
      const std::size_t lid = b * mad::LftBlock::kEntries + e;
      block.ports[e] = lid < lft.size() ? lft[lid] : routing::kNoPath;
    }
    if (std::equal(block.ports.begin(), block.ports.end(),
                   held.begin() + static_cast<std::ptrdiff_t>(b * mad::LftBlock::kEntries)))
      continue;
    ++lft_blocks_sent_;
    round->client.submit(
        SmpRequest::set(path, block, static_cast<std::uint32_t>(b)),
        [this, round, guid, b, block](const SmpOutcome& o) {
          if (!o.ok()) {
            report_failure(routing_log_, &round->report, kErrProgrammingFailed, o, "LFT block");
            round->report.set_failed(guid, 0);
            if (round->failed) round->failed(o);
            return;
          }
          // Forgotten meanwhile (the switch left or was reset): its
          // table is unknown again and is sent whole next time.
          auto h = programmed_lft_.find(guid);
          if (h == programmed_lft_.end() || h->second.size() < (b + 1) * mad::LftBlock::kEntries)
            return;
          std::copy(block.ports.begin(), block.ports.end(),
                    h->second.begin() + static_cast<std::ptrdiff_t>(b * mad::LftBlock::kEntries));
        });
  }
}

}  // namespace ibsm::sm::tables
