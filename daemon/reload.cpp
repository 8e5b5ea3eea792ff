// SIGHUP's configuration reload (daemon/reload.hpp).
#include "daemon/reload.hpp"

#include "conf/log_settings.hpp"
#include "conf/per_module_logging.hpp"
#include "conf/reload.hpp"

namespace ibsm::daemon {

void load_per_module_logging(const Logger& log, const std::string& path) {
  auto levels = conf::reload_per_module_logging(log, path);
  if (!levels) {
    log->error("{}", to_string(levels.error()));
    return;
  }
  for (const auto& w : levels->warnings)
    log->warn("{}: {}", format_error_id(w.id), w.message);
}

HangupReload::HangupReload(const conf::Run& run, const Logger& log, sm::SubnetManager& sm)
    : run_(run), log_(log), sm_(sm), running_(run.options), file_values_(run.file_values) {}

void HangupReload::operator()() {
  reload_config();
  load_per_module_logging(log_, running_.per_module_logging_file);
  static_cast<void>(sm_.reload_node_names());
}

void HangupReload::reload_config() {
  auto reloaded = conf::reload_config(running_, file_values_, run_.config_files);
  if (!reloaded.ok()) {
    log_->error("configuration not reloaded, keeping the running one: {}",
                to_string(reloaded.error()));
    return;
  }
  for (const auto& w : reloaded->warnings)
    log_->warn("{}: {}", format_error_id(w.id), w.message);
  for (const auto& c : reloaded->changed)
    log_->info("reloaded: {}", c);
  for (const auto& c : reloaded->need_restart)
    log_->warn("changed in the file but needs a restart to take effect: {}", c);
  running_ = reloaded->options;
  file_values_ = reloaded->file_values;
  update_log_settings(log_, conf::log_settings(running_));
  sm_.apply_options(running_);
}

}  // namespace ibsm::daemon
