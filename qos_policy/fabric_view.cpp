// Partition facts of a FabricView (fabric_view.hpp).
#include "qos_policy/fabric_view.hpp"

#include <map>

namespace ibsm::qos_policy {

void add_partitions(FabricView& view, const partitions::ResolvedConfig& config,
                    const partitions::MembershipResult& m) {
  std::map<std::uint16_t, unsigned> full;
  for (FabricPort& p : view.ports) {
    auto it = m.ports.find(p.guid);
    if (it == m.ports.end()) continue;
    for (const auto& [pkey, state] : it->second.pkeys) {
      if (!state.any()) continue;
      p.partitions.push_back(static_cast<std::uint16_t>(pkey & 0x7fff));
      if (state.full) ++full[static_cast<std::uint16_t>(pkey & 0x7fff)];
    }
  }
  for (const auto& part : config.partitions) {
    const auto base = static_cast<std::uint16_t>(part.pkey & 0x7fff);
    auto it = full.find(base);
    view.partitions.push_back({part.name, base, it == full.end() ? 0u : it->second});
  }
}

}  // namespace ibsm::qos_policy
