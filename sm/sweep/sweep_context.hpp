// SweepContext: one heavy sweep's scratch state, handed to each sweep component
// (sm/lids, sm/routes, sm/links, sm/tables, ...) with its own inputs. A component
// never receives the SubnetManager: what it reads and writes of a sweep is here, what
// it keeps between sweeps is its own member state, and what it returns is its result.
// The SM builds one per heavy (or targeted) sweep, on its stack, and drops it at the end.
#pragma once

#include <functional>
#include <vector>

#include "conf/options.hpp"
#include "mad/smp_client.hpp"
#include "sm/fabric/fabric.hpp"
#include "sm/sweep/pure_runner.hpp"
#include "sm/sweep/sweep_report.hpp"

namespace ibsm::sm {

struct SweepContext {
  Fabric& fabric;                // the model this sweep builds and programs
  SweepReport& report;           // problems of this sweep (SUBNET UP needs none)
  mad::SmpClient& client;        // where SMPs go; the SM drains it between phases
  const conf::Options& options;  // the options in force for this sweep
  // Pure work (no model, no client) goes through this so the SM keeps serving its port
  // meanwhile (SubnetManager's compute_while_serving); tests run it inline.
  PureRunner run_pure = run_inline;
  // A targeted sweep (sm/reroute/) programs only the nodes marked here; null: all.
  const std::vector<bool>* only_nodes = nullptr;
  // A request that failed for want of an answer or with a status: the M_Key hint
  // (sm/mkey/) logs OpenSM's "mis-set mkey" advice where it applies. May be empty.
  std::function<void(const mad::SmpOutcome&)> on_failure;
  // True until this SM has brought the subnet up as master once (OpenSM's
  // first_time_master_sweep): client reregistration, LID reassignment, alias rewrite.
  bool first_master_sweep = true;
  Lid sm_lid = 0;  // the SM port's LID, once LIDs are assigned

  void failed(const mad::SmpOutcome& o) const {
    if (on_failure) on_failure(o);
  }
};

}  // namespace ibsm::sm
