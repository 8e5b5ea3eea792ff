// A logger that writes into a string stream, for tests that assert on what an operator
// would read in the log: one "level message" line per entry (pattern "%l %v").
#pragma once

#include <spdlog/sinks/ostream_sink.h>

#include <memory>
#include <sstream>
#include <string>

#include "common/log.hpp"

namespace ibsm::testsupport {

inline Logger capture_log(std::ostringstream& out, const std::string& name = "test",
                          spdlog::level::level_enum level = spdlog::level::debug) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  sink->set_pattern("%l %v");
  auto l = std::make_shared<spdlog::logger>(name, sink);
  l->set_level(level);
  return l;
}

}  // namespace ibsm::testsupport
