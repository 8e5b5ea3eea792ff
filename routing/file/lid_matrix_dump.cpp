#include "routing/file/lid_matrix_dump.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include "routing/file/dump_text.hpp"
#include "routing/hop_matrix.hpp"

namespace ibsm::routing {

Status dump_lid_matrix(std::ostream& out, const Topology& topo) {
  auto hops = HopMatrix::compute(topo);
  if (!hops.ok()) return fail(hops.error());
  const auto n = static_cast<std::uint32_t>(topo.switches.size());
  std::vector<std::uint32_t> by_guid(n), by_lid(n);
  std::iota(by_guid.begin(), by_guid.end(), 0U);
  std::iota(by_lid.begin(), by_lid.end(), 0U);
  std::stable_sort(by_guid.begin(), by_guid.end(), [&](std::uint32_t a, std::uint32_t b) {
    return topo.switches[a].guid < topo.switches[b].guid;
  });
  std::stable_sort(by_lid.begin(), by_lid.end(), [&](std::uint32_t a, std::uint32_t b) {
    return topo.switches[a].lid < topo.switches[b].lid;
  });

  std::string line;
  for (std::uint32_t s : by_guid) {
    const Switch& sw = topo.switches[s];
    // The switch behind each port (self-links carry no hops, as in OpenSM).
    std::vector<std::uint32_t> peer(std::size_t{sw.num_ports} + 1, UINT32_MAX);
    for (const Link& l : sw.links)
      if (l.kind == Link::Kind::kSwitch && l.peer != s && l.port <= sw.num_ports)
        peer[l.port] = l.peer;
    out << "Switch: guid " << dump_text::hex_guid(sw.guid) << '\n';
    for (std::uint32_t d : by_lid) {
      if (hops->hops(s, d) == HopMatrix::kUnreachable || topo.switches[d].lid == 0) continue;
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%04x:", unsigned{topo.switches[d].lid});
      line = buf;
      for (std::size_t p = 0; p < peer.size(); ++p) {
        unsigned h = 0xff;
        if (p == 0) h = hops->hops(s, d);
        if (p != 0 && peer[p] != UINT32_MAX && hops->hops(peer[p], d) != HopMatrix::kUnreachable)
          h = std::min(0xffU, hops->hops(peer[p], d) + 1U);
        std::snprintf(buf, sizeof buf, " %02x", h);
        line += buf;
      }
      line += " # portguid " + dump_text::hex_guid(topo.switches[d].guid) + '\n';
      out << line;
    }
  }
  return {};
}

}  // namespace ibsm::routing
