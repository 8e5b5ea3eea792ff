// Error IDs of the intended-topology readers (cabling/, range 91xx of the 9xxx that
// files use). Catalog rows feed docs/errors.md. Every message names file:line.
#pragma once

#include "common/error.hpp"

namespace ibsm::cabling {

inline constexpr ErrorId kErrTopoFileUnreadable{9101};
inline constexpr ErrorId kErrTopoSyntax{9102};
inline constexpr ErrorId kErrTopoBadPort{9103};
inline constexpr ErrorId kErrTopoContradiction{9104};
inline constexpr ErrorId kErrTopoUnknownNode{9105};

inline constexpr ErrorInfo kCablingErrors[] = {
    {kErrTopoFileUnreadable, "Topology file not read",
     "The intended-topology file (an ibnetdiscover output or a topoconfig CSV) could not be "
     "opened or read. The message names the file and the system error.",
     "Check the path and that the daemon may read the file. The last good topology is kept."},
    {kErrTopoSyntax, "Topology file line not understood",
     "A line of the intended-topology file is not one the format has: an unknown keyword or "
     "token, a malformed GUID (0x and at most 16 hex digits), a missing field, or an unknown "
     "width/speed, device type or link state. The message names file:line and the token.",
     "Fix the line. An ibnetdiscover output can be regenerated with `ibnetdiscover > FILE`; "
     "a CSV line is SrcGUID,SrcPort,DstGUID,DstPort[,DeviceType[,LinkState]]."},
    {kErrTopoBadPort, "Impossible port number in topology file",
     "A link names port 0 or a port above 254, or a port above the port count its node's "
     "header declares. The message names file:line.",
     "Correct the port number; ports of a cable are 1-254."},
    {kErrTopoContradiction, "Topology file contradicts itself",
     "Two lines describe the same port differently: a port cabled to two places, a link "
     "listed twice with different widths or speeds, a cable from a port to itself, or one "
     "node declared twice with different types or port counts. The message names both "
     "lines.",
     "Keep one of the two lines. The file describes each cable once or identically from "
     "both ends."},
    {kErrTopoUnknownNode, "Topology file names an undeclared node",
     "A link line of an ibnetdiscover or ibsim file names a peer by a name that is neither "
     "declared by a Switch/Ca/Rt header nor of the S-/H-/R-<GUID> form.",
     "Declare the node, or name the peer by its GUID form (\"S-0002c90300a1b2c3\")."},
};

}  // namespace ibsm::cabling
