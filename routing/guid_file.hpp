// The GUID list files OpenSM's routing reads: root_guid_file (-a), cn_guid_file (-u),
// io_guid_file (-G), port_prof_ignore_file (-i) and ids_guid_file (-m). One GUID per
// line, hex with 0x; '#' starts a comment; blank lines are ignored. OpenSM reads them
// with parse_node_map, which allows text after the GUID; ids_guid_file's second column
// is the id (decimal or 0x hex) used instead of the GUID.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "common/text.hpp"

namespace ibsm::routing {

// GUIDs in routing messages and dumps: hex_guid() of common/text.hpp.

struct GuidFile {
  std::vector<std::uint64_t> guids;                          // in file order, duplicates kept
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ids;  // with_ids: (guid, id)
  std::vector<Error> warnings;  // `bad_line`, "<file>:<line>: ..." per bad line
};

// A bad line is skipped with a warning `bad_line` naming `file_name` and the line number.
// Without `with_ids` text after the GUID is ignored (OpenSM's node-map syntax); with it
// the second column must be an id.
GuidFile parse_guid_file(std::string_view text, std::string_view file_name, ErrorId bad_line,
                         bool with_ids = false);

// root_guid_file: the root switches for updn and ftree.
using RootGuids = GuidFile;
RootGuids parse_root_guids(std::string_view text, std::string_view file_name);

}  // namespace ibsm::routing
