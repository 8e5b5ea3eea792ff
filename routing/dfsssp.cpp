// dfsssp = sssp's forwarding tables + virtual layers for their paths (see dfsssp.hpp).
#include "routing/dfsssp.hpp"

#include <string>
#include <utility>

#include "routing/errors.hpp"
#include "routing/mesh_analysis.hpp"
#include "routing/mesh_layers.hpp"
#include "routing/sssp.hpp"
#include "routing/virtual_layers.hpp"

namespace ibsm::routing {
namespace {

class DfssspEngine final : public Engine {
 public:
  explicit DfssspEngine(EngineConfig config) : config_(std::move(config)) {}

  std::string_view name() const override { return "dfsssp"; }
  // Each layer's CDG is acyclic by construction; the SM checks it per VL from
  // Routes::path_sl (route_report.cpp), assuming SL i is carried on VL i.
  bool deadlock_free() const override { return true; }

  Result<Routes> route(const Topology& topo) override {
    Result<Routes> routes = route_sssp(topo, config_);  // with the routing order / ignore
    if (!routes) return routes;
    Result<PathSls> sls = assign_virtual_layers(topo, *routes, config_.max_vls);
    if (!sls) {
      // A torus tangles sssp's paths into more layers than the VLs allow; its
      // dimension-ordered paths need at most one per combination of datelines.
      if (sls.error().id == kErrDfssspVlsExhausted) {
        if (auto shape = analyse_mesh(topo); shape && shape->has_coordinates()) {
          auto mesh = route_mesh_by_datelines(topo, *shape, 0, config_.max_vls);
          if (mesh) {
            // sssp's own warnings (ignored GUIDs, ...) still hold for the inputs.
            mesh->warnings = std::move(routes->warnings);
            mesh->warnings.push_back(
                {kErrDfssspTorusLayers, "dfsssp: " + sls.error().message + "; routed the " +
                                            std::to_string(shape->dimensions) +
                                            "-dimensional mesh/torus dimension by dimension on " +
                                            std::to_string(mesh->path_sl.sls) + " SLs instead"});
            return mesh;
          }
        }
      }
      return fail(sls.error());
    }
    routes->path_sl = std::move(*sls);
    return routes;
  }

 private:
  EngineConfig config_;
};

}  // namespace

std::unique_ptr<Engine> make_dfsssp_engine(const EngineConfig& config) {
  return std::make_unique<DfssspEngine>(config);
}

}  // namespace ibsm::routing
