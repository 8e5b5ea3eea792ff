#include "conf/options.hpp"

namespace ibsm::conf {

std::string effective_routing_engine(const Options& o) {
  return o.routing_engine.empty() ? std::string("minhop") : o.routing_engine;
}

void apply_deprecated_keys(Options& o) {
  if (o.no_partition_enforcement) o.part_enforce = "off";
}

}  // namespace ibsm::conf
