// Fabric -> routing::Topology, with LIDs handed out the simple way an SM would on a
// fresh subnet: in node order, one LID per switch (port 0, LMC 0: base port 0 switches
// use a single LID, IBA 7.11.1) and a 2^lmc-aligned block per cabled CA/router port.
#pragma once

#include <cstdint>

#include "routing/engine.hpp"
#include "tests/support/fabric.hpp"

namespace ibsm::testsupport {

struct RoutingFixture {
  routing::Topology topo;
  // fabric node index -> switch index (UINT32_MAX for non-switches)
  std::vector<std::uint32_t> switch_of_node;
};

// End ports are the cabled ports of CAs and routers. `lmc` applies to them.
RoutingFixture to_routing(const Fabric& fabric, std::uint8_t lmc = 0);

}  // namespace ibsm::testsupport
