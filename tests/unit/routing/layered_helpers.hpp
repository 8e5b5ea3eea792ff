// Shared by the tests of the engines that hand out per-path SLs (dfsssp, lash, nue): the
// credit-loop check reading those SLs as VLs, the irregular fabrics every such engine
// must route, and a compact per-switch table for golden output.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "routing/cdg.hpp"
#include "routing/engine.hpp"
#include "tests/support/builders.hpp"

namespace ibsm::routing::test {

// The VL of each checked path is the SL the engine exported (SL2VL identity); switches,
// if asked for, send on SL 0.
inline CdgOptions sl_as_vl(const Topology& topo, const Routes& routes,
                           bool include_switch_sources = false) {
  CdgOptions o;
  o.vl_of = [&topo, &routes](std::uint32_t src, Lid dlid) -> std::uint8_t {
    return routes.path_sl.sl(topo.end_ports[src].sw, dlid);
  };
  o.include_switch_sources = include_switch_sources;
  return o;
}

// A 2-level fat tree (4 leaves, 2 hosts each, 2 spines) with a cable between leaf0 and
// leaf1: shortest paths can now turn down-up.
inline testsupport::Fabric tree_with_cross_link() {
  testsupport::Fabric f = testsupport::two_level_fat_tree(4, 2, 2);
  const std::uint32_t l0 = *f.find("leaf0");
  const std::uint32_t l1 = *f.find("leaf1");
  const auto p0 = static_cast<std::uint8_t>(++f.nodes[l0].num_ports);
  const auto p1 = static_cast<std::uint8_t>(++f.nodes[l1].num_ports);
  f.cables.push_back({{l0, p0}, {l1, p1}});
  return f;
}

// The same tree with the cable between leaf0 and spine0 gone.
inline testsupport::Fabric tree_with_dead_link() {
  testsupport::Fabric f = testsupport::two_level_fat_tree(4, 2, 2);
  const std::uint32_t leaf0 = *f.find("leaf0");
  const std::uint32_t spine0 = *f.find("spine0");
  std::erase_if(f.cables, [&](const testsupport::Cable& c) {
    return (c.a.node == leaf0 && c.b.node == spine0) || (c.a.node == spine0 && c.b.node == leaf0);
  });
  return f;
}

// One line per switch, one digit per end port: cell(switch, the end port's base LID).
inline std::string per_switch_table(const Topology& topo,
                                    const std::function<unsigned(std::uint32_t, Lid)>& cell) {
  std::string table;
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
    for (const EndPort& d : topo.end_ports)
      table += static_cast<char>('0' + cell(s, d.base_lid));
    table += '\n';
  }
  return table;
}

}  // namespace ibsm::routing::test
