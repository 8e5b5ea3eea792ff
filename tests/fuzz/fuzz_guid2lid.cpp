// Fuzz target: any bytes as the guid2lid cache file (sm/lids/guid2lid.hpp). Beyond "no
// crash": what is accepted is a valid database (1 <= min <= max <= 0xBFFF, no GUID
// 0), and formatting it and parsing the result gives the same database without
// warnings.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sm/lids/guid2lid.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  constexpr std::string_view kTarget = "guid2lid";
  const sm::Guid2LidParse parsed = sm::parse_guid2lid(fuzz::as_text(data, size));
  for (const auto& [guid, range] : parsed.db)
    fuzz::expect(
        guid != 0 && range.min >= 1 && range.min <= range.max && range.max <= mad::kMaxUnicastLid,
        kTarget, "an invalid record was accepted");
  for (const auto& w : parsed.warnings)
    fuzz::expect(w.starts_with("line "), kTarget, "a warning names no line: " + w);
  const std::string formatted = sm::format_guid2lid(parsed.db);
  const sm::Guid2LidParse again = sm::parse_guid2lid(formatted);
  fuzz::expect(again.warnings.empty(), kTarget, "its own output has bad lines");
  fuzz::expect(again.db == parsed.db, kTarget, "formatted and parsed, the database differs");
  return 0;
}
