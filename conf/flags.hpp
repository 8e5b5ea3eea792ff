// Every command-line flag ibsm knows: OpenSM 3.3.23's flags (those that set an
// option come from the option table's cli column) plus the few that exist only
// on the command line (-F, -c, -o, -v, ...) and ibsm's own (--strict, --convert).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "conf/option_table.hpp"

namespace ibsm::conf {

enum class Special : std::uint8_t {
  kOption,        // sets `row`
  kConfig,        // -F FILE
  kCreateConfig,  // -c FILE
  kOnce,          // -o
  kPidfile,       // -J FILE
  kVerbose,       // -v (repeatable)
  kAllLogFlags,   // -V
  kLogFlags,      // -D FLAGS
  kDebug,         // -d N
  kHelp,          // -h, -?
  kVersion,       // --version
  kStrict,        // --strict (ibsm)
  kConvert,       // --convert FILE (ibsm)
};

struct FlagDef {
  Special special = Special::kOption;
  char short_name = 0;
  std::string_view long_name;  // may be empty (-V, -D)
  std::string_view alias;
  bool takes_arg = false;
  std::string arg_name;  // "<0-15>", "<file>", ...
  std::string_view help;
  bool implemented = true;
  const OptionRow* row = nullptr;  // kOption only
};

// Options-table flags first (table order), then the command-line-only ones.
const std::vector<FlagDef>& all_flags();

// "-p/--priority", "--retries", "-V"
std::string flag_display(const FlagDef& f);

}  // namespace ibsm::conf
