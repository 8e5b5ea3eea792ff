#include <string_view>

#include "routing/dfsssp.hpp"
#include "routing/engine.hpp"
#include "routing/file/file_engine.hpp"
#include "routing/ftree/ftree.hpp"
#include "routing/lash/lash.hpp"
#include "routing/minhop.hpp"
#include "routing/nue/nue.hpp"
#include "routing/sssp.hpp"
#include "routing/torus/dor.hpp"
#include "routing/torus/torus_2qos.hpp"
#include "routing/updn.hpp"

namespace ibsm::routing {

std::unique_ptr<Engine> make_engine(std::string_view name) {
  return make_engine(name, EngineConfig{});
}

std::unique_ptr<Engine> make_engine(std::string_view name, const EngineConfig& config) {
  if (name == "minhop") return make_minhop_engine(config);
  if (name == "updn") return make_updn_engine(config);
  if (name == "dnup") return make_dnup_engine(config);
  if (name == "sssp") return make_sssp_engine(config);
  if (name == "dfsssp") return make_dfsssp_engine(config);
  if (name == "ftree") return make_ftree_engine(config);
  if (name == "file") return make_file_engine(config);
  if (name == "dor") return make_dor_engine(config);
  if (name == "torus-2QoS") return make_torus_2qos_engine(config);
  if (name == "lash") return make_lash_engine(config);
  if (name == "nue") return make_nue_engine(config);
  return nullptr;
}

// dfsssp's and lash's routes are deadlock free only on the SLs they hand out: the SM programs SL2VL
// identity for them (sm/tables/sl2vl_plan.hpp) and the SA answers PathRecords with them.
std::vector<std::string_view> engine_names() {
  return {"minhop", "updn", "dnup",       "sssp", "dfsssp", "ftree",
          "file",   "dor",  "torus-2QoS", "lash", "nue"};
}

}  // namespace ibsm::routing
