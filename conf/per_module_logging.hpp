// per_module_logging_file: OpenSM's per-module log levels (osm_subnet.c,
// parse_per_mod_logging_file), one `module level` per line, where module is an
// OpenSM source file name ("osm_sa.c") or an ibsm module name ("sa"), and level is
// log_flags bits in C notation ("0x0f", "15"). Each OpenSM module maps onto the ibsm
// subsystem doing its work (common/log_modules.hpp); several lines for one
// subsystem add up (their flags are ORed). A module logs with log_flags OR its
// flags, so the file can only make a module log more.
//
// As OpenSM: blank lines and lines starting with '#' are skipped, the name may be
// followed by '=' or ',' instead of a blank, anything after the level is ignored,
// and a missing file means no per-module levels. Unlike OpenSM, an unknown module
// is a warning (file:line) and the rest of the file still applies; a line without
// a level or with a level that is not a number from 0 to 0xff makes the whole file
// an error (file:line), and the levels in force stay.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "common/log_modules.hpp"
#include "common/result.hpp"
#include "conf/diagnostic.hpp"

namespace ibsm::conf {

struct PerModuleLogging {
  std::string source;                             // the file ("" = none)
  std::array<unsigned, kLogModuleCount> flags{};  // by LogModule
  std::vector<Warning> warnings;                  // unknown modules, extra tokens

  unsigned flags_of(LogModule m) const { return flags[static_cast<std::size_t>(m)]; }
};

Result<PerModuleLogging> parse_per_module_logging(std::string_view text, std::string_view file);
// Reads `path`; a file that does not exist (or an empty path) gives no per-module
// levels, as in OpenSM; one that exists but cannot be read is an error.
Result<PerModuleLogging> load_per_module_logging(const std::string& path);

// Puts `levels` in force on the module loggers of `root` (every module not named
// goes back to the global level).
void apply_per_module_logging(const Logger& root, const PerModuleLogging& levels);

// Reads `path` and puts it in force on `root` (start-up, SIGHUP, ibsm-ctl). On an
// error nothing changes and the error (file:line) is returned; on success the
// warnings are in the result, for the caller to log.
Result<PerModuleLogging> reload_per_module_logging(const Logger& root, const std::string& path);

// `permodlog` text: each module, its flags and the OpenSM modules mapped onto it.
std::string format_per_module_logging(const Logger& root);

}  // namespace ibsm::conf
