// Multicast forwarding: the SA's groups (sa/mcast/group_store.hpp) become one spanning
// tree per MLID (routing/mcast_tree.hpp), and the trees become the switches'
// MulticastForwardingTable blocks (IBA 14.2.5.12), as OpenSM's osm_mcast_mgr.c does:
//  - every heavy sweep recomputes every MLID after routing (OpenSM's config_all);
//  - between sweeps, the MLIDs whose members changed (McGroupStore::take_dirty) are
//    recomputed alone and only their blocks are looked at, so a host that joins can
//    send within one turn of the SM's loop (OpenSM's osm_sm_reroute_mlid).
//
// Unlike OpenSM, which sends every block up to the highest MLID in use on every
// sweep, only the blocks (32 MLIDs x one 16-port position) that differ from what the
// switch confirmed in the GetResp of an earlier Set are sent, so a second sweep over
// an unchanged fabric sends no MFT SMP. What a switch holds is kept by switch GUID and
// forgotten, so written again in full, when discovery finds the switch's port 0 with
// LID 0 (a power cycle empties the MFT), or the switch is gone.
//
// Blocks are queued block by block across all switches (OpenSM's striping), so the
// SMP window spreads over the switches instead of queueing on one. A pass with more
// blocks to send than the client queues at once (a heavy sweep with thousands of
// groups: 900k Sets for 10 000 groups on 972 switches) hands them to the client as a
// feed (SmpClient::submit_feed): a 16-byte entry each until the queue drains down to
// it, instead of a queued request with its callback; each block is compared with the
// wanted table again when its turn comes, so a later pass's change goes out once.
//
// SwitchInfo.MulticastFDBTop (IBA 14.2.5.4) is set when opensm.conf use_mfttop is on
// and the switch's port 0 advertises it (CapabilityMask bit 30, as OpenSM checks):
// 0xC000 + 32 * (highest block in use + 1) - 1, or 0xBFFF when no MLID is in use.
//
// MLIDs above 0xC000 + the smallest MulticastFDBCap - 1 fit no switch's table and are
// not programmed (logged once per MLID); the SA's store is told the limit so it hands
// out no such MLID.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/log.hpp"
#include "conf/options.hpp"
#include "mad/smp_client.hpp"
#include "routing/engine.hpp"
#include "routing/hop_matrix.hpp"
#include "routing/mcast_tree.hpp"
#include "sa/mcast/group_store.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/sweep/pure_runner.hpp"
#include "sm/sweep/sweep_report.hpp"

namespace ibsm::sm {

struct MulticastCounters {
  std::uint64_t trees = 0;       // MLID trees computed
  std::uint64_t block_sets = 0;  // Set(MulticastForwardingTable) queued
  std::uint64_t confirmed = 0;   // answered with the block as sent
  std::uint64_t refused = 0;     // answered with other contents than sent
  std::uint64_t failed = 0;      // no usable answer
  std::uint64_t top_sets = 0;    // Set(SwitchInfo) for MulticastFDBTop
};

class MulticastManager {
 public:
  explicit MulticastManager(Logger log) : log_(std::move(log)) {}

  // Heavy sweep, before LID assignment: forgets what reset or departed switches held.
  void forget_reset_switches(const Fabric& f);
  // A new master: another SM may have written any MFT, so nothing is known held.
  void forget_all() {
    tables_.clear();
    held_changed_ = true;
  }

  // Heavy sweep, after routing and once the programming phase's answers are in (the
  // SwitchInfo it may Set must carry the LinearFDBTop just programmed): recomputes
  // every MLID of `store` over `topo` (topo.switches[i] is f's node switch_nodes[i])
  // and queues the blocks that differ. Drops the store's dirty marks (all are covered).
  // Failures go to `report`. Returns the SMPs queued.
  std::size_t program_all(Fabric& f, std::shared_ptr<const routing::Topology> topo,
                          const std::vector<NodeIndex>& switch_nodes, sa::McGroupStore& store,
                          const conf::Options& options, mad::SmpClient& client, SweepReport& report,
                          const PureRunner& run_pure);

  // Between sweeps: recomputes the MLIDs the store marked dirty, against the topology
  // of the last program_all, and queues their blocks that differ. `f` is the last heavy
  // sweep's fabric (DR paths, SwitchInfo). Returns the SMPs queued.
  std::size_t program_dirty(Fabric& f, sa::McGroupStore& store, const conf::Options& options,
                            mad::SmpClient& client);

