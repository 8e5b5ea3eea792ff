// From argv + environment to "run with these options" or "exit now".
//
// Precedence, as OpenSM: compiled defaults < the default config file
// (Environment::default_config_file, if it exists) < the -F file < flags.
// Flags use OpenSM's names and accept getopt_long_only spellings ("-once",
// "-guid X", unambiguous prefixes). Flags whose option ibsm does not implement
// yet are refused (exit code 2) instead of being ignored.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/result.hpp"
#include "conf/diagnostic.hpp"
#include "conf/options.hpp"

namespace ibsm::conf {

// What the process environment contributes. Injectable for tests.
struct Environment {
  std::map<std::string, std::string> vars;                      // OSM_CACHE_DIR, OSM_TMP_DIR
  std::string default_config_file = "/etc/opensm/opensm.conf";  // read first if it exists

  static Environment from_process();
};

// Start the SM with `options`; log each warning once at start-up.
struct Run {
  Options options;
  std::vector<Warning> warnings;
  // For SIGHUP (conf/reload.hpp): the files read, in order, and the values
  // they gave before the command line was applied.
  std::vector<std::string> config_files;
  Options file_values;
};

// Print `out` to stdout and `err` to stderr, write `file` if set, exit `code`.
struct ExitNow {
  int code = 0;
  std::string out;
  std::string err;
  struct File {
    std::string path;
    std::string contents;
  };
  std::optional<File> file;  // -c FILE: the effective configuration
};

using Invocation = std::variant<Run, ExitNow>;

// Parses the command line. An error (bad flag, bad value, unreadable or
// malformed config file, refused flag) is returned as Error; the caller prints
// to_string(error) to stderr and exits with kUsageExitCode.
Result<Invocation> parse_invocation(int argc, const char* const* argv, const Environment& env);

inline constexpr int kUsageExitCode = 2;

// Performs an ExitNow (prints, writes the file) and returns the exit code;
// a file that cannot be written gives a message on stderr and exit code 1.
int perform(const ExitNow& exit_now);

}  // namespace ibsm::conf
