#include "sm/mcast/multicast_manager.hpp"

#include <algorithm>
#include <chrono>

#include "mad/attr/mft_block.hpp"
#include "mad/attr/switch_info.hpp"

namespace ibsm::sm {

namespace {

constexpr std::uint32_t kBlockMlids = mad::MftBlock::kEntries;
constexpr Lid kNoMcastTop = mad::kFirstMulticastLid - 1;  // 0xBFFF: no MLID in use

std::uint16_t positions_of(const Node& n) {
  return static_cast<std::uint16_t>((std::size_t{n.num_ports()} + 1 + 15) / 16);
}

std::uint32_t key(std::uint32_t block, std::uint32_t position) {
  return block << 4 | position;
}

}  // namespace

void MulticastManager::forget_reset_switches(const Fabric& f) {
  for (auto it = tables_.begin(); it != tables_.end();) {
    const NodeIndex idx = f.find(it->first);
    if (idx == kNoNode || !f.node(idx).is_switch() || !f.node(idx).switch_info) {
      it = tables_.erase(it);  // gone: a returning switch starts unknown
      continue;
    }
    const Node& n = f.node(idx);
    SwitchTable& t = it->second;
    // A power cycle clears the LID of port 0 and the MFT with it.
    if (n.ports.empty() || n.ports[0].info.lid == 0 || positions_of(n) != t.positions) {
      t.held.clear();
      t.known.clear();
      t.latest.clear();
      t.sending.clear();
      t.top.reset();
    } else if (t.top && n.switch_info->multicast_fdb_top != *t.top) {
      t.top.reset();
    }
    ++it;
  }
}

std::map<Lid, std::vector<routing::McastMember>> MulticastManager::members_by_mlid(
    const sa::McGroupStore& store, const std::set<Lid>* only) const {
  std::map<Lid, std::vector<routing::McastMember>> out;
  for (const auto& [mgid, g] : store.groups()) {
    if (only != nullptr && only->count(g.mlid) == 0) continue;
    auto& list = out[g.mlid];
    // Every join state forwards to the port: send-only members too, as OpenSM.
    for (const sa::McMember& m : g.members) {
      auto it = member_of_.find(m.port_guid);
      if (it != member_of_.end()) list.push_back(it->second);
    }
  }
  return out;
}

bool MulticastManager::over_cap(Lid mlid) {
  if (mlid >= mad::kFirstMulticastLid && mlid <= mlid_last_) return false;
  if (logged_over_cap_.insert(mlid).second) {
    log_->warn(
        "multicast: MLID 0x{:04x} is beyond the switches' MulticastFDBCap (last MLID "
        "0x{:04x}); not programmed",
        mlid, mlid_last_);
  }
  return true;
}

void MulticastManager::clear_mlid(Lid mlid) {
  if (mlid < mad::kFirstMulticastLid) return;
  const std::size_t off = mlid - mad::kFirstMulticastLid;
  for (auto& [guid, t] : tables_) {
    const std::size_t at = off * t.positions;
    if (at < t.want.size())
      std::fill_n(t.want.begin() + static_cast<std::ptrdiff_t>(at), t.positions, std::uint16_t{0});
  }
}

void MulticastManager::apply(Lid mlid, const routing::McastTree& tree) {
  const std::size_t off = mlid - mad::kFirstMulticastLid;
  for (const auto& e : tree.entries) {
    auto it = tables_.find(switch_guid_[e.sw]);
    if (it == tables_.end()) continue;
    SwitchTable& t = it->second;
    const std::size_t need = (off / kBlockMlids + 1) * kBlockMlids * t.positions;
    if (t.want.size() < need) t.want.resize(need, 0);
    for (std::size_t p = 0; p < t.positions && p < e.positions; ++p)
      t.want[off * t.positions + p] = tree.masks[e.first + p];
  }
  ++counters_.trees;
}

std::size_t MulticastManager::program_all(Fabric& f,
                                          std::shared_ptr<const routing::Topology> topo_in,
                                          const std::vector<NodeIndex>& switch_nodes,
                                          sa::McGroupStore& store, const conf::Options& options,
                                          mad::SmpClient& client, SweepReport& report,
                                          const PureRunner& run_pure) {
  static_cast<void>(store.take_dirty());  // every MLID is recomputed below
  if (options.disable_multicast) {
    builder_.reset();
    return 0;
  }
  const auto t0 = std::chrono::steady_clock::now();
  // The SM's tables describe this sweep's switches; what they held is kept by GUID.
  builder_.reset();
  hops_.reset();
  topo_ = std::move(topo_in);
  const routing::Topology& topo = *topo_;
  switch_guid_.assign(topo.switches.size(), 0);
  member_of_.clear();
  std::uint16_t cap = 0;
  bool have_cap = false;
  for (std::size_t s = 0; s < topo.switches.size() && s < switch_nodes.size(); ++s) {
    const Node& n = f.node(switch_nodes[s]);
    switch_guid_[s] = n.guid();
    member_of_[n.guid()] = {static_cast<std::uint32_t>(s), 0};
    SwitchTable& t = tables_[n.guid()];
    if (t.positions != positions_of(n)) {
      t = SwitchTable{};
      t.positions = positions_of(n);
    }
    t.cap = n.switch_info ? n.switch_info->multicast_fdb_cap : 0;
    t.want.clear();
    // IBA 14.2.5.4: a switch without MulticastFDBCap forwards no multicast; it does not
    // lower the limit for the others.
    if (t.cap > 0 && (!have_cap || t.cap < cap)) {
      cap = t.cap;
      have_cap = true;
    }
  }
  for (const routing::EndPort& e : topo.end_ports)
    if (e.sw != UINT32_MAX) member_of_[e.port_guid] = {e.sw, e.sw_port};
  mlid_last_ = have_cap ? static_cast<Lid>(std::min<std::uint32_t>(
                              0xFFFEu, mad::kFirstMulticastLid + std::uint32_t{cap} - 1))
                        : kNoMcastTop;
  if (have_cap) store.set_mlid_limit(mlid_last_);

  std::vector<std::pair<Lid, std::vector<routing::McastMember>>> jobs;
  for (auto& [mlid, members] : members_by_mlid(store, nullptr))
    if (!over_cap(mlid)) jobs.emplace_back(mlid, std::move(members));
  std::vector<routing::McastTree> trees(jobs.size());
  std::string hop_error;
  std::unique_ptr<routing::HopMatrix> hops;
  std::unique_ptr<routing::McastTreeBuilder> builder;
  // Trees are pure (topology and member lists in): they run off the SM's thread so
  // thousands of groups never stall the SA. The worker reads the immutable topology and
  // the jobs, and writes only locals, which become this manager's after it is done.
  run_pure([&hop_error, &hops, &builder, &trees, &jobs, shared = topo_] {
    auto computed = routing::HopMatrix::compute(*shared);
    if (!computed.ok()) {
      hop_error = computed.error().message;
      return;
    }
    hops = std::make_unique<routing::HopMatrix>(std::move(computed).value());
    builder = std::make_unique<routing::McastTreeBuilder>(*shared, *hops);
    for (std::size_t i = 0; i < jobs.size(); ++i)
      trees[i] = builder->build(jobs[i].second, jobs[i].first);
  });
  hops_ = std::move(hops);
  builder_ = std::move(builder);
  if (!builder_) {
    log_->warn("{}: multicast trees not computed: {}", format_error_id(kErrProgrammingFailed),
               hop_error);
    report.add(kErrProgrammingFailed, "multicast trees not computed: " + hop_error);
    return 0;
  }
  std::size_t blocks_in_use = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    apply(jobs[i].first, trees[i]);
    if (trees[i].unreachable > 0) {
      log_->warn("multicast: MLID 0x{:04x}: {} member ports unreachable from the tree's root",
                 jobs[i].first, trees[i].unreachable);
    }
    if (!trees[i].entries.empty())
      blocks_in_use = std::max<std::size_t>(
          blocks_in_use, (jobs[i].first - mad::kFirstMulticastLid) / kBlockMlids + 1);
  }
  // Every switch covers the blocks in use anywhere, as OpenSM sends them: a switch that
  // is in no tree still gets its stale entries (another SM's, an old group's) cleared.
  for (auto& [guid, t] : tables_)
    if (t.want.size() < blocks_in_use * kBlockMlids * t.positions)
      t.want.resize(blocks_in_use * kBlockMlids * t.positions, 0);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const std::size_t queued = program_blocks(f, nullptr, options, client, &report);
  log_->info("multicast: {} MLIDs, trees in {:.1f} ms, {} MFT/SwitchInfo Sets queued", jobs.size(),
             ms, queued);
  return queued;
}

