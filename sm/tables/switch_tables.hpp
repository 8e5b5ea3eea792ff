// SwitchTables: what the switches hold of the unicast routes, and the Sets that bring
// them there (sm/tables/). It remembers, by switch GUID, the LFT blocks and
// LinearFDBTop each switch confirmed (or a standby read before taking over), forgets
// switches that were reset, and sends only the SwitchInfo and LFT blocks that differ
// from the routes in force (switch_tables.cpp). With per-path SLs, per-hop VLs or QoS it
// also programs the SLtoVLMappingTables (sl2vl_tables.cpp).
//
// It takes a SweepContext and the routes as inputs; it never sees the SubnetManager.
// The Sets' callbacks run as the SM drains its client, within the same heavy sweep.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/log.hpp"
#include "routing/engine.hpp"
#include "sm/election/lft_mirror.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/qos/qos_config.hpp"
#include "sm/sweep/sweep_context.hpp"
#include "sm/tables/port_tables.hpp"

namespace ibsm::sm::tables {

// The last heavy sweep's SL2VL programming for per-path SLs or QoS.
struct Sl2VlCounts {
  std::size_t wanted = 0;  // tables the ports must hold
  std::size_t known = 0;   // of which the SM knew the contents (no Get)
  std::size_t gets = 0;    // read first
  std::size_t sets = 0;    // written because they differed
};

// What the SL2VL programming reads besides the fabric.
struct Sl2VlInput {
  const routing::Topology& topology;    // the routes' topology (Router::topology())
  const routing::Routes& routes;        // their sl2vl: per-hop VL tables (torus-2QoS)
  bool path_sls = false;                // the routes carry per-path SLs (dfsssp)
  const qos::QosConfig* qos = nullptr;  // opensm.conf qos; null: QoS off
  // long_transaction_timeout: optimized (all-inputs) Sets wait this long.
  std::chrono::milliseconds long_timeout{500};
  PortTables& port_tables;  // what the ports hold; the Sets' answers are recorded there
};

class SwitchTables {
 public:
  // `log` is the SM's root logger, `routing_log` the routing module's (the lines each
  // wrote before the split).
  SwitchTables(Logger log, Logger routing_log)
      : log_(std::move(log)), routing_log_(std::move(routing_log)) {}

  // A standby's reading of the switches (sm/election/lft_mirror.hpp), for the takeover
  // that follows; nullopt drops it.
  void set_takeover(std::optional<election::MirroredTables> t) { takeover_ = std::move(t); }
  bool takeover_pending() const { return takeover_.has_value(); }
  // A takeover: the LFTs a standby read count as programmed when `f` is the fabric they
  // were read in (same links, same LIDs), so only blocks that differ are sent.
  void adopt_mirrored_tables(const Fabric& f);
  // A switch that lost its tables (power cycle, LinearFDBTop changed, no LID) is
  // programmed in full again.
  void forget_reset_switches(const Fabric& f);
  // A new master trusts nothing another SM may have programmed.
  void forget_all();

  // Queues, switch by switch as the window takes them, the SwitchInfo (LinearFDBTop,
  // LifeTimeValue) and LFT blocks of `routes` that differ from what each switch holds;
  // row i of routes.lfts goes to fabric node switches[i]. Every switch, whatever
  // ctx.only_nodes says: a route change may touch any of them.
  void program_switches(const SweepContext& ctx, std::shared_ptr<const routing::Routes> routes,
                        std::vector<NodeIndex> switches);
  // LFT blocks queued by the last program_switches (the SUBNET UP line).
  std::size_t lft_blocks_sent() const { return lft_blocks_sent_; }

  // SLtoVLMappingTable where paths use SLs other than 0 or QoS is on: only tables not
  // known to hold what is wanted are read, only those that differ are Set.
  void program_sl2vl(const SweepContext& ctx, const Sl2VlInput& in);
  // The last program_sl2vl's counts; null when no SL2VL was needed.
  const Sl2VlCounts* sl2vl_counts() const { return sl2vl_counts_.get(); }

  // What a switch is known to hold (tests, the takeover): LFT entries, whole blocks.
  const std::vector<PortNum>* held_lft(Guid guid) const;

 private:
  struct Round;
  void program_switch(const std::shared_ptr<Round>& round, std::size_t s);

  Logger log_;
  Logger routing_log_;
  // What each switch holds (by GUID), as far as we programmed and confirmed it.
  std::unordered_map<Guid, std::vector<PortNum>> programmed_lft_;
  std::unordered_map<Guid, Lid> programmed_top_;
  std::optional<election::MirroredTables> takeover_;
  std::size_t lft_blocks_sent_ = 0;
  std::shared_ptr<Sl2VlCounts> sl2vl_counts_;
};

}  // namespace ibsm::sm::tables
