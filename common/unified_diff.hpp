// A unified diff (diff -u style, 3 lines of context) of two texts: ibsm-part --dry-run
// and the agent's plan show changes to files with it.
#pragma once

#include <string>

namespace ibsm::text {

// Empty when the texts are equal.
std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& name_before, const std::string& name_after);

}  // namespace ibsm::text
