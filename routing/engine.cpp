#include <string_view>

#include "routing/engine.hpp"
#include "routing/minhop.hpp"
#include "routing/updn.hpp"

namespace ibsm::routing {

std::unique_ptr<Engine> make_engine(std::string_view name) {
  return make_engine(name, EngineConfig{});
}

std::unique_ptr<Engine> make_engine(std::string_view name, const EngineConfig& config) {
  if (name == "minhop") return make_minhop_engine();
  if (name == "updn") return make_updn_engine(config);
  if (name == "dnup") return make_dnup_engine(config);
  return nullptr;
}

std::vector<std::string_view> engine_names() {
  return {"minhop", "updn", "dnup"};
}

}  // namespace ibsm::routing
