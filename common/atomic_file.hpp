// Writes a whole file so readers see the old or the new contents, never half:
// temp file in the same directory, fsync, rename (POSIX rename is atomic), fsync of
// the directory so that the rename itself survives a crash. The one copy of this idea:
// the SM's files, ibsm-part's edits of partitions.conf and the agent's files use it.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "common/result.hpp"

namespace ibsm {

struct AtomicWriteOptions {
  unsigned mode = 0644;  // the new file's permission bits (0600 for files holding keys)
  // The permission bits of the file being replaced win over `mode` (an operator's
  // chmod of partitions.conf survives an ibsm-part edit); `mode` for a new file.
  bool keep_mode = false;
  // fsync the file before the rename and its directory after it. Off for files that
  // are cheap to lose (dumps): the write is still atomic.
  bool durable = true;
  // Non-empty: the previous contents stay as `path + backup_suffix`, with their mode
  // (a hard link when the file system allows it, else an atomic copy).
  std::string_view backup_suffix;
};

Status write_file_atomically(const std::string& path, std::string_view contents,
                             const AtomicWriteOptions& how);

// The same with contents streamed by `write`, for files too big to hold twice in
// memory (a 2048-host subnet.lst is 4 MB; a string grown to it peaks at 8).
Status write_file_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write,
                             const AtomicWriteOptions& how);

// The SM's short forms of the two above.
Status write_file_atomically(const std::string& path, std::string_view contents,
                             bool durable = true, std::string_view backup_suffix = {},
                             unsigned mode = 0644);
Status write_file_atomically(const std::string& path,
                             const std::function<void(std::ostream&)>& write, bool durable = true,
                             std::string_view backup_suffix = {}, unsigned mode = 0644);

// Reads a whole file; an error names the path and errno text.
Result<std::string> read_file(const std::string& path);

}  // namespace ibsm
