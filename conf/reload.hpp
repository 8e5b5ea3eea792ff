// Re-reading the configuration on SIGHUP, with OpenSM's rules
// (osm_subn_rescan_conf_files): the files are read again from scratch, and a
// key is applied only if it may change at run time (Reload::kHup) and its value
// in the files differs from what the files said last time. So a command-line
// override survives a reload until the line in the file changes, and deleting
// a line does not revert the key.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "conf/diagnostic.hpp"
#include "conf/options.hpp"

namespace ibsm::conf {

struct Reloaded {
  Options options;                        // the running options with the changes applied
  Options file_values;                    // keep for the next reload
  std::vector<std::string> changed;       // keys applied, e.g. "sm_priority 3 -> 5"
  std::vector<std::string> need_restart;  // keys changed in the file that need a restart
  std::vector<Warning> warnings;          // unknown keys, unimplemented options set
};

// `files` and `last_file_values` come from Run (conf/invocation.hpp) or the
// previous Reloaded. On an error (bad value, unreadable file) nothing changes;
// the caller logs the error and keeps running with the old options.
Result<Reloaded> reload_config(const Options& running, const Options& last_file_values,
                               const std::vector<std::string>& files);

}  // namespace ibsm::conf
