// A unified diff (diff -u style, 3 lines of context) of two texts, for --dry-run.
#pragma once

#include <string>

namespace ibsm::partitions {

// Empty when the texts are equal.
std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& name_before, const std::string& name_after);

}  // namespace ibsm::partitions
