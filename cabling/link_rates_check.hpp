// Links running below their rate: against the width/speed a file gives, else against
// the best both ends support, as iblinkinfo's "Could be" (ibdiag_common.c). Also the
// degraded-link check that needs no file (issue 35, item 5).
#pragma once

#include <cstdint>
#include <vector>

#include "cabling/deviation.hpp"
#include "cabling/fabric_index.hpp"

namespace ibsm::cabling {

// What "best both ends support" is taken from: PortInfo's Supported masks (iblinkinfo's
// and the default), or the Enabled ones (ibsim reports every width and speed as
// Supported, so only Enabled shows a real mismatch there).
enum class RateReference : std::uint8_t { kSupported, kEnabled };

struct LinkEnd {
  std::uint32_t node = 0;
  std::uint8_t port = 0;
};

// Appends the width_mismatch and speed_mismatch of the cable a-b. expected_width 0 /
// expected_speed kUnknown: compare with the best both ends support in `ref`, or, when
// !best_when_unstated, not at all. A value the ports do not report (0, kUnknown, an
// empty set) is not judged.
void check_link_rate(const FabricIndex& fx, LinkEnd a, LinkEnd b, std::uint8_t expected_width,
                     Speed expected_speed, RateReference ref, std::vector<Deviation>& out,
                     bool best_when_unstated = true);

// Every cable of the fabric active below the best width or speed both ends support,
// sorted (sort_deviations).
std::vector<Deviation> find_degraded_links(const DiscoveredFabric& fabric,
                                           RateReference ref = RateReference::kSupported);

// The ends of a deviation: the node's GUID, the port and the node's name.
DeviationEnd deviation_end(const FabricIndex& fx, LinkEnd e);

}  // namespace ibsm::cabling
