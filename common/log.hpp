// Logging. A Logger is created once by the daemon and passed explicitly to the
// components that log; there is no process-global logger. Levels follow
// OpenSM's log flags (0x01 error, 0x02 info, 0x04 verbose, 0x08 debug, 0x20 frames).
//
// The log file behaves like OpenSM's (libopensm/osm_log.c): lines look like
//   "Nov 22 06:13:44 123456 [7F1A2B3C] 0x02 -> text"
// (date, microseconds, thread id, OpenSM level code); with a size limit the
// file is truncated to zero and logging continues when the limit is exceeded;
// reopen_log() reopens it after logrotate moved it (SIGUSR1). Errors and system
// events (log_sys_event: state changes, SUBNET UP) also go to syslog.
#pragma once

#include <spdlog/logger.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ibsm {

using Logger = std::shared_ptr<spdlog::logger>;

struct LogSettings {
  std::string file = "stdout";  // path, "stdout" or "stderr"
  unsigned flags = 0x03;        // OpenSM log_flags
  bool accumulate = true;       // append to an existing file (OpenSM accum_log_file)
  bool flush_each = false;      // flush after every line (OpenSM -d2 / force_log_flush)
  std::string name = "ibsm";
  std::uint64_t max_bytes = 0;  // truncate the file when it grows beyond this; 0 = no limit
  bool syslog = false;          // errors and system events also to syslog
  std::string syslog_prefix;    // text put before each syslog message (OpenSM log_prefix)
};

// OpenSM log flags to the lowest spdlog level that must be emitted.
spdlog::level::level_enum level_for_flags(unsigned flags);

// OpenSM's level code for a line ("0x01" error/warning, "0x02" info,
// "0x04" verbose, "0x08" debug and below).
unsigned opensm_level_code(spdlog::level::level_enum level);

// Creates the logger described by settings. Throws std::runtime_error if the file
// cannot be opened (start-up only).
Logger make_logger(const LogSettings& settings);

// As make_logger, with `important` receiving what would go to syslog (errors,
// warnings and system events) instead of syslog itself. For tests.
Logger make_logger(const LogSettings& settings, spdlog::sink_ptr important);

// Logs a system event (OpenSM's OSM_LOG_SYS: SM state changes, "SUBNET UP"):
// at info level in the file, and always to syslog.
void log_sys_event(const Logger& logger, std::string_view text);

// Reopens the log file (after logrotate). Returns false if it cannot be
// reopened; the old file stays in use then. A no-op for stdout/stderr.
bool reopen_log(const Logger& logger);

// Applies the settings that may change at run time (SIGHUP): flags,
// flush_each and max_bytes. The file name is kept.
void update_log_settings(const Logger& logger, const LogSettings& settings);

// A logger that discards everything (tests).
Logger null_logger();

}  // namespace ibsm
