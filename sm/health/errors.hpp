// Error IDs of fabric health (sm/health/, issue 35): the policy file, the hm_* keys
// together, and the judgements. Range 28xx of the SM's 2xxx.
#pragma once

#include "common/error.hpp"

namespace ibsm::sm::health {

inline constexpr ErrorId kErrHealthPolicySyntax{2801};
inline constexpr ErrorId kErrHealthPolicyUnknownPort{2802};
inline constexpr ErrorId kErrHealthPolicyUnreadable{2803};
inline constexpr ErrorId kErrPortUnhealthy{2804};
inline constexpr ErrorId kErrHealthKeys{2805};
inline constexpr ErrorId kErrHealthActionLimited{2806};
inline constexpr ErrorId kErrHealthClearUnknown{2807};

inline constexpr ErrorInfo kHealthErrors[] = {
    {kErrHealthPolicySyntax, "Health policy file: bad line",
     "A line of hm_ports_health_policy_file is not `GUID PORT HEALTHY|UNHEALTHY` (a GUID in "
     "hex, a port number 0-254, one of the two words), or names one port twice with different "
     "words. The message names file:line. The whole file is refused and the last good policy "
     "stays in force.",
     "Fix the line and send SIGHUP."},
    {kErrHealthPolicyUnknownPort, "Health policy file: unknown port",
     "A line of hm_ports_health_policy_file names a GUID no node of the fabric has, or a port "
     "number beyond the node's NumPorts. The message names file:line. The whole file is "
     "refused and the last good policy stays in force.",
     "Check the GUID (node or port GUID, as ibnetdiscover prints it) and the port number, "
     "then send SIGHUP."},
    {kErrHealthPolicyUnreadable, "Health policy file unreadable",
     "hm_ports_health_policy_file cannot be opened or read. The last good policy stays in "
     "force.",
     "Check the path and its permissions, or unset the key."},
    {kErrPortUnhealthy, "Port unhealthy",
     "A port met a health condition (reboot, unresponsive, noisy, seterr, flapping, illegal, "
     "manual or error_rate) and the action its hm_*_action key gives was taken. It stays "
     "unhealthy until cleared; it is listed in opensm-unhealthy-ports.dump.",
     "Check the cable and both ends of the link (iblinkinfo, perfquery); clear the port with "
     "`ibsm-ctl health clear GUID PORT` or by marking it HEALTHY in the policy file."},
    {kErrHealthKeys, "hm_* keys that contradict each other",
     "A count is larger than the window it is counted in (hm_num_flapping_sweeps above "
     "hm_num_flapping_sweeps_window, and so on). The count is taken as the whole window.",
     "Make the count at most its window."},
    {kErrHealthActionLimited, "Health action reduced to report",
     "A port's action was isolate, no_discover or disable, but the port is the SM's own or on "
     "its path, or isolating it would cut a host's only link, or hm_max_isolated_ports ports "
     "are isolated already. The port is reported instead.",
     "Repair the link; raise hm_max_isolated_ports if more isolation is wanted."},
    {kErrHealthClearUnknown, "health clear: no such unhealthy port",
     "`ibsm-ctl health clear GUID PORT` named a port that is not unhealthy now (or words that "
     "are not a GUID and a port number 0-254). Nothing changed.",
     "List the unhealthy ports with `ibsm-ctl health` and use the node GUID and port shown."},
};

}  // namespace ibsm::sm::health
