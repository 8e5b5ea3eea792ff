// The QoS policy file's qos-setup (qos_policy/setup.hpp) as per-port overrides of the
// qos_* class tables (sm/qos/qos_config.hpp PortOverrides): built for the fabric of
// each heavy sweep, before the SL2VL, VLArbitration and PortInfo (VLHighLimit)
// programming reads them. Pure: a Fabric and a policy in, tables out.
#pragma once

#include <memory>
#include <vector>

#include "partitions/membership.hpp"
#include "partitions/resolve.hpp"
#include "qos_policy/compile.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/qos/qos_config.hpp"

namespace ibsm::sm::qos {

// Null when the policy has no qos-setup scope or cannot apply to this fabric (the
// reason is in `notes`, with the warnings).
std::shared_ptr<const PortOverrides> policy_setup(const Fabric& f, const QosConfig& base,
                                                  std::shared_ptr<const qos_policy::Policy> policy,
                                                  const partitions::ResolvedConfig& partitions,
                                                  const partitions::MembershipResult& membership,
                                                  std::vector<qos_policy::CompileNote>& notes);

}  // namespace ibsm::sm::qos
