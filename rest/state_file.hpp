// The REST API's state file: the memberships the API added, so that a restart or a
// standby that takes over keeps every pod's P_Key. Text, one entry a line, versioned:
//
//   # comment
//   ibsm-rest-state 1
//   partition 0x0005 ip_over_ib=1
//   member 0x0005 0x0200000000000001 full index0=1
//
// The version line comes first; a member follows its partition's line; P_Keys as 0xNNNN
// (0x0001-0x7ffe), GUIDs as 0x and 16 hex digits, membership "full" or "limited". The
// writer sorts by P_Key and GUID, so the same state is the same bytes. Written whole with
// common/atomic_file.hpp. docs/integrations-ufm.md.
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"
#include "rest/model.hpp"

namespace ibsm::rest {

inline constexpr unsigned kStateFileVersion = 1;

std::string format_state(const ApiState& state);

// Errors (kErrRestStateFile) name `file_name`:line and the token. A partition line
// without members is dropped (the writer never writes one).
Result<ApiState> parse_state(std::string_view text, std::string_view file_name);

// A missing file is the empty state (the first start); any other read error fails.
Result<ApiState> load_state(const std::string& path);
Status save_state(const std::string& path, const ApiState& state);

}  // namespace ibsm::rest
