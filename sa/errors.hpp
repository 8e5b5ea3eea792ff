// Error IDs of the Subnet Administrator (range 7xxx). Catalog rows feed docs/errors.md.
#pragma once

#include "common/error.hpp"

namespace ibsm::sa {

inline constexpr ErrorId kErrSaMalformed{7001};
inline constexpr ErrorId kErrSaBadKey{7002};
inline constexpr ErrorId kErrSaUnsupported{7003};
inline constexpr ErrorId kErrSaSendFailed{7004};
inline constexpr ErrorId kErrSaTrimmed{7005};
inline constexpr ErrorId kErrSaUnknownRequester{7006};
inline constexpr ErrorId kErrSaLimit{7007};
inline constexpr ErrorId kErrSaDbLoad{7030};
inline constexpr ErrorId kErrSaDbWrite{7031};

inline constexpr ErrorInfo kSaErrors[] = {
    {kErrSaMalformed, "Malformed SA MAD",
     "A MAD on the SA's queue is shorter than the 56-byte SA header, has another base "
     "version or class, or carries a record that cannot be read.",
     "The MAD is dropped and counted; the log line names the source LID. Repeated lines point "
     "at a broken or hostile client on that LID."},
    {kErrSaBadKey, "SA request with a wrong SM_Key",
     "A request carried a non-zero SM_Key different from sa_key; as in OpenSM it is dropped "
     "without an answer.",
     "Check the client's SM_Key setting (ibdiag.conf smkey, --smkey) against sa_key in "
     "opensm.conf."},
    {kErrSaUnsupported, "Unsupported SA attribute or method",
     "A request named an attribute the SA does not serve or a method outside Get, Set, "
     "GetTable, GetMulti, Delete; OpenSM drops those too.",
     "Usually a newer client feature. The request is dropped and counted."},
    {kErrSaSendFailed, "SA response could not be sent",
     "The local MAD interface refused an SA response.",
     "Check the SM's port; the client retries on its own timeout."},
    {kErrSaTrimmed, "SA tables trimmed to one MAD",
     "The transport carries no RMPP (ibsim's umad2sim, or a kernel that refused an RMPP "
     "agent): GetTable answers longer than one MAD are cut to the records that fit, as "
     "OpenSM's own answers are there.",
     "Expected under ibsim. On real hardware check that ib_umad supports RMPP."},
    {kErrSaUnknownRequester, "SA request from an unknown LID",
     "A request came from a LID that no port of the last sweep holds; as in OpenSM, queries "
     "about nodes, ports, paths, groups and services from it are not answered.",
     "A port that came up after the last sweep; the next sweep assigns it. Frequent lines: "
     "check that sweeps complete."},
    {kErrSaLimit, "SA limit of a port reached",
     "A port asked the SA to hold one more ServiceRecord, InformInfo subscription, multicast "
     "membership or created multicast group than its limit (sa_max_service_records_per_port, "
     "sa_max_inform_info_per_port, sa_max_mcast_memberships_per_port, "
     "sa_max_mcast_groups_per_port), or the SA as a whole holds its total "
     "(sa_max_service_records, sa_max_inform_info, sa_max_mcast_memberships). The request is "
     "refused with ERR_NO_RESOURCES (0x0100), as OpenSM refuses what it cannot allocate; the "
     "line names the port (GUID and LID) and is logged on the 1st, 2nd, 4th, ... refusal of "
     "its kind. Other requests are answered as before.",
     "A client that registers without ever deleting (or a hostile one): find it by the GUID. "
     "If the use is legitimate, raise the limit in opensm.conf (SIGHUP); a lease that runs "
     "out, a Delete, an unsubscribe or a leave frees a slot."},
    {kErrSaDbLoad, "SA database file not restored",
     "The file named by sa_db_file (-S) could not be read, or a line of it is not an SA "
     "database record as OpenSM writes them (opensm-sa.dump). The message names the file, the "
     "line and the field. Records before that line are restored, the rest are not.",
     "Fix or remove the line (or the sa_db_file setting). The SM keeps running; clients whose "
     "service records or event subscriptions were not restored register them again."},
    {kErrSaDbWrite, "SA database dump could not be written",
     "sa_db_dump is set but opensm-sa.dump could not be written to dump_files_dir.",
     "Check that dump_files_dir exists and is writable; the dump is retried after the next "
     "sweep."},
};

}  // namespace ibsm::sa
