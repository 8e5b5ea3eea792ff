// The text of OpenSM's root_guid_file (-a): the root switches for updn. One GUID per
// line, hex with 0x; '#' starts a comment; blank lines are ignored (OpenSM reads it with
// parse_node_map, which also allows text after the GUID; root files carry none).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace ibsm::routing {

struct RootGuids {
  std::vector<std::uint64_t> guids;  // in file order, duplicates kept
  std::vector<Error> warnings;       // kErrRootGuidFile, "<file>:<line>: ..." per bad line
};

// A bad line is skipped with a warning naming `file_name` and the line number.
RootGuids parse_root_guids(std::string_view text, std::string_view file_name);

}  // namespace ibsm::routing
