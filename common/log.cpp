#include "common/log.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace ibsm {

spdlog::level::level_enum level_for_flags(unsigned flags) {
  if (flags & 0x38) return spdlog::level::trace;  // debug, funcs, frames
  if (flags & 0x04) return spdlog::level::debug;  // verbose
  if (flags & 0x02) return spdlog::level::info;
  if (flags & 0x01) return spdlog::level::err;
  return spdlog::level::critical;
}

Logger make_logger(const LogSettings& s) {
  spdlog::sink_ptr sink;
  if (s.file == "stdout" || s.file.empty()) {
    sink = std::make_shared<spdlog::sinks::stdout_sink_mt>();
  } else if (s.file == "stderr") {
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  } else {
    sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(s.file, !s.accumulate);
  }
  auto logger = std::make_shared<spdlog::logger>(s.name, std::move(sink));
  // OpenSM's line shape: "Mon DD HH:MM:SS uuuuuu [TID] level -> text".
  logger->set_pattern("%b %d %H:%M:%S %f [%t] %l -> %v");
  logger->set_level(level_for_flags(s.flags));
  logger->flush_on(s.flush_each ? spdlog::level::trace : spdlog::level::warn);
  return logger;
}

Logger null_logger() {
  return std::make_shared<spdlog::logger>("null", std::make_shared<spdlog::sinks::null_sink_mt>());
}

}  // namespace ibsm
