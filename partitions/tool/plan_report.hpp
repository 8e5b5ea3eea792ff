// ibsm-part plan: what applying a partitions.conf to the fabric the SM last saw
// would change, port by port: P_Keys gained and lost, memberships changed, P_Key
// blocks and PortInfo enforcement bits the SM would send.
#pragma once

#include <string>

#include "partitions/fabric_snapshot.hpp"
#include "partitions/planner.hpp"
#include "partitions/resolve.hpp"

namespace ibsm::partitions {

struct PlanSummary {
  std::string text;
  int ports_changed = 0;
};

PlanSummary plan_report(const ResolvedConfig& config, const FabricSnapshot& snapshot,
                        const PlannerOptions& options);

}  // namespace ibsm::partitions
