// LID assignment as a step of the heavy sweep (IBA 7.11.1, 14.4.3): the guid2lid
// database this SM keeps across sweeps and restarts (OpenSM's file format,
// sm/lids/guid2lid.hpp), and the LIDs of one sweep's fabric, chosen with the pure rules of
// sm/lids/lid_manager.hpp and written into the model. It sends no SMP: the PortInfo Sets
// that carry the LIDs are sm/links/'s.
#pragma once

#include <optional>
#include <string>

#include "common/log.hpp"
#include "sm/lids/guid2lid.hpp"
#include "sm/sweep/sweep_context.hpp"

namespace ibsm::sm::lids {

// What assign() needs beyond the sweep's context.
struct LidInputs {
  // The election's: leaving STANDBY with honor_guid2lid_file, guid2lid wins over the
  // LID a port reports (ctx.first_master_sweep with reassign_lids is the other rule).
  bool coming_out_of_standby = false;
};

struct LidResult {
  bool ok = false;  // false: the LID space cannot hold every port (logged, in ctx.report)
  // The SM port's LID, for the SweepContexts and snapshots after this step; unset when
  // the SM's port holds none in this fabric (the SM keeps the one it had).
  std::optional<Lid> sm_lid;
};

class LidAssigner {
 public:
  // `log`: the guid2lid file's lines; `lid_log`: LID assignment's (the lid module).
  LidAssigner(Logger log, Logger lid_log) : log_(std::move(log)), lid_log_(std::move(lid_log)) {}

  // <cache_dir>/guid2lid, read at start: a missing file is no error, bad lines are
  // warned (IBSM-2206, with the line) and skipped.
  void load(const std::string& cache_dir);
  // Writes <cache_dir>/guid2lid atomically when assign() changed it; the write and its
  // fsync (fsync_high_avail_files) run through ctx.run_pure on a copy of the text.
  // A failed write is logged (IBSM-2207) and tried again after the next assign().
  void save(const SweepContext& ctx);

  // Gives every LID holder of ctx.fabric its LID and LMC (Port::lid, Port::lmc) and
  // records them in guid2lid.
  LidResult assign(SweepContext& ctx, const LidInputs& in);

  // OpenSM's rule leaving STANDBY without honor_guid2lid_file: ports keep the LIDs they
  // report and the local guid2lid (possibly stale) is dropped.
  void forget() { guid2lid_.clear(); }

  const Guid2Lid& guid2lid() const { return guid2lid_; }
  bool dirty() const { return dirty_; }  // changed since the last successful save

 private:
  Logger log_;
  Logger lid_log_;
  Guid2Lid guid2lid_;
  bool dirty_ = false;
};

}  // namespace ibsm::sm::lids
