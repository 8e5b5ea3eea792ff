// The persistent GUID-to-LID database, in OpenSM's guid2lid format so an admin
// switching from OpenSM keeps every LID:
//   0x<16 hex port GUID> 0x<4 hex min LID> 0x<4 hex max LID>
// one record per line (OpenSM separates records with blank lines).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mad/types.hpp"

namespace ibsm::sm {

struct LidRange {
  mad::Lid min = 0;
  mad::Lid max = 0;
  bool operator==(const LidRange&) const = default;
};

using Guid2Lid = std::map<mad::Guid, LidRange>;

struct Guid2LidParse {
  Guid2Lid db;
  std::vector<std::string> warnings;  // "line 7: ..." for lines that were skipped
};

// Parses the file's text. Bad lines are skipped with a warning naming the line;
// they never take the rest of the database with them.
Guid2LidParse parse_guid2lid(std::string_view text);
std::string format_guid2lid(const Guid2Lid& db);

}  // namespace ibsm::sm
