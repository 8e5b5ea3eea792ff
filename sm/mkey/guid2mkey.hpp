// OpenSM's guid2mkey cache file (OSM_CACHE_DIR/guid2mkey): the M_Key of each port
// the SM knows, so a restarted SM (or one taking over with the same cache) can still
// talk to protected ports:
//   0x<16 hex port GUID> 0x<16 hex M_Key>
// one record per line (OpenSM separates records with blank lines).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mad/types.hpp"

namespace ibsm::sm::mkey {

using Guid2Mkey = std::map<mad::Guid, std::uint64_t>;

struct Guid2MkeyParse {
  Guid2Mkey db;
  std::vector<std::string> warnings;  // "<file>:<line>: ..." for lines that were skipped
};

// Parses the file's text; `file` names it in warnings. A bad line is skipped alone.
Guid2MkeyParse parse_guid2mkey(std::string_view text, std::string_view file);
std::string format_guid2mkey(const Guid2Mkey& db);

}  // namespace ibsm::sm::mkey
