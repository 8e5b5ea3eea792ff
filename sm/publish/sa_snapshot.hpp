// Turns the result of a heavy sweep (the Fabric, the routes, the multicast
// groups) into the SA's immutable snapshot, and opensm.conf into the SA's settings.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "conf/options.hpp"
#include "mad/types.hpp"
#include "partitions/mcast_groups.hpp"
#include "partitions/resolve.hpp"
#include "routing/engine.hpp"
#include "sa/settings.hpp"
#include "sa/snapshot.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/mcast/multicast_manager.hpp"
#include "sm/tables/port_tables.hpp"

namespace ibsm::sm {

struct SaSnapshotInput {
  const Fabric& fabric;
  const routing::Routes& routes;
  const std::vector<NodeIndex>& routed_switches;  // routes.lfts[i] belongs to this node
  const partitions::McGroupTable& groups;
  const conf::Options& options;
  Lid sm_lid = 0;
  mad::SmState sm_state = mad::SmState::kMaster;
  std::uint32_t act_count = 0;
  std::uint64_t generation = 0;
  const partitions::ResolvedConfig* partitions = nullptr;  // partitions.conf: SLs of paths
  const PortTables* tables = nullptr;       // SL2VL/VLArb tables, inter-switch P_Keys
  const MulticastManager* mcast = nullptr;  // MFTs the switches confirmed holding
  // Per-path SLs of the routing result (dfsssp), rows in routed_switches order; shared
  // into the snapshot, not copied. Null: no engine SLs.
  std::shared_ptr<const routing::PathSls> path_sls;
  // prefix_routes_file as last read well (null: none).
  std::shared_ptr<const sa::PrefixRoutes> prefix_routes;
};

sa::MutableSnapshotPtr build_sa_snapshot(const SaSnapshotInput& in);
sa::SaSettings sa_settings(const conf::Options& o);

}  // namespace ibsm::sm
