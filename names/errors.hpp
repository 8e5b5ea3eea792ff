// Error IDs of the node name map (IBSM-2050..2052, in the SM core's 2xxx range, where
// they were defined before names/ was a library of its own). Catalog rows feed
// docs/errors.md.
#pragma once

#include "common/error.hpp"

namespace ibsm::names {

inline constexpr ErrorId kErrNodeNameMapSyntax{2050};
inline constexpr ErrorId kErrNodeNameMapUnreadable{2051};
inline constexpr ErrorId kErrNodeNameMapDuplicate{2052};

inline constexpr ErrorInfo kNamesErrors[] = {
    {kErrNodeNameMapSyntax, "Node name map line in error",
     "A line of the node name map (node_name_map_name, infiniband-diags' ib-node-name-map "
     "format) does not start with a node GUID in C notation followed by a blank, '#' or the "
     "end of the line, or is longer than 255 characters. The message names file:line. The "
     "whole file is refused: the map in force stays (the last good one; at start-up none, so "
     "nodes go by their NodeDescription).",
     "Fix the line (`0x0002c90300a1b2c3 \"leaf-07\"`), then send SIGHUP (or `ibsm-ctl` "
     "reload) to read the map again."},
    {kErrNodeNameMapUnreadable, "Node name map unreadable",
     "The file named by node_name_map_name cannot be opened or read. The map in force stays.",
     "Check the path and its permissions. Leave node_name_map_name unset to read "
     "/etc/opensm/ib-node-name-map only when it exists, as OpenSM does."},
    {kErrNodeNameMapDuplicate, "Node named twice in the node name map",
     "Two lines of the node name map give one node GUID different names. As in "
     "infiniband-diags, the first line wins; the warning names the later line.",
     "Delete one of the two lines."},
};

}  // namespace ibsm::names
