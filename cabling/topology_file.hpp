// Loads an intended-topology file and picks its reader: a file whose first line that is
// neither blank nor a '#' comment holds a comma is topoconfig CSV, any other is read as
// ibnetdiscover output (or an ibsim net file).
#pragma once

#include <string>
#include <string_view>

#include "cabling/topology.hpp"
#include "common/result.hpp"

namespace ibsm::cabling {

enum class TopologyFormat : std::uint8_t { kIbnetdiscover, kTopoConfigCsv };
TopologyFormat detect_topology_format(std::string_view text);

// Parses `text` in the detected format; `file` names it in messages.
Result<IntendedTopology> read_intended_topology(std::string_view text, std::string_view file);
// Reads and parses the file at `path` (IBSM-9101 when it cannot be read).
Result<IntendedTopology> load_intended_topology(const std::string& path);

}  // namespace ibsm::cabling
