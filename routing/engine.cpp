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

// dfsssp's routes are deadlock free only on the SLs it hands out: the SM programs SL2VL
// identity for them (sm/sl2vl_plan.hpp) and the SA answers PathRecords with them.
std::vector<std::string_view> engine_names() {
  return {"minhop", "updn", "dnup", "sssp", "dfsssp"};
}

}  // namespace ibsm::routing
