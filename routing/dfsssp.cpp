// dfsssp = sssp's forwarding tables + virtual layers for their paths (see dfsssp.hpp).
#include "routing/dfsssp.hpp"

#include "routing/sssp.hpp"
#include "routing/virtual_layers.hpp"

namespace ibsm::routing {
namespace {

class DfssspEngine final : public Engine {
 public:
  explicit DfssspEngine(unsigned max_vls) : max_vls_(max_vls) {}

  std::string_view name() const override { return "dfsssp"; }
  // Each layer's CDG is acyclic by construction; the SM checks it per VL from
  // Routes::path_sl (route_report.cpp), assuming SL i is carried on VL i.
  bool deadlock_free() const override { return true; }

  Result<Routes> route(const Topology& topo) override {
    Result<Routes> routes = route_sssp(topo);
    if (!routes) return routes;
    Result<PathSls> sls = assign_virtual_layers(topo, *routes, max_vls_);
    if (!sls) return fail(sls.error());
    routes->path_sl = std::move(*sls);
    return routes;
  }

 private:
  unsigned max_vls_;
};

}  // namespace

std::unique_ptr<Engine> make_dfsssp_engine(const EngineConfig& config) {
  return std::make_unique<DfssspEngine>(config.max_vls);
}

}  // namespace ibsm::routing
