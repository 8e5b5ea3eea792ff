// Error IDs of the performance manager (perfmgr/, range 85xx-86xx). Catalog rows
// feed docs/errors.md.
#pragma once

#include "common/error.hpp"

namespace ibsm::perfmgr {

inline constexpr ErrorId kErrPmTimeout{8501};
inline constexpr ErrorId kErrPmStatus{8502};
inline constexpr ErrorId kErrPmMalformed{8503};
inline constexpr ErrorId kErrPmRedirect{8504};
inline constexpr ErrorId kErrPmSend{8505};
inline constexpr ErrorId kErrPmCounterErrors{8506};
inline constexpr ErrorId kErrPmXmitWait{8507};
inline constexpr ErrorId kErrPmOobClear{8508};
inline constexpr ErrorId kErrPmNodeGone{8509};
inline constexpr ErrorId kErrPmDump{8510};
inline constexpr ErrorId kErrPmOverflowClear{8511};
inline constexpr ErrorId kErrPmForeignAnswer{8512};
inline constexpr ErrorId kErrPmForeignRedirect{8513};

inline constexpr ErrorInfo kPerfmgrErrors[] = {
    {kErrPmTimeout, "PerfMgt query timed out",
     "A port's performance management agent did not answer a PortCounters, "
     "PortCountersExtended or ClassPortInfo query (nor its retries) within the timeout.",
     "The port keeps the counters of its last answer; the PerfMgr sweep goes on and asks "
     "again next sweep. A port that never answers has no PMA or is behind a broken path. "
     "Lines are rate-limited: at most one per port per sweep and 20 per sweep."},
    {kErrPmStatus, "PerfMgt query answered with an error status",
     "A PMA answered with a non-zero MAD status other than redirection (unsupported "
     "attribute, invalid field).",
     "The attribute is not used on that port this sweep. Check the device's firmware when the "
     "status is unexpected (PortCounters is mandatory, IBA 16.1.3)."},
    {kErrPmMalformed, "Malformed PerfMgt answer",
     "An answer to a PerfMgt query was shorter or longer than a MAD, or its data could not be "
     "decoded.",
     "The answer is dropped and counts as not received; the sweep goes on."},
    {kErrPmRedirect, "PerfMgt redirection not followed",
     "A PMA answered ClassPortInfo with the redirect status but the redirection is disabled "
     "(perfmgr_redir FALSE), invalid (LID and GID 0, QP 0, P_Key 0, wrong Q_Key), GID-only, or "
     "its target did not answer.",
     "The port is queried at its own LID again next sweep. Set perfmgr_redir TRUE to follow "
     "valid LID redirections (OpenSM's behaviour)."},
    {kErrPmSend, "PerfMgt query could not be sent",
     "The local MAD interface refused a PerfMgt query (no class 0x04 agent, queue full).",
     "The query counts as timed out; the sweep goes on."},
    {kErrPmCounterErrors, "Error counter increased",
     "An error counter of a port rose since the previous PerfMgr sweep (perfmgr_log_errors). "
     "The line names the counter, the increase, the node and port, and the node and port at "
     "the other end of the link.",
     "Symbol and link errors point at the cable or transceiver of that link; discards and "
     "constraint errors at congestion or partition configuration."},
    {kErrPmXmitWait, "PortXmitWait above the threshold",
     "PortXmitWait rose by at least perfmgr_xmit_wait_threshold since the last PerfMgr sweep "
     "(perfmgr_xmit_wait_log).",
     "The port waited for credits to send: congestion downstream of this link."},
    {kErrPmOobClear, "Counters went backwards",
     "A port's counter read lower than on the previous sweep: someone else (perfquery -R, "
     "another PerfMgr, a reset) cleared it.",
     "The previous reading is dropped and the totals keep counting from the new value; "
     "nothing is lost but the increase between the last reading and the clear."},
    {kErrPmNodeGone, "Node left the fabric",
     "A node the PerfMgr monitored is no longer in the SM's fabric.",
     "With perfmgr_rm_nodes TRUE its counters are forgotten; with FALSE they are kept and "
     "shown as inactive until it returns."},
    {kErrPmDump, "Counter dump failed",
     "The counter database could not be written to event_db_dump_file.",
     "Check that the directory exists and is writable by ibsm."},
    {kErrPmOverflowClear, "Counter clear failed",
     "A port whose counters were near saturation did not take the PortCounters Set that "
     "clears them.",
     "The counters stay saturated and the totals stop growing; check the port's PMA."},
    {kErrPmForeignAnswer, "PerfMgt answer does not match its query",
     "A PerfMgt answer carried the TID of an outstanding query but not the rest of it (IBA "
     "13.4.6.4, 16.1): its source LID is not the LID the query went to, or its method is not "
     "GetResp, or its attribute, attribute modifier or PortSelect differ. The answer is "
     "dropped, counted (`ibsm-ctl perfmgr`: answers refused) and changes no counter and "
     "triggers no clear; the query keeps waiting for its real answer. The line names the "
     "claimed source LID, the field that differs and the port that was asked. Lines are "
     "rate-limited: 20 per sweep, then one line with the number not logged.",
     "A host forging PerfMgt answers (to hide errors or have counters cleared), or a broken "
     "PMA. The source LID names the host that sent it: with root on a host anyone can send "
     "MADs, so look there."},
    {kErrPmForeignRedirect, "PerfMgt redirection to another node refused",
     "A ClassPortInfo answer redirected the PerfMgr to a LID that is none of the node's own "
     "port LIDs. Following it would let whoever answers there report the node's counters "
     "(and have them cleared). Lines are rate-limited: 20 per sweep.",
     "The port is queried at its own LID; nothing else changes. A device that really moves "
     "its PMA to another node is not supported; otherwise someone forged the redirection."},
};

}  // namespace ibsm::perfmgr
