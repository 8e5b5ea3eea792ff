// The "minhop" engine: shortest paths, with the choice among equally short ports made
// against global per-channel load counters (docs/routing.md explains why).
#pragma once

#include <memory>

#include "routing/engine.hpp"

namespace ibsm::routing {

std::unique_ptr<Engine> make_minhop_engine();
// With the route-balancing inputs of `config` (routing/port_balance.hpp, hop_weights).
std::unique_ptr<Engine> make_minhop_engine(const EngineConfig& config);

}  // namespace ibsm::routing