std::size_t MulticastManager::program_dirty(Fabric& f, sa::McGroupStore& store,
                                            const conf::Options& options, mad::SmpClient& client) {
  std::set<Lid> dirty = store.take_dirty();
  if (dirty.empty() || options.disable_multicast || !builder_) return 0;
  std::set<std::uint32_t> blocks;
  auto members = members_by_mlid(store, &dirty);
  for (Lid mlid : dirty) {
    if (over_cap(mlid)) continue;
    clear_mlid(mlid);
    blocks.insert((mlid - mad::kFirstMulticastLid) / kBlockMlids);
    auto it = members.find(mlid);
    if (it == members.end()) continue;  // no group uses it any more: cleared everywhere
    apply(mlid, builder_->build(it->second, mlid));
  }
  if (blocks.empty()) return 0;
  const std::size_t queued = program_blocks(f, &blocks, options, client, nullptr);
  log_->debug("multicast: {} MLIDs changed, {} Sets queued", dirty.size(), queued);
  return queued;
}

bool MulticastManager::block_differs(const SwitchTable& t, std::uint32_t b, std::uint32_t p) {
  const std::size_t slot = std::size_t{b} * t.positions + p;
  const bool known = slot < t.known.size() && t.known[slot] != 0;
  const bool wanted = (std::size_t{b} + 1) * kBlockMlids * t.positions <= t.want.size();
  // A block never written and outside the range in use stays as it is (OpenSM
  // writes only up to the highest block in use).
  if (!known && !wanted) return false;
  const auto flying = t.sending.find(key(b, p));
  if (!known && flying == t.sending.end()) return true;
  for (std::uint32_t e = 0; e < kBlockMlids; ++e) {
    const std::size_t at = (std::size_t{b} * kBlockMlids + e) * t.positions + p;
    const std::uint16_t w = at < t.want.size() ? t.want[at] : 0;
    const std::uint16_t h = flying != t.sending.end() ? flying->second[e]
                            : at < t.held.size()      ? t.held[at]
                                                      : 0;
    if (w != h) return true;
  }
  return false;
}

