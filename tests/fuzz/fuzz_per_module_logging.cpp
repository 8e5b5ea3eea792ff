// Fuzz target: any bytes as a per_module_logging_file (conf/per_module_logging.hpp).
// Beyond "no crash": errors and warnings name file:line, levels stay within 0-0xff,
// and applying the result to a real logger's modules shows the same levels.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/log_modules.hpp"
#include "conf/per_module_logging.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using namespace ibsm;
constexpr std::string_view kFile = "fuzz.pml";
constexpr std::string_view kTarget = "per_module_logging";

const Logger& logger() {
  static const Logger log = [] {
    LogSettings s;
    s.file = "/dev/null";
    return make_logger(s);
  }();
  return log;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = conf::parse_per_module_logging(fuzz::as_text(data, size), kFile);
  if (!parsed.ok()) {
    fuzz::expect(parsed.error().message.starts_with(std::string(kFile) + ":"), kTarget,
                 "an error does not name file:line: " + parsed.error().message);
    return 0;
  }
  for (const auto& w : parsed->warnings)
    fuzz::expect(w.message.starts_with(std::string(kFile) + ":"), kTarget,
                 "a warning does not name file:line: " + w.message);
  conf::apply_per_module_logging(logger(), *parsed);
  for (const auto& m : log_modules()) {
    fuzz::expect(parsed->flags_of(m.id) <= 0xff, kTarget, "a level beyond 0xff");
    fuzz::expect(module_log_flags(logger(), m.id) == parsed->flags_of(m.id), kTarget,
                 "the logger's module level differs from the file's");
  }
  return 0;
}
