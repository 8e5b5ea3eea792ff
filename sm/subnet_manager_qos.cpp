// QoS programming (opensm.conf qos): the settings, and the VLArbitrationTable Sets.
// SL2VL tables go out with the per-path SL ones (SubnetManager::program_sl2vl), VLHighLimit
// and the max_vls cap of OperationalVLs with the PortInfo Sets (sm/port_config.cpp).
#include <algorithm>

#include "conf/errors.hpp"
#include "sm/errors.hpp"
#include "sm/qos/vlarb_plan.hpp"
#include "sm/subnet_manager.hpp"

namespace ibsm::sm {

using mad::SmpOutcome;
using mad::SmpRequest;

void SubnetManager::apply_qos_options() {
  qos_ = qos::qos_config(options_);
  // OpenSM (osm_subnet.c osm_subn_verify_config): a long transaction is at least a normal
  // one; a smaller value is raised, with a warning.
  long_timeout_ = std::chrono::milliseconds(options_.long_transaction_timeout);
  if (options_.long_transaction_timeout < options_.transaction_timeout) {
    log_->warn("{}: long_transaction_timeout {} is below transaction_timeout {}; using {}",
               format_error_id(conf::kBadValue), options_.long_transaction_timeout,
               options_.transaction_timeout, options_.transaction_timeout);
    long_timeout_ = std::chrono::milliseconds(options_.transaction_timeout);
  }
}

void SubnetManager::program_vlarb(Fabric& f, SweepReport& report) {
  vlarb_sets_ = 0;
  if (!qos_.enabled) return;
  std::size_t known = 0;
  const auto wants = qos::vlarb_wants(f, qos_, options_.max_op_vls);
  for (const qos::VlArbWant& w : wants) {
    const Node& n = f.node(w.node);
    port_tables_.ensure(n);
    const Guid guid = n.guid();
    // Only the entries the port has (its VLArbitration cap) count: the rest are not stored.
    if (const auto held = port_tables_.vlarb(guid, w.port, w.block)) {
      ++known;
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
    ++vlarb_sets_;
    client_.submit(SmpRequest::set(path, w.table, mod), [this, &report, guid,
                                                         w](const SmpOutcome& o) {
      if (o.ok()) {
        // The GetResp of a Set carries what the port now holds.
        port_tables_.record_vlarb(guid, w.port, w.block,
                                  mad::VlArbBlock::decode_payload(o.response->data()));
        return;
      }
      if (o.failure != nullptr && o.failure->kind == mad::SmpFailure::Kind::kStatus) {
        log_->warn("{}: VLArbitrationTable Set refused: {}: status 0x{:04x}",
                   format_error_id(kErrProgrammingFailed), o.request.describe(), o.failure->status);
        return;
      }
      // Lost: a failure the next heavy sweep retries.
      report_failure(log_, &report, kErrProgrammingFailed, o, "VLArbitrationTable");
      mkey_hint(o);
    });
  }
  log_->info("QoS: {} VLArbitrationTable blocks wanted, {} known, {} to Set", wants.size(), known,
             vlarb_sets_);
}

}  // namespace ibsm::sm
