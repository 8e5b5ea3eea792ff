// Control requests that work on a subsystem the SM hosts rather than on the SM itself:
// `ibsm-ctl perfmgr ...` on the PerfMgr (perfmgr/console.hpp) and `ibsm-ctl permodlog
// ...` on the per-module loggers (conf/per_module_logging.hpp). Each gets the one
// subsystem it works on and answers the request; neither sees the SM. SM thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/log.hpp"
#include "ops/control_queue.hpp"
#include "perfmgr/perf_manager.hpp"

namespace ibsm::sm::control {

// The console's perfmgr subcommand (req.words). The counter reads need a running
// PerfMgr (IBSM-8011 otherwise); a refused value is IBSM-8050. `changed` is called
// before the answer when the request changes something (req.changes), so the ops
// snapshot the operator reads next shows it. Counter listings are formatted by the
// receiver, off this thread (ControlReply::finish).
void carry_out_perfmgr(perfmgr::PerfManager& pm, const std::string& dump_dir,
                       ops::ControlRequest& req, const std::function<void()>& changed);

// permodlog: [] shows each module's flags, [reload] re-reads `file`, [module, flags]
// sets one module's (req.arg: the flags, checked by the parser). `log_flags`: the
// log_flags in force, for the listing's heading.
void carry_out_permodlog(const Logger& log, const std::string& file, std::uint8_t log_flags,
                         ops::ControlRequest& req);

}  // namespace ibsm::sm::control
