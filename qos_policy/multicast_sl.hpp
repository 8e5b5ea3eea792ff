// The SL the QoS policy gives a multicast group, from the group's P_Key alone.
//
// OpenSM 3.3.23 applies the policy to PathRecords and MultiPathRecords only: its
// multicast groups (the IPoIB broadcast groups of partitions.conf included) keep the
// partition's SL, and a policy SL that differs is merely logged. So under OpenSM a
// policy line `ipoib, pkey 0x8002 : 7` moves IPoIB unicast to SL 7 while the same
// partition's broadcast and multicast traffic stays on SL 0. ibsm lets the policy
// decide the group's SL too (docs/qos-policy.md "Multicast groups"), with the same
// precedence OpenSM gives it over the partition's SL for PathRecords.
//
// A group has no source or destination port and no ServiceID or QoS class, so the
// rules that can speak for it are those a query carrying only the group's P_Key
// matches from any port to any port: no source, destination, service-id or qos-class
// condition, and a pkey condition (if any) that holds the group's P_Key. The first
// such rule in policy order decides, as for PathRecords. The default level is not used: it speaks
// for unicast paths no rule names, and would otherwise override every partition's SL.
#pragma once

#include <cstdint>
#include <optional>

#include "qos_policy/model.hpp"

namespace ibsm::qos_policy {

struct MulticastSl {
  std::uint8_t sl = 0;
  std::size_t rule = 0;  // index into Policy::rules, for the log line
};

// `pkey`: the group's P_Key (the membership bit is ignored).
std::optional<MulticastSl> multicast_sl(const Policy& policy, std::uint16_t pkey);

}  // namespace ibsm::qos_policy
