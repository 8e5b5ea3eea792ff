// Fuzz target: any bytes as an LFT dump for `-R file -U` (routing/file/lft_dump_reader.hpp:
// opensm-lfts.dump or ibroute output). Beyond "no crash": an error names the file and a
// line, and what is accepted holds only unicast LIDs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "routing/file/lft_dump_reader.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  constexpr std::string_view kTarget = "lft_dump";
  auto dump = routing::parse_lft_dump(fuzz::as_text(data, size), "fuzz.lfts");
  if (!dump.ok()) {
    fuzz::expect(dump.error().message.starts_with("fuzz.lfts:"), kTarget,
                 "the error does not name the file and line: " + dump.error().message);
    return 0;
  }
  for (const auto& sw : dump->switches)
    for (const auto& [lid, port] : sw.entries)
      fuzz::expect(lid <= 0xBFFF, kTarget, "a multicast LID was accepted");
  return 0;
}
