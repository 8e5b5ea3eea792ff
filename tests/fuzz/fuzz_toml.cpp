// Fuzz target: any bytes as ibsm.toml (conf/toml_reader.hpp). Beyond "no crash": a
// document that is accepted, written back by conf/toml_writer.hpp and read again
// gives the same options, and every error names the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "conf/toml_reader.hpp"
#include "conf/toml_writer.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  constexpr std::string_view kTarget = "toml";
  constexpr std::string_view kOrigin = "fuzz.toml";
  conf::Options options;
  auto warnings = conf::apply_toml(fuzz::as_text(data, size), kOrigin, options);
  if (!warnings.ok()) {
    fuzz::expect(warnings.error().message.find(kOrigin) != std::string::npos, kTarget,
                 "an error does not name the file: " + warnings.error().message);
    return 0;
  }
  const std::string written = conf::write_toml(options);
  conf::Options again;
  auto reread = conf::apply_toml(written, "written.toml", again);
  if (!reread.ok()) fuzz::broken(kTarget, "its own output is refused: " + reread.error().message);
  fuzz::expect(again == options, kTarget, "written and read back, the options differ");
  fuzz::expect(conf::write_toml(again) == written, kTarget, "writing is not stable");
  return 0;
}