std::size_t MulticastManager::program_blocks(Fabric& f, const std::set<std::uint32_t>* blocks,
                                             const conf::Options& options, mad::SmpClient& client,
                                             SweepReport* report) {
  std::size_t last = 0;
  for (const auto& [guid, t] : tables_) {
    if (t.positions == 0) continue;
    last = std::max(last, t.want.size() / (kBlockMlids * t.positions));
    last = std::max(last, t.held.size() / (kBlockMlids * t.positions));
  }
  std::vector<std::uint32_t> order;
  if (blocks != nullptr) {
    order.assign(blocks->begin(), blocks->end());
  } else {
    for (std::uint32_t b = 0; b < last; ++b)
      order.push_back(b);
  }
  // Striped: block b, position p on every switch before the next one.
  std::vector<BlockRef> todo;
  for (std::uint32_t b : order) {
    for (std::uint32_t p = 0; p <= mad::MftBlock::kMaxPosition; ++p) {
      for (const auto& [guid, t] : tables_) {
        if (p >= t.positions || t.cap == 0) continue;
        if (std::size_t{b} * kBlockMlids >= t.cap) continue;  // beyond this switch's table
        if (block_differs(t, b, p)) todo.push_back({guid, b, p});
      }
    }
  }
  // What the client queues from a feed at once: below that, a feed saves nothing.
  constexpr std::size_t kFeedAbove = 512;
  if (todo.size() <= kFeedAbove) {
    std::size_t queued = 0;
    for (const BlockRef& r : todo)
      queued += send_block(f, r.guid, tables_[r.guid], r.block, r.position, client, report) ? 1 : 0;
    if (options.use_mfttop) {
      for (auto& [guid, t] : tables_)
        queued += program_top(f, guid, t, client, report);
    }
    return queued;
  }
  // The tops go last, as above: a switch's MulticastFDBTop covers blocks it already holds.
  const std::size_t count = todo.size();
  fed_ += count;
  client.submit_feed([this, &f, report, todo = std::move(todo), next = std::size_t{0},
                      tops = options.use_mfttop](mad::SmpClient& cl) mutable {
    while (next < todo.size()) {
      const BlockRef r = todo[next++];
      --fed_;
      auto it = tables_.find(r.guid);
      // Forgotten meanwhile (gone, reset, a new master): the next pass decides.
      if (it == tables_.end() || r.position >= it->second.positions) continue;
      if (!block_differs(it->second, r.block, r.position)) continue;  // sent by a later pass
      // The client drops a feed that returns true without submitting: only then.
      if (send_block(f, r.guid, it->second, r.block, r.position, cl, report)) return true;
    }
    if (tops) {
      for (auto& [guid, t] : tables_)
        program_top(f, guid, t, cl, report);
    }
    return false;
  });
  return count;
}

