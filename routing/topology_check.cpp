#include "routing/topology_check.hpp"

#include <string>

#include "routing/errors.hpp"
#include "routing/lid_owners.hpp"

namespace ibsm::routing {

Status validate_topology(const Topology& topo) {
  const auto bad = [](std::string what) { return fail(kErrTopologyInvalid, std::move(what)); };
  for (std::size_t s = 0; s < topo.switches.size(); ++s) {
    const Switch& sw = topo.switches[s];
    if (sw.lid != 0 && sw.lid + (1U << sw.lmc) - 1U > kMaxUnicastLid)
      return fail(kErrLidOutOfRange, "switch " + sw.description + " LID " + std::to_string(sw.lid) +
                                         " LMC " + std::to_string(sw.lmc));
    for (const Link& l : sw.links) {
      if (l.port == 0 || l.port > sw.num_ports)
        return bad("switch " + sw.description + " has a link on port " + std::to_string(l.port) +
                   " of " + std::to_string(sw.num_ports));
      const std::size_t limit =
          l.kind == Link::Kind::kSwitch ? topo.switches.size() : topo.end_ports.size();
      if (l.peer >= limit)
        return bad("switch " + sw.description + " port " + std::to_string(l.port) +
                   " links to a missing node");
    }
  }
  for (const EndPort& e : topo.end_ports) {
    if (e.base_lid != 0 && e.base_lid + (1U << e.lmc) - 1U > kMaxUnicastLid)
      return fail(kErrLidOutOfRange, "end port " + e.description + " LID " +
                                         std::to_string(e.base_lid) + " LMC " +
                                         std::to_string(e.lmc));
    if (e.sw != UINT32_MAX && (e.sw >= topo.switches.size() || e.sw_port == 0 ||
                               e.sw_port > topo.switches[e.sw].num_ports))
      return bad("end port " + e.description + " hangs off a missing switch port");
  }
  return {};
}

}  // namespace ibsm::routing
