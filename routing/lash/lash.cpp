// lash: sssp's balanced shortest paths, switch pairs layered first-fit (see lash.hpp).
#include "routing/lash/lash.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "routing/channel_index.hpp"
#include "routing/errors.hpp"
#include "routing/guid_file.hpp"
#include "routing/incremental_dag.hpp"
#include "routing/lid_owners.hpp"
#include "routing/mesh_analysis.hpp"
#include "routing/mesh_layers.hpp"
#include "routing/minhop.hpp"
#include "routing/sssp.hpp"
#include "routing/torus/dor.hpp"

namespace ibsm::routing {
namespace {

inline constexpr unsigned kMaxSls = 15;  // VL0-14 carry data (IBA 3.5.7)

// The LIDs that leave the fabric at each switch: its own (port 0) and those of the
// end ports hanging off it.
std::vector<std::vector<Lid>> lids_by_switch(const Topology& topo) {
  std::vector<std::vector<Lid>> at(topo.switches.size());
  for (std::uint32_t s = 0; s < topo.switches.size(); ++s) {
    const Switch& sw = topo.switches[s];
    for (unsigned i = 0; i < (1u << sw.lmc); ++i)
      if (sw.lid != 0) at[s].push_back(static_cast<Lid>(sw.lid + i));
  }
  for (const EndPort& e : topo.end_ports)
    if (e.sw < topo.switches.size() && e.base_lid != 0)
      for (unsigned i = 0; i < (1u << e.lmc); ++i)
        at[e.sw].push_back(static_cast<Lid>(e.base_lid + i));
  return at;
}

class PairLayers {
 public:
  PairLayers(const Topology& topo, const Routes& routes)
      : routes_(routes), ch_(topo), lids_(lids_by_switch(topo)) {
    has_hosts_.assign(topo.switches.size(), false);
    for (const EndPort& e : topo.end_ports)
      if (e.sw < has_hosts_.size()) has_hosts_[e.sw] = true;
  }

  // The dependencies of both directions of the pair: paths from a switch with end
  // ports (what the credit-loop check grades, routing/cdg.hpp) to every LID of the other.
  void deps_of(std::uint32_t a, std::uint32_t b,
               std::vector<std::pair<std::uint32_t, std::uint32_t>>& deps) {
    deps.clear();
    for (const auto& [src, dst] : {std::pair{a, b}, std::pair{b, a}}) {
      if (!has_hosts_[src]) continue;
      for (Lid lid : lids_[dst]) {
        channels_of_path(ch_, routes_, src, lid, path_, ch_.size());
        for (std::size_t i = 1; i < path_.size(); ++i)
          deps.emplace_back(path_[i - 1], path_[i]);
      }
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  }

  // First fit; the layer index, or max_layers when none takes the pair.
  unsigned place(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& deps,
                 unsigned max_layers) {
    for (unsigned l = 0; l < max_layers; ++l) {
      if (l == dags_.size()) dags_.emplace_back(ch_.size());
      IncrementalDag& dag = dags_[l];
      std::size_t added = 0;
      while (added < deps.size() && dag.add(deps[added].first, deps[added].second))
        ++added;
      if (added == deps.size()) return l;
      for (std::size_t i = 0; i < added; ++i)  // roll the pair back out of this layer
        dag.remove(deps[i].first, deps[i].second);
    }
    return max_layers;
  }

  const std::vector<Lid>& lids(std::uint32_t s) const { return lids_[s]; }
  bool wanted(std::uint32_t a, std::uint32_t b) const { return has_hosts_[a] || has_hosts_[b]; }
  unsigned layers() const { return static_cast<unsigned>(dags_.size()); }

 private:
  const Routes& routes_;
  ChannelIndex ch_;
  std::vector<std::vector<Lid>> lids_;
  std::vector<bool> has_hosts_;
  std::vector<IncrementalDag> dags_;
  std::vector<std::uint32_t> path_;
};

class LashEngine final : public Engine {
 public:
  explicit LashEngine(EngineConfig config) : config_(std::move(config)) {}
  std::string_view name() const override { return "lash"; }
  bool deadlock_free() const override { return true; }