bool MulticastManager::send_block(Fabric& f, Guid guid, SwitchTable& t, std::uint32_t block,
                                  std::uint32_t position, mad::SmpClient& client,
                                  SweepReport* report) {
  const NodeIndex idx = f.find(guid);
  if (idx == kNoNode) return false;
  mad::MftBlock blk;
  for (std::uint32_t e = 0; e < kBlockMlids; ++e) {
    const std::size_t at = (std::size_t{block} * kBlockMlids + e) * t.positions + position;
    blk.masks[e] = at < t.want.size() ? t.want[at] : 0;
  }
  const std::uint64_t id = ++next_set_id_;
  t.latest[key(block, position)] = id;
  std::copy(blk.masks.begin(), blk.masks.end(), t.sending[key(block, position)].begin());
  ++counters_.block_sets;
  ++in_flight_;
  client.submit(
      mad::SmpRequest::set(f.node(idx).path, blk, mad::mft_attr_mod(block, position)),
      [this, guid, block, position, id, blk, report](const mad::SmpOutcome& o) {
        --in_flight_;
        auto it = tables_.find(guid);
        if (it == tables_.end()) return;  // forgotten meanwhile
        SwitchTable& tt = it->second;
        auto l = tt.latest.find(key(block, position));
        if (l == tt.latest.end() || l->second != id) return;  // a later Set decides
        tt.latest.erase(l);
        tt.sending.erase(key(block, position));
        const std::size_t slot = std::size_t{block} * tt.positions + position;
        auto got = o.ok() ? mad::decode<mad::MftBlock>(o.response->data())
                          : Result<mad::MftBlock>(fail(kErrProgrammingFailed, "no answer"));
        if (!got.ok()) {
          ++counters_.failed;
          if (slot < tt.known.size()) tt.known[slot] = 0;
          report_failure(
              log_, report, kErrProgrammingFailed, o,
              fmt::format("MFT block {} position {} of switch 0x{:016x}", block, position, guid));
          return;
        }
        // The GetResp of a Set carries what the switch now holds (IBA 14.2.5.12).
        const std::size_t need = (std::size_t{block} + 1) * kBlockMlids * tt.positions;
        if (tt.held.size() < need) tt.held.resize(need, 0);
        if (tt.known.size() < (std::size_t{block} + 1) * tt.positions)
          tt.known.resize((std::size_t{block} + 1) * tt.positions, 0);
        for (std::uint32_t e = 0; e < kBlockMlids; ++e) {
          std::uint16_t& h =
              tt.held[(std::size_t{block} * kBlockMlids + e) * tt.positions + position];
          held_changed_ = held_changed_ || h != got->masks[e];
          h = got->masks[e];
        }
        tt.known[slot] = 1;
        if (got->masks == blk.masks) {
          ++counters_.confirmed;
        } else {
          ++counters_.refused;
          log_->warn("{}: switch 0x{:016x} kept other contents in MFT block {} position {}",
                     format_error_id(kErrProgrammingFailed), guid, block, position);
        }
      });
  return true;
}

