#include "routing/lft_dump.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <numeric>
#include <string>

#include "routing/lid_owners.hpp"

namespace ibsm::routing {
namespace {

std::string hex16(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

void write_owner(std::ostream& out, const Topology& topo, const LidOwner& o) {
  switch (o.kind) {
    case LidOwner::Kind::kSwitch: {
      const Switch& s = topo.switches[o.index];
      out << "Switch portguid " << hex16(s.guid) << ": '" << s.description << "'";
      return;
    }
    case LidOwner::Kind::kEndPort: {
      const EndPort& e = topo.end_ports[o.index];
      out << (e.is_router ? "Router" : "Channel Adapter") << " portguid " << hex16(e.port_guid)
          << ": '" << e.description << "'";
      return;
    }
    case LidOwner::Kind::kNone:
      out << "unknown node and type";
      return;
  }
}

}  // namespace

void dump_lfts(std::ostream& out, const Topology& topo, const Routes& routes) {
  const std::vector<LidOwner> owners = lid_owners(topo);
  std::vector<std::size_t> order(topo.switches.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return topo.switches[a].guid < topo.switches[b].guid;
  });

  for (std::size_t si : order) {
    if (si >= routes.lfts.size()) continue;
    const Switch& sw = topo.switches[si];
    const Lft& lft = routes.lfts[si];
    const std::size_t top = lft.empty() ? 0 : lft.size() - 1;
    out << "Unicast lids [0-" << top << "] of switch Lid " << sw.lid << " guid " << hex16(sw.guid)
        << " ('" << sw.description << "'):\n";
    for (std::size_t lid = 0; lid < lft.size(); ++lid) {
      const PortNum port = lft[lid];
      if (port > sw.num_ports) continue;  // kNoPath and anything else no port can carry
      char head[32];
      std::snprintf(head, sizeof head, "0x%04zx %03u # ", lid, static_cast<unsigned>(port));
      out << head;
      write_owner(out, topo, lid < owners.size() ? owners[lid] : LidOwner{});
      out << '\n';
    }
    out << top << " lids dumped\n";
  }
}

}  // namespace ibsm::routing
