// Where the status page draws each switch. A fat tree (every switch-to-switch link
// joins neighbouring tiers, tier = hops from the nearest switch with hosts) is drawn
// in rows by tier, leaves at the bottom, each row ordered to follow the row below;
// any other fabric (torus, dragonfly, random) as a force-directed graph. Hosts are
// not placed: the page sums them per switch (`hosts`). A pure function of the
// fabric snapshot, computed off the SM's thread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sa/snapshot.hpp"

namespace ibsm::metrics {

struct LayoutSwitch {
  std::uint32_t node = 0;          // index into sa::Snapshot::nodes
  int tier = -1;                   // tiered layouts: hops from the leaves (0 = leaf)
  double x = 0, y = 0;             // centre, in SVG user units
  std::uint32_t hosts = 0;         // CA and router ports cabled to it
  std::uint32_t hosts_active = 0;  // of which the link is Active
};

struct LayoutLink {
  std::uint32_t a = 0, b = 0;  // indices into TopologyLayout::switches, a < b
  // Each cable between the two: (port on a, port on b).
  std::vector<std::pair<mad::PortNum, mad::PortNum>> cables;
};

struct TopologyLayout {
  bool tiered = false;
  int tiers = 0;
  double width = 0, height = 0;
  std::vector<LayoutSwitch> switches;
  std::vector<LayoutLink> links;
};

// Geometry, in SVG user units.
inline constexpr double kSwitchSize = 10;
inline constexpr double kSwitchPitch = 14;  // between neighbours of one tier
inline constexpr double kTierGap = 150;
inline constexpr double kMargin = 24;
inline constexpr double kHostDrop = 34;      // hosts' summary below their leaf
inline constexpr double kMinRowWidth = 900;  // small fabrics spread out to this
// Above this many switches a non-tiered fabric is drawn on a circle (the force
// layout is quadratic in the switches).
inline constexpr std::size_t kForceLayoutMax = 1000;

TopologyLayout lay_out(const sa::Snapshot& fabric);

// "sw2" before "sw10": digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b);

}  // namespace ibsm::metrics
