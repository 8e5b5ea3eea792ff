#include "qos_policy/multicast_sl.hpp"

namespace ibsm::qos_policy {

namespace {

// A rule that a P_Key-only query matches whatever its source and destination.
bool speaks_for_group(const MatchRule& r, std::uint16_t pkey15) {
  if (!r.source_groups.empty() || !r.destination_groups.empty()) return false;
  if (!r.qos_class.empty() || !r.service_id.empty()) return false;
  return r.pkey.empty() || contains(r.pkey, pkey15);
}

}  // namespace

std::optional<MulticastSl> multicast_sl(const Policy& policy, std::uint16_t pkey) {
  const std::uint16_t pkey15 = pkey & 0x7fff;
  for (std::size_t i = 0; i < policy.rules.size(); ++i) {
    const MatchRule& r = policy.rules[i];
    if (!speaks_for_group(r, pkey15)) continue;
    // Every qos-level has an SL (the parser refuses one without, as OpenSM does).
    const Level& level = policy.levels[r.level];
    if (!level.sl) return std::nullopt;
    return MulticastSl{*level.sl, i};
  }
  return std::nullopt;
}

}  // namespace ibsm::qos_policy
