#include <string_view>

#include "routing/engine.hpp"
#include "routing/minhop.hpp"

namespace ibsm::routing {

std::unique_ptr<Engine> make_engine(std::string_view name) {
  if (name == "minhop") return make_minhop_engine();
  return nullptr;
}

std::vector<std::string_view> engine_names() {
  return {"minhop"};
}

}  // namespace ibsm::routing
