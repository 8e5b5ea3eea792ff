// The "dfsssp" engine: sssp's balanced shortest paths (routing/sssp.hpp), made free of
// credit loops by spreading the paths over virtual layers, one SL/VL each
// (routing/virtual_layers.hpp; Domke, Hoefler, Nagel, IPDPS 2011). The SL of each path
// is in Routes::path_sl for the SA's PathRecord answers.
#pragma once

#include <memory>

#include "routing/engine.hpp"

namespace ibsm::routing {

// Uses at most config.max_vls layers; fails with kErrDfssspVlsExhausted beyond them.
std::unique_ptr<Engine> make_dfsssp_engine(const EngineConfig& config);

}  // namespace ibsm::routing
