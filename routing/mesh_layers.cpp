#include "routing/mesh_layers.hpp"

#include <algorithm>
#include <string>

#include "routing/errors.hpp"
#include "routing/guid_file.hpp"
#include "routing/lid_owners.hpp"
#include "routing/topology_check.hpp"

namespace ibsm::routing {
namespace {

// One hop of a dimension-ordered path: the direction along the first dimension where
// the coordinates differ, and whether the path crosses that dimension's dateline.
struct DimStep {
  unsigned dim = 0;
  bool plus = false;
  bool crosses = false;
};

DimStep direction(std::uint32_t ring, std::uint32_t from, std::uint32_t to) {
  DimStep st;
  if (ring == 0) {
    st.plus = to > from;
    return st;
  }
  const std::uint32_t forward = (to + ring - from) % ring;
  const std::uint32_t backward = ring - forward;
  // Half way round both arcs are shortest: the one without the dateline, both ways.
  st.plus = forward < backward || (forward == backward && from < to);
  st.crosses = st.plus ? from > to : from < to;
  return st;
}

}  // namespace

Result<Routes> route_mesh_by_datelines(const Topology& topo, const MeshShape& shape,
                                       unsigned first_sl, unsigned max_layers) {
  if (Status st = validate_topology(topo); !st) return fail(st.error());
  const auto n = static_cast<std::uint32_t>(topo.switches.size());
  const unsigned dims = shape.dimensions;
  if (!shape.has_coordinates() || shape.coord.size() != std::size_t{n} * dims)
    return fail(kErrNotAMesh, "mesh analysis: no coordinates for the switches");
  // ports[(s * dims + d) * 2 + plus]: the (parallel) ports of s towards its neighbour
  // one step along d.
  std::vector<std::vector<PortNum>> ports(std::size_t{n} * dims * 2);
  for (std::uint32_t s = 0; s < n; ++s) {
    for (const Link& l : topo.switches[s].links) {
      if (l.kind != Link::Kind::kSwitch || l.peer >= n || l.peer == s) continue;
      for (unsigned d = 0; d < dims; ++d) {
        if (shape.at(s, d) == shape.at(l.peer, d)) continue;
        const DimStep st = direction(shape.ring[d], shape.at(s, d), shape.at(l.peer, d));
        ports[(std::size_t{s} * dims + d) * 2 + (st.plus ? 1 : 0)].push_back(l.port);
        break;
      }
    }
  }
  // The datelines a switch pair's path crosses, as a bit per dimension.
  auto crossed = [&](std::uint32_t a, std::uint32_t b) {
    unsigned bits = 0;
    for (unsigned d = 0; d < dims; ++d)
      if (shape.at(a, d) != shape.at(b, d) &&
          direction(shape.ring[d], shape.at(a, d), shape.at(b, d)).crosses)
        bits |= 1u << d;
    return bits;
  };
  std::vector<std::uint8_t> used(std::size_t{1} << std::min(dims, 16u), 0);
  used[0] = 1;
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = a + 1; b < n; ++b)
      used[crossed(a, b)] = 1;
  std::vector<unsigned> layer_of(used.size(), 0);
  unsigned layers = 0;
  for (std::size_t c = 0; c < used.size(); ++c)
    if (used[c] != 0) layer_of[c] = layers++;
  if (layers > max_layers)
    return fail(kErrLashVlsExhausted, "lash: the dimension-ordered paths of this " +
                                          std::to_string(dims) +
                                          "-dimensional torus cross datelines in " +
                                          std::to_string(layers) + " combinations, more than the " +
                                          std::to_string(max_layers) + " layers the VLs allow");

  const std::vector<LidOwner> owners = lid_owners(topo);
  Routes routes;
  routes.lfts.assign(n, Lft(owners.size(), kNoPath));
  routes.path_sl.lids = owners.size();
  routes.path_sl.table.assign(std::size_t{n} * owners.size(), static_cast<std::uint8_t>(first_sl));
  routes.path_sl.layers = layers;
  routes.path_sl.sls = layers;
  std::vector<std::vector<std::uint32_t>> load(n);  // routes per output port
  for (std::uint32_t s = 0; s < n; ++s)
    load[s].assign(std::size_t{topo.switches[s].num_ports} + 1, 0);
  for (std::size_t lid = 1; lid < owners.size(); ++lid) {
    std::uint32_t t = UINT32_MAX;
    PortNum last = 0;
    if (owners[lid].kind == LidOwner::Kind::kSwitch) {
      t = owners[lid].index;
    } else if (owners[lid].kind == LidOwner::Kind::kEndPort) {
      const EndPort& e = topo.end_ports[owners[lid].index];
      t = e.sw;
      last = e.sw_port;
    }
    if (t >= n) continue;
    for (std::uint32_t s = 0; s < n; ++s) {
      routes.path_sl.table[std::size_t{s} * owners.size() + lid] =
          static_cast<std::uint8_t>(first_sl + layer_of[crossed(s, t)]);
      if (s == t) {
        routes.lfts[s][lid] = last;
        continue;
      }
      unsigned d = 0;
      while (d < dims && shape.at(s, d) == shape.at(t, d))
        ++d;
      if (d == dims)  // the analysis gives every switch a spot of its own
        return fail(kErrNotAMesh, "mesh analysis: switches " + hex_guid(topo.switches[s].guid) +
                                      " and " + hex_guid(topo.switches[t].guid) +
                                      " share coordinates");
      const DimStep st = direction(shape.ring[d], shape.at(s, d), shape.at(t, d));
      const auto& choice = ports[(std::size_t{s} * dims + d) * 2 + (st.plus ? 1 : 0)];
      if (choice.empty())
        return fail(kErrNotAMesh, "mesh analysis: switch " + hex_guid(topo.switches[s].guid) +
                                      " has no link along dimension " + std::to_string(d));
      // Parallel cables to the neighbour share its routes, least used first.
      PortNum best = choice.front();
      for (PortNum p : choice)
        if (load[s][p] < load[s][best]) best = p;
      ++load[s][best];
      routes.lfts[s][lid] = best;
    }
  }
  return routes;
}

}  // namespace ibsm::routing
