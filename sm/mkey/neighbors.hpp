// OpenSM's neighbors cache file (OSM_CACHE_DIR/neighbors): which port sits at the
// other end of each link, so that before discovery reaches a port the SM can still
// name it and present its M_Key (a port at protection level 2 or 3 drops even the
// NodeInfo that would identify it):
//   0x<16 hex port GUID>:<port> 0x<16 hex port GUID>:<port>
// one record per direction of a link (switch ports carry the switch's GUID).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mad/types.hpp"

namespace ibsm::sm::mkey {

using PortEnd = std::pair<mad::Guid, mad::PortNum>;
using Neighbors = std::map<PortEnd, PortEnd>;

struct NeighborsParse {
  Neighbors db;
  std::vector<std::string> warnings;  // "<file>:<line>: ..." or a dropped one-way record
};

// Parses the file's text; `file` names it in warnings. As OpenSM validates the cache
// at start, a record whose neighbor does not point back is dropped with a warning.
NeighborsParse parse_neighbors(std::string_view text, std::string_view file);
std::string format_neighbors(const Neighbors& db);

}  // namespace ibsm::sm::mkey
