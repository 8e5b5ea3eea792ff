// Error IDs of common/ (range 9xxx). Catalog rows feed docs/errors.md.
#pragma once

#include "common/error.hpp"

namespace ibsm {

inline constexpr ErrorId kErrFileWrite{9001};

inline constexpr ErrorInfo kCommonErrors[] = {
    {kErrFileWrite, "File not read or written",
     "A state or configuration file could not be read, or written atomically (temporary file, "
     "fsync, rename). The message names the file and the system error.",
     "Check the directory exists, is writable by the daemon and that the disk is not full. The "
     "previous contents of the file are left intact."},
};

}  // namespace ibsm
