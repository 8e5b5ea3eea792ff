// SLtoVLMappingTable programming for per-path SLs, per-hop VLs and QoS
// (SwitchTables::program_sl2vl, sm/tables/switch_tables.hpp; the plan is
// sm/tables/sl2vl_plan.hpp). Only tables not known to hold what is wanted are read, and only
// those that differ are Set.
#include <functional>
#include <vector>

#include "mad/attr/vl_tables.hpp"
#include "sm/errors.hpp"
#include "sm/tables/sl2vl_plan.hpp"
#include "sm/tables/switch_tables.hpp"

namespace ibsm::sm::tables {

using mad::SmpOutcome;
using mad::SmpRequest;

void SwitchTables::program_sl2vl(const SweepContext& ctx, const Sl2VlInput& in) {
  sl2vl_counts_.reset();
  const bool qos_on = in.qos != nullptr && in.qos->enabled;
  // Every path on SL 0 and no QoS: whatever the ports map SL 0 to will do.
  if (!in.path_sls && !qos_on) return;
  Fabric& f = ctx.fabric;
  // Pointers, not references: the Gets' callbacks run after this returns.
  SweepReport* report = &ctx.report;
  mad::SmpClient* client = &ctx.client;
  PortTables* port_tables = &in.port_tables;
  const std::function<void(const SmpOutcome&)> failed = ctx.on_failure;
  const bool suppress_status = ctx.options.suppress_sl2vl_mad_status_errors;
  const std::chrono::milliseconds long_timeout = in.long_timeout;
  auto counts = std::make_shared<Sl2VlCounts>();
  sl2vl_counts_ = counts;
  // Engines with per-hop VLs (torus-2QoS) hand their own tables; the rest get identity, or
  // with QoS their port class's qos_*sl2vl (sm/tables/sl2vl_plan.hpp says how they combine).
  const EngineSl2Vl engine_tables = engine_sl2vl(in.topology, in.routes.sl2vl);
  const char* what = qos_on ? "SL2VL for QoS" : "SL2VL for per-path SLs";
  for (const Sl2VlWant& w : sl2vl_wants(f, ctx.options.max_op_vls, engine_tables, in.qos)) {
    const Node& n = f.node(w.node);
    port_tables->ensure(n);
    const Guid guid = n.guid();
    // A CA answers for the port the SMP enters by: address it through its peer.
    mad::DrPath path = n.path;
    if (const Port& p = n.ports[w.out]; !n.is_switch() && p.peer != kNoNode) {
      if (auto ext = f.node(p.peer).path.extended(p.peer_port)) path = *ext;
    }
    const std::uint32_t mod = !n.is_switch() ? 0
                              : w.all_inputs ? mad::sl2vl_all_inputs_attr_mod(w.out)
                                             : mad::sl2vl_attr_mod(w.in, w.out);
    // The tables one Set writes: (in, out), or with all_inputs every input of the switch.
    std::vector<PortNum> inputs{w.in};
    if (w.all_inputs) {
      inputs.clear();
      for (PortNum i = 0; i <= n.num_ports(); ++i)
        inputs.push_back(i);
    }
    const mad::SlToVlTable table = w.table;
    ++counts->wanted;
    const auto set = [this, client, report, port_tables, failed, suppress_status, long_timeout,
                      guid, path, mod, table, w, inputs, counts] {
      ++counts->sets;
      SmpRequest req = SmpRequest::set(path, table, mod);
      // OpenSM (osm_qos.c): an optimized Set may take the switch long to carry out.
      if (w.all_inputs) req.timeout = long_timeout;
      client->submit(req, [this, report, port_tables, failed, suppress_status, guid, w, table,
                           inputs](const SmpOutcome& o) {
        if (o.ok()) {
          for (PortNum i : inputs)
            port_tables->record_sl2vl(guid, w.out, i, table);
          return;
        }
        // A port that refuses the table cannot be helped by retrying (OpenSM logs it and
        // goes on); a lost answer is a failure the next heavy sweep retries.
        if (o.failure != nullptr && o.failure->kind == mad::SmpFailure::Kind::kStatus) {
          // suppress_sl2vl_mad_status_errors: devices known to refuse (no SL2VL support
          // although they advertise it) need not fill the log every sweep, nor count
          // as fabric health's Set errors.
          if (!suppress_status) report->set_failed(guid, w.out);
          log_->log(suppress_status ? spdlog::level::debug : spdlog::level::warn,
                    "{}: SLtoVLMappingTable Set refused: {}: status 0x{:04x}",
                    format_error_id(kErrProgrammingFailed), o.request.describe(),
                    o.failure->status);
          return;
        }
        report_failure(log_, report, kErrProgrammingFailed, o, "SLtoVLMappingTable");
        report->set_failed(guid, w.out);
        if (failed) failed(o);
      });
    };
    if (w.all_inputs) {
      // Known only when every table the Set stands for is; Gets of each input would cost
      // what the optimized form saves, so an unknown port gets the Set.
      bool same = true;
      for (PortNum i : sl2vl_inputs(f, w.node, w.out)) {
        const auto held = port_tables->sl2vl(guid, w.out, i);
        same = same && held && *held == table.packed();
      }
      if (same) {
        ++counts->known;
        continue;
      }
      set();
      continue;
    }
    if (auto held = port_tables->sl2vl(guid, w.out, w.in)) {
      ++counts->known;
      if (*held != table.packed()) set();
      continue;
    }
    // Unknown: a Get costs what a Set does, and spares the Set where the port already
    // maps as wanted (ports often reset to SL i -> VL i mod VLs). Either way the table
    // is then known, and later sweeps send nothing for it.
    ++counts->gets;
    client->submit(SmpRequest::get<mad::SlToVlTable>(path, mod),
                   [port_tables, guid, w, table, set](const SmpOutcome& o) {
                     if (o.ok()) {
                       const auto held = mad::SlToVlTable::decode_payload(o.response->data());
                       port_tables->record_sl2vl(guid, w.out, w.in, held);
                       if (held.packed() == table.packed()) return;
                     }
                     set();
                   });
  }
  log_->info("{}: {} tables wanted, {} known, {} to read", what, counts->wanted, counts->known,
             counts->gets);
}

}  // namespace ibsm::sm::tables
