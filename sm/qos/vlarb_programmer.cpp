// The VLArbitrationTable Sets of a heavy sweep (sm/qos/vlarb_programmer.hpp).
#include "sm/qos/vlarb_programmer.hpp"

#include <algorithm>

#include "sm/errors.hpp"
#include "sm/qos/vlarb_plan.hpp"
#include "sm/sweep/sweep_report.hpp"

namespace ibsm::sm::qos {

VlArbCounts program_vlarb(const SweepContext& ctx, const QosConfig& qos, PortTables& tables,
                          const Logger& log) {
  VlArbCounts counts;
  if (!qos.enabled) return counts;
  const Fabric& f = ctx.fabric;
  const auto wants = vlarb_wants(f, qos, ctx.options.max_op_vls);
  counts.wanted = wants.size();
  for (const VlArbWant& w : wants) {
    const Node& n = f.node(w.node);
    tables.ensure(n);
    const Guid guid = n.guid();
    // Only the entries the port has (its VLArbitration cap) count: the rest are not stored.
    if (const auto held = tables.vlarb(guid, w.port, w.block)) {
      ++counts.known;
      if (std::equal(w.table.entries.begin(), w.table.entries.begin() + w.entries,
                     held->entries.begin()))
        continue;
    }
    // Not known, or different: OpenSM sends it as well (it keeps what it sent, never reads);
    // reset values are the device's own and rarely the configured ones, so no Get first.
    mad::DrPath path = n.path;
    if (const Port& p = n.ports[w.port]; !n.is_switch() && p.peer != kNoNode) {
      if (auto ext = f.node(p.peer).path.extended(p.peer_port)) path = *ext;
    }
    const std::uint32_t mod = mad::vlarb_attr_mod(w.block, n.is_switch() ? w.port : PortNum{0});
    ++counts.sets;
    ctx.client.submit(mad::SmpRequest::set(path, w.table, mod), [&tables, &report = ctx.report,
                                                                 on_failure = ctx.on_failure, log,
                                                                 guid,
                                                                 w](const mad::SmpOutcome& o) {
      if (o.ok()) {
        // The GetResp of a Set carries what the port now holds.
        tables.record_vlarb(guid, w.port, w.block,
                            mad::VlArbBlock::decode_payload(o.response->data()));
        return;
      }
      // Refused or lost, a Set error of the port to fabric health.
      report.set_failed(guid, w.port);
      if (o.failure != nullptr && o.failure->kind == mad::SmpFailure::Kind::kStatus) {
        log->warn("{}: VLArbitrationTable Set refused: {}: status 0x{:04x}",
                  format_error_id(kErrProgrammingFailed), o.request.describe(), o.failure->status);
        return;
      }
      // Lost: a failure the next heavy sweep retries.
      report_failure(log, &report, kErrProgrammingFailed, o, "VLArbitrationTable");
      if (on_failure) on_failure(o);
    });
  }
  log->info("QoS: {} VLArbitrationTable blocks wanted, {} known, {} to Set", counts.wanted,
            counts.known, counts.sets);
  return counts;
}

}  // namespace ibsm::sm::qos
