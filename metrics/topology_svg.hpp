// The status page's topology picture: one SVG element per switch, carrying
// data-guid="0x<node GUID>", one summary element per switch with hosts (never one per
// host), and the links coloured by the worst error level of the ports at their ends
// (port_errors.hpp). Links without errors are one path element; only links with
// errors are elements of their own, up to kMaxErrorLinks, so that a 5832-host
// fabric stays a few thousand DOM nodes.
#pragma once

#include <string>

#include "metrics/port_errors.hpp"
#include "metrics/topology_layout.hpp"
#include "names/node_name_map.hpp"
#include "sa/snapshot.hpp"

namespace ibsm::metrics {

inline constexpr std::size_t kMaxErrorLinks = 2000;
// Up to this many switches each gets its name written beside it.
inline constexpr std::size_t kLabelledSwitchesMax = 64;

// `names` may be null (NodeDescriptions then).
std::string topology_svg(const TopologyLayout& layout, const sa::Snapshot& fabric,
                         const PortErrors& errors, const names::NodeNameMap* names);

}  // namespace ibsm::metrics
