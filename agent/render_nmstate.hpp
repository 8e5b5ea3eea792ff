// `ibsm-agent render --format nmstate`: the IPoIB interfaces of the plan as an
// nmstate desired state (nmstate.io, `type: infiniband`: base-iface, mode, pkey),
// for sites that drive hosts with nmstate or the RHEL network system role rather
// than with the agent. P_Keys are written normalised (with 0x8000), as the kernel
// and NetworkManager name children from them. RoCE's default mode, soft RDMA
// devices, modules and limits have no nmstate schema and are listed in a comment.
#pragma once

#include <string>

#include "agent/node_config.hpp"
#include "agent/plan.hpp"

namespace ibsm::agent {

std::string render_nmstate(const Plan& plan, const NodeConfig& config);

}  // namespace ibsm::agent
