// Partition facts for port groups (partition:, pkey:) and IPoIB rules: which
// partitions.conf partitions exist, their members and full members, from the
// partitions module's membership of the fabric's end ports.
#pragma once

#include "partitions/membership.hpp"
#include "partitions/resolve.hpp"
#include "qos_policy/compile.hpp"

namespace ibsm::qos_policy {

// Fills view.partitions and each port's partitions from `m` (ports by GUID).
void add_partitions(FabricView& view, const partitions::ResolvedConfig& config,
                    const partitions::MembershipResult& m);

}  // namespace ibsm::qos_policy
