// Partitions in the SM: the partitions.conf in force (last good one), the P_Key
// planner run against each heavy sweep's fabric, the pre-created multicast groups,
// and what survives a restart in the cache directory (P_Key index history, MLIDs,
// automatic P_Keys) plus the fabric snapshot ibsm-part plan reads.
//
// The planner (partitions/planner.hpp) is pure; this class turns the sm::Fabric into
// its input, queues the P_KeyTable Gets discovery needs and the Sets programming
// needs, and records the PartitionEnforcement bits the PortInfo Set must carry.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/log.hpp"
#include "conf/options.hpp"
#include "mad/smp_client.hpp"
#include "partitions/fabric.hpp"
#include "partitions/mcast_groups.hpp"
#include "partitions/model.hpp"
#include "partitions/planner.hpp"
#include "partitions/resolve.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/sweep/pure_runner.hpp"
#include "sm/sweep/sweep_report.hpp"

namespace ibsm::sm {

// Reads a partitions.conf as the SM does: a missing file gives OpenSM's default;
// a broken one gives nullopt and `errors` (one "file:line:column: ..." per error).
std::optional<partitions::Config> read_partitions_config(const std::string& path,
                                                         std::vector<std::string>& errors,
                                                         std::vector<std::string>* warnings);

class PartitionManager {
 public:
  PartitionManager(Logger log, const conf::Options& options);

  // Re-reads the file. A broken file is logged and changes nothing (returns false).
  // Before any good load, a broken file leaves OpenSM's no-file default in force.
  bool reload();
  // The errors of the last reload() (empty when it succeeded).
  const std::vector<std::string>& last_errors() const { return last_errors_; }
  void apply_options(const conf::Options& options) { options_ = options; }

  // Queues Get(P_KeyTable) for every block of the end ports and of the switch
  // ports facing end ports; the answers fill Port::pkeys.
  void read_tables(Fabric& f, mad::SmpClient& client, SweepReport& report);

  // Plans the fabric, queues Set(P_KeyTable) for the blocks that differ, records the
  // wanted enforcement bits in Port::want_enforcement (the PortInfo Set carries them)
  // and updates the multicast group table. The planner runs through `run_pure`
  // (kary-18-3-5832: 66 ms, in which SMPs queued before keep flowing); it returns when
  // all of this is done.
  void program(Fabric& f, mad::SmpClient& client, SweepReport& report,
               const PureRunner& run_pure = run_inline);

  // After a successful heavy sweep: persist the cache files and the fabric snapshot.
  void save(const Fabric& f);
  void log_groups() const;

  const partitions::McGroupTable& groups() const { return groups_; }
  const partitions::ResolvedConfig& resolved() const { return resolved_; }
  const partitions::FabricPlan& last_plan() const { return plan_; }

  // The planner's view of the fabric; `where` gets the sm::Fabric port of each entry.
  static partitions::Fabric planner_fabric(const Fabric& f,
                                           std::vector<std::pair<NodeIndex, PortNum>>* where);

 private:
  std::vector<std::string> last_errors_;
  void set_config(partitions::Config config);
  void load_cache();
  std::string cache_path(const char* name) const;

  Logger log_;
  conf::Options options_;
  std::optional<partitions::Config> config_;
  partitions::ResolvedConfig resolved_;
  std::map<std::string, std::uint16_t> auto_pkeys_;
  partitions::PlannerState state_;
  partitions::FabricPlan plan_;
  partitions::McGroupTable groups_;
  partitions::MlidAssignment saved_mlids_;
  std::string saved_state_text_;
  std::string saved_mlid_text_;
  std::string saved_auto_text_;
};

}  // namespace ibsm::sm
