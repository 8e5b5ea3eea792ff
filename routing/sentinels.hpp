// Values that mean "none", "unreachable" or a VL bound in the routing engines, named
// once: the engines agree on them, and a unity build, which compiles several engines
// as one unit, sees one definition.
#pragma once

#include <cstdint>
#include <limits>

namespace ibsm::routing {

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();  // no index
inline constexpr std::uint32_t kFar = std::numeric_limits<std::uint32_t>::max();   // no hop count
inline constexpr std::uint64_t kInf = std::numeric_limits<std::uint64_t>::max();   // no path weight
inline constexpr unsigned kVls = 16;        // IBA: VL0-VL14 data, VL15 management
inline constexpr unsigned kMaxLayers = 15;  // VL0-14 carry data (IBA 3.5.7)

}  // namespace ibsm::routing
