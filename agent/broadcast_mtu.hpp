// Resolves broadcast_mtu = "auto" before planning: for every IPoIB entry it asks the
// GroupMtuSource (the SA) for the broadcast group of each P_Key that entry can plan
// (the parent's, listed children, and for pkeys = "auto" the full-member keys in the
// port's table) and fills BroadcastMtu::learnt. What cannot be learnt stays out of
// `learnt`, so the planner uses 2048 for it; each such case is returned as a warning.
#pragma once

#include <vector>

#include "agent/node_config.hpp"
#include "agent/observed.hpp"
#include "agent/sa_group_source.hpp"
#include "common/error.hpp"

namespace ibsm::agent {

// Warnings (kGroupMtuNoAnswer, kGroupMtuRejected), one per group that fell back to 2048
// (one per port when the port is down or its SA does not answer).
std::vector<Error> resolve_broadcast_mtus(NodeConfig& config, const Observed& observed,
                                          GroupMtuSource& sa);

}  // namespace ibsm::agent
