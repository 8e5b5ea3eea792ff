// Writes a whole file so readers see the old or the new contents, never half:
// temp file in the same directory, fsync, rename (POSIX rename is atomic).
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "common/result.hpp"

namespace ibsm {

// Optionally keeps the previous contents as `path + backup_suffix`. `mode` is the
// new file's permission bits (0600 for files holding keys).
Status write_file_atomically(const std::string& path, std::string_view contents,
                             bool durable = true, std::string_view backup_suffix = {},
                             unsigned mode = 0644);

// The same with contents streamed by `write`, for files too big to hold twice in
// memory (a 2048-host subnet.lst is 4 MB; a string grown to it peaks at 8).
Status write_file_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write, bool durable = true,
                             std::string_view backup_suffix = {}, unsigned mode = 0644);

// Reads a whole file; an error names the path and errno text.
Result<std::string> read_file(const std::string& path);

}  // namespace ibsm
