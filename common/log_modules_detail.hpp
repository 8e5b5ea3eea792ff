// The per-module state behind common/log_modules.hpp, kept by the file sink of a
// make_logger() logger (common/log.cpp) so that every holder of the root logger
// reaches it without a global. Internal to common/.
#pragma once

#include <spdlog/sinks/sink.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/log_modules.hpp"

namespace ibsm::detail {

class ModuleLoggers {
 public:
  explicit ModuleLoggers(std::string root_name);
  ~ModuleLoggers();
  // The syslog sink the module loggers share with the root logger (may be null).
  void attach(spdlog::sink_ptr important);
  // The root logger itself: it is the logger of LogModule::kMain.
  void attach_root(const Logger& root);
  // log_flags and force_log_flush of the root logger (start-up, SIGHUP).
  void set_global(unsigned flags, bool flush_each);
  // The module's logger, writing to `file` (the root's file sink).
  Logger get(LogModule m, const spdlog::sink_ptr& file);
  unsigned flags(LogModule m) const;
  void set_flags(LogModule m, unsigned flags);

 private:
  struct Slot;
  void apply(std::size_t i);  // with mutex_ held

  mutable std::mutex mutex_;
  std::string root_name_;
  spdlog::sink_ptr important_;
  std::weak_ptr<spdlog::logger> root_;
  unsigned global_ = 0x03;
  bool flush_each_ = false;
  std::vector<Slot> slots_;
};

// The module state of `root` and its file sink; {nullptr, nullptr} for a logger not
// made by make_logger(). Defined in common/log.cpp.
std::pair<ModuleLoggers*, spdlog::sink_ptr> module_loggers_of(const Logger& root);

}  // namespace ibsm::detail
