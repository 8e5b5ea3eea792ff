// Error catalog of the QoS policy file (qos_policy/, range 25xx of the SM's 2xxx):
// OpenSM's qos-policy.conf (qos_policy_file, -Y) read, checked and applied.
#pragma once

#include "common/error.hpp"

namespace ibsm::qos_policy {

inline constexpr ErrorId kPolicySyntax{2501};
inline constexpr ErrorId kPolicyReference{2502};
inline constexpr ErrorId kPolicyUnreadable{2503};
inline constexpr ErrorId kPolicyIpoibPartition{2504};
inline constexpr ErrorId kPolicyPKeyNoPartition{2505};
inline constexpr ErrorId kPolicyEngineSl{2506};
inline constexpr ErrorId kPolicyWithoutQos{2507};
inline constexpr ErrorId kPolicyCheckUsage{2508};

inline constexpr ErrorInfo kQosPolicyErrors[] = {
    {kPolicySyntax, "QoS policy file syntax error",
     "The QoS policy file (qos_policy_file, -Y) does not follow OpenSM's grammar at the "
     "file:line:column named: an unknown or misplaced keyword, a value of the wrong form "
     "(number, range, list, pair), a value out of range (SL above 15, mtu-limit outside "
     "1-5, rate-limit outside 2-24, an sl2vl-table without 16 VLs), a tag given twice, or a "
     "section not closed. The whole file is refused: the SM keeps the policy it had (none "
     "at start-up) and nothing on the fabric changes.",
     "Fix the line named and send SIGHUP (or restart). `ibsm --check-qos-policy FILE` checks "
     "a file without touching a running SM."},
    {kPolicyReference, "QoS policy file refers to something it does not define",
     "A qos-match-rule names a qos-level or a source/destination port-group the file does not "
     "define, or the file has no qos-level named DEFAULT and no `default:` line in qos-ulps "
     "(OpenSM ERR AC10-AC13). The file is refused as a whole, as for a syntax error.",
     "Define the level or group (names are case-insensitive) or correct the name at the "
     "file:line:column given."},
    {kPolicyUnreadable, "QoS policy file cannot be read",
     "qos is on and qos_policy_file names a file that cannot be opened. OpenSM's default path "
     "(/etc/opensm/qos-policy.conf) missing is not an error (no policy, as in OpenSM); any "
     "other path is.",
     "Check the path and permissions, or unset qos_policy_file."},
    {kPolicyIpoibPartition, "IPoIB rule names a partition that cannot carry IPoIB",
     "An `ipoib` or `ipoib, pkey` rule of qos-ulps names a P_Key whose partition does not exist "
     "in partitions.conf or has fewer than two full members in the fabric. OpenSM refuses the "
     "whole policy then (its IPoIB check is strict); ibsm does the same: no policy is applied "
     "to the fabric until the partition is fixed.",
     "Define the partition with at least two full members, or correct the P_Key of the rule."},
    {kPolicyPKeyNoPartition, "QoS policy P_Key has no partition",
     "A qos-match-rule or an `any, pkey` rule names a P_Key that partitions.conf does not "
     "define (OpenSM ERR AC02/AC14). The rule still matches requests carrying that P_Key.",
     "Usually a typo or a partition that was removed; correct the policy or partitions.conf."},
    {kPolicyEngineSl, "Routing engine and QoS policy both choose path SLs",
     "The routing engine (dfsssp, lash, nue, torus-2QoS) assigns SLs to paths to stay "
     "deadlock free, and the QoS policy gives SLs too. As in OpenSM the engine has the last "
     "word: the policy's SL is its hint, the engine keeps the SL bits it needs (all of them "
     "for dfsssp, lash and nue; all but bit 3, the QoS bit, for torus-2QoS). A PathRecord "
     "that asks for an SL the engine does not give gets no path.",
     "Expected when combining them; let the policy decide only the QoS bit with torus-2QoS, "
     "or use an engine without per-path SLs if the policy's SLs must hold."},
    {kPolicyWithoutQos, "QoS policy file given but QoS is off",
     "qos_policy_file (-Y) is set but qos (-Q) is FALSE. OpenSM reads the policy only with QoS "
     "on; ibsm does the same and ignores the file.",
     "Turn qos on (-Q, or qos TRUE in opensm.conf) or drop -Y."},
    {kPolicyCheckUsage, "ibsm --check-qos-policy: bad tuple",
     "A --match tuple of the check mode is not of the form "
     "SRC,DST[,service-id=N][,pkey=N][,qos-class=N] with SRC and DST port GUIDs.",
     "See docs/qos-policy.md, section \"Checking a policy\"."},
};

}  // namespace ibsm::qos_policy
