#include <string_view>

#include "routing/dfsssp.hpp"
#include "routing/engine.hpp"
#include "routing/minhop.hpp"
#include "routing/sssp.hpp"
#include "routing/updn.hpp"

namespace ibsm::routing {

std::unique_ptr<Engine> make_engine(std::string_view name) {
  return make_engine(name, EngineConfig{});
}

std::unique_ptr<Engine> make_engine(std::string_view name, const EngineConfig& config) {
  if (name == "minhop") return make_minhop_engine();
  if (name == "updn") return make_updn_engine(config);
  if (name == "dnup") return make_dnup_engine(config);
  if (name == "sssp") return make_sssp_engine();
  if (name == "dfsssp") return make_dfsssp_engine(config);
  return nullptr;
}

// "dfsssp" is built by make_engine but not offered yet: its routes are deadlock free only
// when the SA hands out Routes::path_sl and the SM programs SL2VL as identity, which the
// SM does not do yet; until then -R dfsssp is refused rather than run on VL 0 alone.
std::vector<std::string_view> engine_names() {
  return {"minhop", "updn", "dnup", "sssp"};
}

}  // namespace ibsm::routing
