// Error IDs of master/standby election (range 23xx, part of the SM core's 2xxx).
// Catalog rows feed docs/errors.md.
#pragma once

#include "common/error.hpp"

namespace ibsm::sm::election {

inline constexpr ErrorId kErrForeignSmKey{2301};
inline constexpr ErrorId kErrSmInfoBadAnswer{2302};
inline constexpr ErrorId kErrSmInfoSetRefused{2303};
inline constexpr ErrorId kErrHandoverFailed{2304};
inline constexpr ErrorId kErrMasterLost{2305};

inline constexpr ErrorInfo kElectionErrors[] = {
    {kErrForeignSmKey, "Other SM has a different SM_Key",
     "An SM answered SMInfo with an SM_Key other than ours (sm_key, default 1). As IBA and "
     "OpenSM require, it is ignored: it can never make this SM STANDBY, so both may act as "
     "master and program the fabric in turn (a possible dual master).",
     "Give every SM on the subnet the same sm_key (or stop the foreign SM). The message names "
     "its port GUID."},
    {kErrSmInfoBadAnswer, "SMInfo answer does not fit",
     "A port that advertises IsSM answered SMInfo with another port's GUID or an undecodable "
     "payload. The answer is ignored.",
     "Check the SM running on the port named in the message."},
    {kErrSmInfoSetRefused, "SMInfo Set refused",
     "Another SM (or sminfo -s) sent SubnSet(SMInfo) with a control this SM's state does not "
     "accept (IBA 14.4.1; OpenSM's legality table). It was answered with status 7 and nothing "
     "changed.",
     "Nothing, unless it repeats: then check the sender named in the message."},
    {kErrHandoverFailed, "HANDOVER not accepted",
     "This master tried to hand the subnet to a higher-ranked SM, which refused or did not "
     "answer. This SM stays MASTER and does not retry that SM for a minute.",
     "Check the other SM's log and state (sminfo against its LID)."},
    {kErrMasterLost, "Master SM stopped answering",
     "As STANDBY this SM polls the master; it did not answer polling_retry_number + 1 polls "
     "in a row (every sminfo_polling_timeout ms), so this SM takes over.",
     "Find out why the old master stopped (host, process, link). When it comes back it stays "
     "STANDBY if master_sm_priority keeps this SM ahead, else it takes the fabric back."},
};

}  // namespace ibsm::sm::election