  // The MFT a switch confirmed holding, in sa::SnapNode::mft's layout (whole blocks
  // up to the last one with an entry; unknown words read 0); empty when none.
  std::vector<std::uint16_t> held_table(Guid switch_guid) const;
  // Whether a GetResp changed what some switch holds since the last call (the SA's
  // MulticastForwardingTableRecords are then stale), and whether Sets are on the wire.
  bool take_held_changed() { return std::exchange(held_changed_, false); }
  bool busy() const { return in_flight_ > 0 || fed_ > 0; }
  // Highest MLID programmed (0xC000 + smallest MulticastFDBCap - 1).
  Lid mlid_last() const { return mlid_last_; }
  const MulticastCounters& counters() const { return counters_; }

 private:
  // One switch's MFT as wanted and as confirmed, by GUID, in SnapNode::mft's layout.
  struct SwitchTable {
    std::uint16_t positions = 0;
    std::uint16_t cap = 0;            // MulticastFDBCap
    std::vector<std::uint16_t> want;  // [(mlid - 0xC000) * positions + position]
    std::vector<std::uint16_t> held;  // what GetResps confirmed
    std::vector<std::uint8_t> known;  // per block * positions + position: held is valid
    std::unordered_map<std::uint32_t, std::uint64_t> latest;  // block/position -> Set id
    // What the Set still in flight for a block/position carries: a join storm
    // recomputes the same MLID many times before the answers come back, and a block
    // already on its way with the wanted contents must not be sent again.
    std::unordered_map<std::uint32_t, std::array<std::uint16_t, 32>> sending;
    std::optional<Lid> top;  // MulticastFDBTop the switch confirmed
  };

  std::map<Lid, std::vector<routing::McastMember>> members_by_mlid(const sa::McGroupStore& store,
                                                                   const std::set<Lid>* only) const;
  void clear_mlid(Lid mlid);
  void apply(Lid mlid, const routing::McastTree& tree);
  bool over_cap(Lid mlid);
  // One MFT block of one switch to compare and, if it differs, to send.
  struct BlockRef {
    Guid guid = 0;
    std::uint32_t block = 0;
    std::uint32_t position = 0;
  };
  // Queues the differing blocks of `blocks` (nullptr: every block) on every switch,
  // then the MulticastFDBTop Sets; through a feed when there are many. Returns the
  // Sets queued or, with a feed, to be sent.
  std::size_t program_blocks(Fabric& f, const std::set<std::uint32_t>* blocks,
                             const conf::Options& options, mad::SmpClient& client,
                             SweepReport* report);
  // Whether switch table `t` lacks block `b` position `p` as wanted (compared with the
  // Set in flight for it if any, else with what the switch confirmed).
  static bool block_differs(const SwitchTable& t, std::uint32_t b, std::uint32_t p);
  // Whether the Set was queued (not when the switch is no longer in `f`).
  bool send_block(Fabric& f, Guid guid, SwitchTable& t, std::uint32_t block, std::uint32_t position,
                  mad::SmpClient& client, SweepReport* report);
  std::size_t program_top(Fabric& f, Guid guid, SwitchTable& t, mad::SmpClient& client,
                          SweepReport* report);

  Logger log_;
  std::map<Guid, SwitchTable> tables_;  // ordered: deterministic SMP order
  // The last heavy sweep's topology (the router's immutable copy: program_all's worker
  // reads it while this thread serves) and what the trees need of it.
  std::shared_ptr<const routing::Topology> topo_ = std::make_shared<const routing::Topology>();
  std::vector<Guid> switch_guid_;                             // by topology switch index
  std::unordered_map<Guid, routing::McastMember> member_of_;  // port GUID -> member port
  std::unique_ptr<routing::HopMatrix> hops_;
  std::unique_ptr<routing::McastTreeBuilder> builder_;
  Lid mlid_last_ = 0xFFFF;
  std::set<Lid> logged_over_cap_;
  std::uint64_t next_set_id_ = 0;
  std::size_t in_flight_ = 0;
  std::size_t fed_ = 0;  // blocks a feed still holds
  bool held_changed_ = false;
  MulticastCounters counters_;
};

}  // namespace ibsm::sm
