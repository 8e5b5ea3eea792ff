// Fuzz target: any bytes as opensm.conf (conf/opensm_conf_reader.hpp), read leniently
// and strictly. Beyond "no crash": a file that is accepted, written back by
// conf/opensm_conf_writer.hpp and read again gives the same options, and every
// error names the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "conf/opensm_conf_reader.hpp"
#include "conf/opensm_conf_writer.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using namespace ibsm;
constexpr std::string_view kTarget = "opensm.conf";
constexpr std::string_view kOrigin = "fuzz.conf";

void read_once(std::string_view text, bool strict) {
  conf::Options options;
  auto warnings = conf::apply_opensm_conf(text, kOrigin, options, strict);
  if (!warnings.ok()) {
    fuzz::expect(warnings.error().message.find(kOrigin) != std::string::npos, kTarget,
                 "an error does not name the file: " + warnings.error().message);
    return;
  }
  const std::string written = conf::write_opensm_conf(options);
  conf::Options again;
  auto reread = conf::apply_opensm_conf(written, "written.conf", again, /*strict=*/true);
  if (!reread.ok()) fuzz::broken(kTarget, "its own output is refused: " + reread.error().message);
  fuzz::expect(again == options, kTarget, "written and read back, the options differ");
  fuzz::expect(conf::write_opensm_conf(again) == written, kTarget, "writing is not stable");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  read_once(text, /*strict=*/false);
  read_once(text, /*strict=*/true);
  return 0;
}
