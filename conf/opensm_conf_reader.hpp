// Reads opensm.conf the way OpenSM 3.3.23 does (osm_subn_parse_conf_file):
// "key value" lines, '#' starts a comment anywhere, the value is the rest of the
// line trimmed with one pair of surrounding quotes removed, later lines win.
//
// ibsm's own keys (conf/option_list.hpp, section kIbsm) may also be written as
// "#ibsm: key value" (kIbsmKeyMarker at the start of the line): a comment to OpenSM,
// which cuts lines at '#' and so reads them silently, a key line to ibsm. `ibsm -c`
// writes them so. An OpenSM key on such a line is ignored with a warning (OpenSM
// would not see it). ibsm keys on plain lines are read too (OpenSM warns
// "Unrecognized token" about them).
//
// Differences, all on the safe side: a value that does not parse or is out of
// range is an error naming file:line, key, value and range (OpenSM logs and
// keeps the old value); a boolean other than TRUE/FALSE and an unknown key are
// warnings (an unknown key is an error in strict mode).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "conf/diagnostic.hpp"
#include "conf/options.hpp"

namespace ibsm::conf {

inline constexpr std::size_t kMaxConfLine = 1023;  // OpenSM's line buffer
inline constexpr std::string_view kIbsmKeyMarker = "#ibsm: ";

// Applies the text of an opensm.conf to `o`. `origin` names it in messages.
Result<std::vector<Warning>> apply_opensm_conf(std::string_view text, std::string_view origin,
                                               Options& o, bool strict);

// Reads a whole file (kFileUnreadable if it cannot be read).
Result<std::string> read_text_file(const std::string& path);

}  // namespace ibsm::conf
