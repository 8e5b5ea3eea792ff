// hop_weights_file (-w): per-output-port hop costs for minhop. One line per port,
// "<switch GUID> <port> <weight>" (GUID hex with 0x, port >= 1, weight 1-255), '#' starts
// a comment; unlisted ports weigh 1. A weight only affects leaving the switch by that
// port, so a link is usually weighted from both ends (OpenSM's man page, opensm(8) -w).
#pragma once

#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

struct HopWeightsFile {
  std::vector<EngineConfig::HopWeight> weights;  // file order; a later line for a port wins
  std::vector<Error> warnings;  // kErrHopWeightsFile, "<file>:<line>: ..." per bad line
};

// A bad line is skipped with a warning naming `file_name` and the line number; never fails.
HopWeightsFile parse_hop_weights(std::string_view text, std::string_view file_name);

}  // namespace ibsm::routing
