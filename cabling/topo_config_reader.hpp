// Reads an intended topology from NVIDIA's topoconfig CSV (MLNX OpenSM's
// topo_config_file), one cable a line:
//   SrcGUID,SrcPort,DstGUID,DstPort,DeviceType,LinkState
//   0x0000000000200003,1,0x0000000000100004,1,CA,ACTIVE
// GUIDs are 0x and 1-16 hex digits (node GUIDs; a CA's port GUID is matched to its node
// by the comparison). DeviceType and LinkState may be left out or empty. DeviceType is
// read as the destination's type: SW/SWITCH, CA/HCA, RTR/ROUTER (this reading is not
// confirmed by NVIDIA's documentation; it is only used to name a missing node).
// LinkState: ACTIVE (expected), NO_DISCOVER or DISABLED (a known cable the SM is told
// not to use: neither expected nor reported). Blank lines, '#' comments and a header
// line starting with "SrcGUID" are skipped. The file gives no widths or speeds.
#pragma once

#include <string_view>

#include "cabling/topology.hpp"
#include "common/result.hpp"

namespace ibsm::cabling {

Result<IntendedTopology> read_topo_config(std::string_view text, std::string_view file);

}  // namespace ibsm::cabling