  Result<Routes> route(const Topology& topo) override {
    const unsigned vls = std::min(config_.max_vls, kMaxSls);
    if (config_.lash_start_vl >= vls)
      return fail(kErrLashVlsExhausted,
                  "lash: lash_start_vl " + std::to_string(config_.lash_start_vl) +
                      " leaves no VL: the fabric's ports run " + std::to_string(vls) + " data VLs");
    // sssp's globally balanced shortest paths load the busiest channel least; their
    // variety can need more layers than min-hop's, which are tried when they do not fit
    // (docs/routing.md, lash and nue). On a mesh or torus dimension-ordered paths
    // (routing/mesh_analysis.hpp) fit in the fewest layers: tried first with
    // do_mesh_analysis, else last, where OpenSM's lash gives up.
    const unsigned layers = vls - config_.lash_start_vl;
    auto layered = [&](Result<Routes> routes) -> Result<Routes> {
      if (!routes) return routes;
      Result<PathSls> sls = assign_lash_layers(topo, *routes, config_.lash_start_vl, layers);
      if (!sls) return fail(sls.error());
      routes->path_sl = std::move(*sls);
      return routes;
    };
    auto mesh_paths = [&]() -> Result<Routes> {
      auto shape = analyse_mesh(topo);
      if (!shape) return fail(shape.error());
      if (shape->has_coordinates()) {
        auto routes = route_mesh_by_datelines(topo, *shape, config_.lash_start_vl, layers);
        if (routes) return routes;
      }
      return layered(route_dor(topo, shape->port_order));
    };
    auto shortest_paths = [&]() -> Result<Routes> {
      EngineConfig paths = config_;
      paths.avoid_throttled_links = false;  // a key of sssp, dfsssp and nue only, as OpenSM
      return layered(route_sssp(topo, paths));
    };
    auto min_hop_paths = [&]() { return layered(make_minhop_engine(config_)->route(topo)); };
    struct Source {
      std::function<Result<Routes>()> routes;
      bool mesh = false;
    };
    std::vector<Source> sources = {{shortest_paths}, {min_hop_paths}};
    if (config_.do_mesh_analysis)
      sources.insert(sources.begin(), {mesh_paths, true});
    else
      sources.push_back({mesh_paths, true});
    std::vector<Error> notes;
    std::optional<Error> refused;  // min-hop's: the error reported when nothing fits
    for (const Source& source : sources) {
      Result<Routes> routes = source.routes();
      if (routes) {
        routes->warnings.insert(routes->warnings.begin(), notes.begin(), notes.end());
        return routes;
      }
      if (source.mesh) {
        // No mesh: noted where the analysis was asked for; lash goes on without it.
        if (config_.do_mesh_analysis && routes.error().id == kErrNotAMesh)
          notes.push_back(routes.error());
        continue;
      }
      if (routes.error().id != kErrLashVlsExhausted) return routes;
      refused = routes.error();
    }
    return fail(refused ? *refused : Error{kErrLashVlsExhausted, "lash: no paths to layer"});
  }

 private:
  EngineConfig config_;
};

}  // namespace

Result<PathSls> assign_lash_layers(const Topology& topo, const Routes& routes, unsigned first_sl,
                                   unsigned max_layers) {
  max_layers = std::min(max_layers, kMaxSls - std::min(first_sl, kMaxSls));
  if (max_layers == 0) return fail(kErrLashVlsExhausted, "lash: no SL left for any layer");
  const auto n = static_cast<std::uint32_t>(topo.switches.size());
  PairLayers layering(topo, routes);
  struct Pair {
    std::uint32_t a, b;
  };
  std::vector<std::vector<Pair>> members;  // per layer, in placement order
  std::vector<std::pair<std::uint32_t, std::uint32_t>> deps;
  for (std::uint32_t a = 0; a < n; ++a) {
    for (std::uint32_t b = a + 1; b < n; ++b) {
      if (!layering.wanted(a, b)) continue;
      layering.deps_of(a, b, deps);
      const unsigned l = layering.place(deps, max_layers);
      if (l == max_layers)
        return fail(kErrLashVlsExhausted,
                    "lash: the paths between switches " + hex_guid(topo.switches[a].guid) +
                        " and " + hex_guid(topo.switches[b].guid) + " fit in none of the " +
                        std::to_string(max_layers) + " layers the VLs allow (SL " +
                        std::to_string(first_sl) + "-" + std::to_string(first_sl + max_layers - 1) +
                        ")");
      if (l >= members.size()) members.resize(l + 1);
      members[l].push_back({a, b});
    }
  }
  PathSls out;
  out.layers = std::max<unsigned>(1, layering.layers());
  if (members.empty()) members.resize(1);
  // Spare VLs: split the fullest layer in halves until every VL has one (a subset of an
  // acyclic layer is acyclic, so nothing needs checking again).
  while (members.size() < max_layers) {
    auto fullest =
        std::max_element(members.begin(), members.end(),
                         [](const auto& x, const auto& y) { return x.size() < y.size(); });
    if (fullest->size() < 2) break;
    const std::size_t half = fullest->size() / 2;
    std::vector<Pair> moved(fullest->begin() + static_cast<std::ptrdiff_t>(half), fullest->end());
    fullest->resize(half);
    members.push_back(std::move(moved));
  }
  out.sls = static_cast<unsigned>(members.size());
  out.lids = std::size_t{max_lid(topo)} + 1;
  out.table.assign(std::size_t{n} * out.lids, static_cast<std::uint8_t>(first_sl));
  for (std::size_t l = 0; l < members.size(); ++l) {
    const auto sl = static_cast<std::uint8_t>(first_sl + l);
    for (const Pair& p : members[l]) {
      for (Lid lid : layering.lids(p.b))
        out.table[std::size_t{p.a} * out.lids + lid] = sl;
      for (Lid lid : layering.lids(p.a))
        out.table[std::size_t{p.b} * out.lids + lid] = sl;
    }
  }
  return out;
}

std::unique_ptr<Engine> make_lash_engine(const EngineConfig& config) {
  return std::make_unique<LashEngine>(config);
}

}  // namespace ibsm::routing
