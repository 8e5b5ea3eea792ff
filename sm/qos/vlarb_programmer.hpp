// QoS programming of a heavy sweep: the VLArbitrationTable blocks (IBA 14.2.5.9) that
// sm/qos/vlarb_plan.hpp wants every port to hold, Set only where they differ from
// what the port is known to hold (sm/tables/port_tables.hpp, which the answers update). SL2VL
// tables go out with the per-path SL ones, VLHighLimit and the max_vls cap with the
// PortInfo Sets (sm/links/).
#pragma once

#include <cstddef>

#include "common/log.hpp"
#include "sm/qos/qos_config.hpp"
#include "sm/sweep/sweep_context.hpp"
#include "sm/tables/port_tables.hpp"

namespace ibsm::sm::qos {

struct VlArbCounts {
  std::size_t wanted = 0;  // blocks the ports must hold
  std::size_t known = 0;   // of which the SM knew the contents
  std::size_t sets = 0;    // Set by this sweep (different or unknown)
};

// Queues the Sets on ctx.client; nothing when QoS is off. A refused Set is logged
// (IBSM-2203 as a warning, no retry: the port cannot take it); a lost one goes to ctx.report (the
// next heavy sweep retries) and ctx.failed(). `tables` must outlive the answers.
VlArbCounts program_vlarb(const SweepContext& ctx, const QosConfig& qos, PortTables& tables,
                          const Logger& log);

}  // namespace ibsm::sm::qos
