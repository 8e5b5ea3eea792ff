// Logging. A Logger is created once by the daemon and passed explicitly to the
// components that log; there is no process-global logger. Levels follow
// OpenSM's log flags (0x01 error, 0x02 info, 0x04 verbose, 0x08 debug, 0x20 frames).
#pragma once

#include <spdlog/logger.h>

#include <memory>
#include <string>

namespace ibsm {

using Logger = std::shared_ptr<spdlog::logger>;

struct LogSettings {
  std::string file = "stdout";  // path, "stdout" or "stderr"
  unsigned flags = 0x03;        // OpenSM log_flags
  bool accumulate = true;       // append to an existing file (OpenSM accum_log_file)
  bool flush_each = false;      // flush after every line (OpenSM -d2 / force_log_flush)
  std::string name = "ibsm";
};

// OpenSM log flags to the lowest spdlog level that must be emitted.
spdlog::level::level_enum level_for_flags(unsigned flags);

// Creates the logger described by settings. Throws std::runtime_error if the file
// cannot be opened (start-up only).
Logger make_logger(const LogSettings& settings);

// A logger that discards everything (tests).
Logger null_logger();

}  // namespace ibsm
