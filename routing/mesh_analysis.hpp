// Mesh analysis (opensm.conf do_mesh_analysis, used by lash): finds the dimensions of a
// mesh or torus of switches from its links alone, without port numbering or a
// torus-2QoS.conf, and turns them into a port search order per switch (dimension by
// dimension) under which dor's first-minimal-port rule routes one dimension after the
// other. lash layers those paths in far fewer virtual layers than arbitrary shortest
// paths: on a 6x6x6 torus sssp's and min-hop's paths need more than 8, dimension-ordered
// ones fit (OpenSM's lash, too, fits that torus only with do_mesh_analysis TRUE).
//
// The rule (a property of meshes and tori, not OpenSM's algorithm): at a switch, two
// neighbours lie in different dimensions exactly when they have a common neighbour
// besides the switch (they span a square), and the two neighbours of one dimension
// (its - and + direction) have none. Links on one line of a dimension are chained by
// those opposite pairs, and the two opposite sides of every square are parallel; the
// classes these relations join are the dimensions. Whatever is not a mesh or torus
// (trees, dragonflies, random fabrics, rings of 4 whose opposite neighbours share a
// neighbour) leaves some switch with more than two links of one class, or links of one
// class that are not opposite, and the analysis refuses it with the reason.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

struct MeshShape {
  unsigned dimensions = 0;
  // Per switch (Topology::switches order): its ports 1..num_ports, the inter-switch
  // ports of dimension 0 first (by port number), then dimension 1, ..., then the rest.
  // Parallel cables to one neighbour share that neighbour's dimension.
  std::vector<std::vector<PortNum>> port_order;
  // Coordinates, where the links also orient consistently (the + direction of every
  // dimension agreed across all squares: every mesh, and every torus whose rings are
  // longer than 4), one spot per switch: coord[s * dimensions + d], from 0; ring[d] is
  // the length of the dimension's rings, 0 where it has no wraparound. Empty otherwise.
  std::vector<std::uint32_t> coord;
  std::vector<std::uint32_t> ring;
  bool has_coordinates() const { return !coord.empty(); }
  std::uint32_t at(std::uint32_t sw, unsigned d) const { return coord[sw * dimensions + d]; }
};

// Dimensions are numbered by their first link in switch order, then port order, so the
// result depends only on the topology. Fails with kErrNotAMesh naming what broke the rule.
Result<MeshShape> analyse_mesh(const Topology& topo);

}  // namespace ibsm::routing
