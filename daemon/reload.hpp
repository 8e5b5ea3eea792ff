// SIGHUP's configuration reload: the configuration files are read again with
// OpenSM's rules (a bad file changes nothing and the SM keeps its last good
// configuration), then the per-module logging file and the node name map, which each
// keep what is in force when in error.
#pragma once

#include <string>

#include "common/log.hpp"
#include "conf/invocation.hpp"
#include "sm/subnet_manager.hpp"

namespace ibsm::daemon {

// per_module_logging_file: a file in error is logged with file:line and the levels
// in force stay.
void load_per_module_logging(const Logger& log, const std::string& path);

// What the SM runs on SIGHUP (SubnetManager::set_hangup_handler). Holds the running
// options and the values read from the files, which each reload replaces.
class HangupReload {
 public:
  HangupReload(const conf::Run& run, const Logger& log, sm::SubnetManager& sm);
  // Re-reads on every SIGHUP, whether the configuration reloaded or not, as OpenSM
  // does with its per-module logging file.
  void operator()();

 private:
  void reload_config();

  const conf::Run& run_;
  const Logger& log_;
  sm::SubnetManager& sm_;
  conf::Options running_;
  conf::Options file_values_;
};

}  // namespace ibsm::daemon
