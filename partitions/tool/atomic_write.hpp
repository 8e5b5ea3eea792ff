// Replacing a file so that readers see either the old or the new content, never a
// mix: write a temporary file in the same directory, fsync, rename over the target.
// The old content is kept as <path><backup_suffix> first (same way) when asked.
#pragma once

#include <string>

#include "common/result.hpp"

namespace ibsm::partitions {

Status write_file_atomically(const std::string& path, const std::string& content,
                             const std::string& backup_suffix);

}  // namespace ibsm::partitions
