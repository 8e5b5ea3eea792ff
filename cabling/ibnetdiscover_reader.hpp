// Reads an intended topology from ibnetdiscover's text output, or from an ibsim net file
// (the same grammar family: ibsim reads ibnetdiscover output, and its own files name
// nodes instead of S-/H-<GUID>):
//   Switch 8 "S-0000000000200003"   # "leaf2" base port 0 lid 0 lmc 0
//   [3]  "S-0000000000200000"[2]    # "spine1" lid 0 4xSDR
//   Ca 1 "H-0000000000100000"       # "h1"
//   [1](100001)  "S-0000000000200002"[1]   # lid 0 lmc 0 "leaf1" lid 0 4xSDR
//   Hca 1 "h1"                      (ibsim: a name; GUID from a caguid= line or none)
//   [1] "leaf1"[1] w=1              (ibsim: options after the peer are ignored)
// The rate at the end of a link's comment ("4xSDR") is the intended width and speed;
// ibsim files have none. vendid=, devid=, sysimgguid=, switchguid=, caguid=, rtguid=,
// width=, speed= lines, "Non-Chassis Nodes" and "Chassis" lines are read and skipped.
// Anything else is refused with file:line (cabling/errors.hpp).
#pragma once

#include <string_view>

#include "cabling/topology.hpp"
#include "common/result.hpp"

namespace ibsm::cabling {

Result<IntendedTopology> read_ibnetdiscover(std::string_view text, std::string_view file);

}  // namespace ibsm::cabling
