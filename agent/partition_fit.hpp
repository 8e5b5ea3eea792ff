// The guide's warning on partitions: IPoIB on a port can join its partition's
// broadcast group only if the group's rate and MTU do not exceed the port's. The SA
// refuses the join otherwise (OpenSM's validate_port_caps: the port's NeighborMTU must
// be at least the group's MTU and its active rate at least the group's rate), and the
// interface never gets carrier. verify reads both from the SA and names the mismatch.
#pragma once

#include <optional>
#include <string>

#include "agent/observed.hpp"
#include "agent/plan.hpp"
#include "agent/sa_group_source.hpp"

namespace ibsm::agent {

// Why `group` does not suit a port running at `port_gbps` with MTU `port_mtu` bytes
// (0 = unknown: that side is not checked), or nothing when it does.
std::optional<std::string> group_misfit(const BroadcastGroup& group, double port_gbps,
                                        int port_mtu);

// "40 Gb/s", "2.5 Gb/s".
std::string format_gbps(double gbps);

// Asks `sa` for the broadcast group of every planned IPoIB interface on an ACTIVE port
// with an SM, and for each such port's NeighborMTU; fills observed.sa. A question the
// SA does not answer leaves its entry out (verify then skips the check).
void read_group_facts(const Plan& plan, Observed& observed, GroupMtuSource& sa);

}  // namespace ibsm::agent