std::size_t MulticastManager::program_top(Fabric& f, Guid guid, SwitchTable& t,
                                          mad::SmpClient& client, SweepReport* report) {
  const NodeIndex idx = f.find(guid);
  if (idx == kNoNode || t.positions == 0 || t.cap == 0) return 0;
  const Node& n = f.node(idx);
  if (!n.switch_info || n.ports.empty() ||
      (n.ports[0].info.capability_mask & mad::kCapHasMulticastFdbTop) == 0)
    return 0;
  Lid top = kNoMcastTop;
  const std::size_t per_block = kBlockMlids * t.positions;
  for (std::size_t b = t.want.size() / per_block; b-- > 0;) {
    if (std::any_of(t.want.begin() + static_cast<std::ptrdiff_t>(b * per_block),
                    t.want.begin() + static_cast<std::ptrdiff_t>((b + 1) * per_block),
                    [](std::uint16_t w) { return w != 0; })) {
      top = static_cast<Lid>(mad::kFirstMulticastLid + (b + 1) * kBlockMlids - 1);
      break;
    }
  }
  if (n.switch_info->multicast_fdb_top == top) {
    t.top = top;
    return 0;
  }
  // The rest of SwitchInfo as the switch last answered (the LinearFDBTop just set);
  // PortStateChange is write-1-to-clear, so 0 leaves it alone (IBA 14.2.5.4).
  mad::SwitchInfo si = *n.switch_info;
  si.port_state_change = false;
  si.multicast_fdb_top = top;
  ++counters_.top_sets;
  client.submit(
      mad::SmpRequest::set(n.path, si), [this, &f, guid, top, report](const mad::SmpOutcome& o) {
        auto held = o.ok() ? mad::decode<mad::SwitchInfo>(o.response->data())
                           : Result<mad::SwitchInfo>(fail(kErrProgrammingFailed, "no answer"));
        if (!held.ok()) {
          report_failure(log_, report, kErrProgrammingFailed, o, "SwitchInfo MulticastFDBTop");
          if (report != nullptr) report->set_failed(guid, 0);
          return;
        }
        if (const NodeIndex i = f.find(guid); i != kNoNode) f.node(i).switch_info = *held;
        auto it = tables_.find(guid);
        if (it != tables_.end() && held->multicast_fdb_top == top) it->second.top = top;
      });
  return 1;
}

std::vector<std::uint16_t> MulticastManager::held_table(Guid switch_guid) const {
  auto it = tables_.find(switch_guid);
  if (it == tables_.end() || it->second.positions == 0) return {};
  const SwitchTable& t = it->second;
  const std::size_t per_block = kBlockMlids * t.positions;
  std::vector<std::uint16_t> out(t.held);
  for (std::size_t slot = 0; slot < t.known.size(); ++slot) {
    if (t.known[slot] != 0) continue;
    const std::size_t b = slot / t.positions;
    const std::size_t p = slot % t.positions;
    for (std::size_t e = 0; e < kBlockMlids; ++e) {
      const std::size_t at = (b * kBlockMlids + e) * t.positions + p;
      if (at < out.size()) out[at] = 0;
    }
  }
  std::size_t blocks = out.size() / per_block;
  while (blocks > 0 &&
         std::all_of(out.begin() + static_cast<std::ptrdiff_t>((blocks - 1) * per_block),
                     out.begin() + static_cast<std::ptrdiff_t>(blocks * per_block),
                     [](std::uint16_t w) { return w == 0; }))
    --blocks;
  out.resize(blocks * per_block);
  return out;
}

}  // namespace ibsm::sm
