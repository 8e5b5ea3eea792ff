#include "conf/options.hpp"

namespace ibsm::conf {

std::string effective_routing_engine(const Options& o) {
  return o.routing_engine.empty() ? std::string("minhop") : o.routing_engine;
}

}  // namespace ibsm::conf
