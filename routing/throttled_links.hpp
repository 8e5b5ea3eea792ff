// avoid_throttled_links: the topology sssp, dfsssp and nue route on, without the
// switch-to-switch links that run below what their ends could (Link::throttled).
//
// OpenSM's sssp/dfsssp and nue drop every throttled link from their graph, so a
// switch whose only way to the rest of the fabric is throttled loses its routes.
// Here a throttled link stays where it is the only way between switches: links are
// kept as a minimal set over the components the healthy links leave (Kruskal-like),
// and the rest are dropped. Pure: a Topology in, a Topology and notes out.
#pragma once

#include <vector>

#include "common/error.hpp"
#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

struct ThrottledLinks {
  Topology topology;            // every link but the dropped ones (both directions)
  std::vector<Error> warnings;  // kErrThrottledLinksAvoided / kErrThrottledLinksKept
  unsigned dropped = 0;         // links (not directions) left out
  unsigned kept = 0;            // throttled links kept for connectivity
};

ThrottledLinks without_throttled_links(const Topology& topo);

// `route(topology)` on `topo`, or, when `avoid` (avoid_throttled_links), on `topo`
// without its throttled links, with the notes ahead of the engine's own warnings.
template <class Route>
Result<Routes> route_avoiding_throttled(const Topology& topo, bool avoid, Route&& route) {
  if (!avoid) return route(topo);
  ThrottledLinks t = without_throttled_links(topo);
  Result<Routes> routes = route(static_cast<const Topology&>(t.topology));
  if (routes)
    routes->warnings.insert(routes->warnings.begin(), t.warnings.begin(), t.warnings.end());
  return routes;
}

}  // namespace ibsm::routing
