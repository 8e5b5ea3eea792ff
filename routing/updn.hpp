// The "updn" and "dnup" engines: shortest paths that obey the up*/down* turn rule
// (routing/updn_order.hpp), so the routes are free of credit loops on one VL whatever
// the topology; the port choice among legal next hops is balanced like minhop's.
#pragma once

#include <memory>

#include "routing/engine.hpp"

namespace ibsm::routing {

std::unique_ptr<Engine> make_updn_engine(const EngineConfig& config);
std::unique_ptr<Engine> make_dnup_engine(const EngineConfig& config);

}  // namespace ibsm::routing
