#include "routing/lid_owners.hpp"

#include <algorithm>

namespace ibsm::routing {
namespace {

unsigned last_lid(Lid base, std::uint8_t lmc) {
  return base + (1U << lmc) - 1U;
}

}  // namespace

Lid max_lid(const Topology& topo) {
  unsigned m = 0;
  for (const Switch& s : topo.switches)
    if (s.lid != 0) m = std::max(m, last_lid(s.lid, s.lmc));
  for (const EndPort& e : topo.end_ports)
    if (e.base_lid != 0) m = std::max(m, last_lid(e.base_lid, e.lmc));
  return static_cast<Lid>(std::min<unsigned>(m, kMaxUnicastLid));
}

std::vector<LidOwner> lid_owners(const Topology& topo) {
  std::vector<LidOwner> owners(std::size_t{max_lid(topo)} + 1);
  auto claim = [&](Lid base, std::uint8_t lmc, LidOwner owner) {
    if (base == 0) return;
    const unsigned last = std::min<unsigned>(last_lid(base, lmc), kMaxUnicastLid);
    for (unsigned lid = base; lid <= last; ++lid)
      owners[lid] = owner;
  };
  for (std::uint32_t i = 0; i < topo.switches.size(); ++i)
    claim(topo.switches[i].lid, topo.switches[i].lmc, {LidOwner::Kind::kSwitch, i});
  for (std::uint32_t i = 0; i < topo.end_ports.size(); ++i)
    claim(topo.end_ports[i].base_lid, topo.end_ports[i].lmc, {LidOwner::Kind::kEndPort, i});
  return owners;
}

}  // namespace ibsm::routing
