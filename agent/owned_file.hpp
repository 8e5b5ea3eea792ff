// Files the agent writes whole (profiles, drop-ins, rules) carry an ownership
// marker; these helpers plan writing and pruning them without ever touching a
// file someone else wrote.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "agent/fs.hpp"
#include "agent/plan.hpp"

namespace ibsm::agent {

// The header line of every unit-style/config file the agent owns.
inline constexpr std::string_view kFileMarker = "# Managed by ibsm-agent";
// NetworkManager keyfiles have no inline comments; [user] data survives round trips.
inline constexpr std::string_view kNmMarker = "org.ibsm.owner=ibsm-agent";

// "# Managed by ibsm-agent from the node file; local edits are overwritten.\n"
std::string file_header(std::string_view comment = "#");

// Plans a write when `path` differs from `content` (or its mode from `mode`).
// A file without `marker` is foreign: a kForeignObject plan error, never a write.
void plan_owned_file(Plan& plan, const Fs& fs, const std::string& resource, const std::string& path,
                     const std::string& content, unsigned mode, std::string_view marker);

// Owned files in `dir` whose name starts with `prefix` and that are not in
// `desired`: removed with --prune, otherwise reported.
void plan_prune(Plan& plan, const Fs& fs, const std::string& dir, const std::string& prefix,
                const std::set<std::string>& desired, std::string_view marker, bool prune);

}  // namespace ibsm::agent
