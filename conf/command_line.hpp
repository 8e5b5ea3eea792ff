// Splits argv into flag uses, the way OpenSM's getopt_long_only does:
// "-once" and "--once" are the long option, an unambiguous prefix ("-sw 5")
// selects the long option it starts, "-s10" / "-vvv" are short options, "-?"
// is help. Parsing is done by Boost.Program_options.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "conf/flags.hpp"

namespace ibsm::conf {

struct FlagUse {
  const FlagDef* flag;
  std::string value;    // argument ("" for switches)
  std::string spelled;  // as typed, for messages
};

// The flags in command-line order. kBadCommandLine on an unknown or ambiguous
// flag, a missing argument, or a stray positional argument.
Result<std::vector<FlagUse>> split_command_line(int argc, const char* const* argv);

}  // namespace ibsm::conf
