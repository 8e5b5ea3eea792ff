// Which switch or end port answers to each LID. The dump needs it for its comments and
// the analysis to decide where a packet was delivered.
#pragma once

#include <cstdint>
#include <vector>

#include "routing/engine.hpp"

namespace ibsm::routing {

// Unicast LIDs are 0x0001-0xBFFF (IBA 4.1.3, table 2).
inline constexpr Lid kMaxUnicastLid = 0xBFFF;

struct LidOwner {
  enum class Kind : std::uint8_t { kNone, kSwitch, kEndPort };
  Kind kind = Kind::kNone;
  std::uint32_t index = 0;  // into Topology::switches or Topology::end_ports
};

// owners[lid] for every LID of every switch (port 0) and end port, 2^LMC per port
// (IBA 7.11.1: a port answers to base LID .. base LID + 2^LMC - 1). LIDs beyond the
// unicast range are ignored here; engines reject them.
std::vector<LidOwner> lid_owners(const Topology& topo);

// Highest LID used by any port of the fabric (0 if none).
Lid max_lid(const Topology& topo);

}  // namespace ibsm::routing
