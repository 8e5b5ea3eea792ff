// The error IDs the SM answers control requests with (ibsm-ctl's range IBSM-8001..8199):
// defined here, where the SM that refuses or fails a request uses them, because sm/ may
// not include ctl/ (ctl/ sits above sm/). ctl/errors.hpp refers to these IDs and lists
// these rows in its catalog (docs/errors.md), so each ID is defined once.
#pragma once

#include "common/error.hpp"

namespace ibsm::ops {

inline constexpr ErrorId kErrNotAvailable{8011};
inline constexpr ErrorId kErrSweepFailed{8040};
inline constexpr ErrorId kErrNotSweeping{8041};
inline constexpr ErrorId kErrNoModel{8042};
inline constexpr ErrorId kErrNotMaster{8043};
inline constexpr ErrorId kErrNoStandby{8044};
inline constexpr ErrorId kErrPerfmgr{8050};

// Catalog rows, in the order ctl's catalog (kCtlErrors) lists them.
inline constexpr ErrorInfo kNotAvailableInfo{
    kErrNotAvailable, "Feature not available in this ibsm",
    "The command belongs to a feature this ibsm does not run (perfmgr print_counters, "
    "print_errors, dump_counters, dump_redir: the PerfMgr is off; permodlog: per-module "
    "logging is not configured).",
    "See the message for the option that enables it (`perfmgr enable` starts the PerfMgr)."};
inline constexpr ErrorInfo kSweepFailedInfo{
    kErrSweepFailed, "Requested sweep did not bring the subnet up",
    "The sweep a resweep, reroute or update_desc asked for ended with problems; the answer "
    "counts them and the log lists them.",
    "Read the ERRORS DURING INITIALIZATION lines in the log; the next sweep is heavy."};
inline constexpr ErrorInfo kNotSweepingInfo{
    kErrNotSweeping, "This SM does not sweep",
    "Sweeps are asked of an SM that is STANDBY or NOT-ACTIVE; only a MASTER (or DISCOVERING) SM "
    "sweeps (IBA 14.4.1).",
    "Send the command to the master SM (`ibsm-ctl status` names it)."};
inline constexpr ErrorInfo kNoModelInfo{
    kErrNoModel, "No fabric model to reroute",
    "reroute recomputes the routes of the last heavy sweep's model, and there is none yet.",
    "Use `resweep heavy`."};
inline constexpr ErrorInfo kNotMasterInfo{kErrNotMaster, "Only a MASTER hands over",
                                          "handover was asked of an SM that is not MASTER.",
                                          "Send it to the master SM."};
inline constexpr ErrorInfo kNoStandbyInfo{
    kErrNoStandby, "No SM to hand over to",
    "handover found no other SM that answers and could take the fabric; this SM stays MASTER.",
    "Start a standby SM first (`ibsm-ctl status` lists the known SMs)."};
inline constexpr ErrorInfo kPerfmgrInfo{
    kErrPerfmgr, "perfmgr subcommand failed",
    "The PerfMgr refused a `perfmgr` subcommand's value (sweep_time outside 1-65535, "
    "xmit_wait_threshold not a number, print_counters without a node) or could not write "
    "dump_counters' file. The PerfMgr's settings are unchanged.",
    "The message names the value or the file; `ibsm-ctl help perfmgr` shows the syntax."};

}  // namespace ibsm::ops
