// Fuzz target: any bytes as the SA database file (sa/sa_db.hpp, OpenSM's
// opensm-sa.dump format). Beyond "no crash": errors and warnings name the file,
// and what was read, written back with format_sa_db and read again, reads without
// error and writes back to the same text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sa/sa_db.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  constexpr std::string_view kTarget = "sa_db";
  const sa::SaDbParse parsed = sa::parse_sa_db(fuzz::as_text(data, size), "fuzz.dump");
  if (parsed.error)
    fuzz::expect(parsed.error->starts_with("fuzz.dump:"), kTarget,
                 "the error does not name the file: " + *parsed.error);
  for (const auto& w : parsed.warnings)
    fuzz::expect(w.starts_with("fuzz.dump:"), kTarget, "a warning does not name the file: " + w);
  const std::string written = sa::format_sa_db(parsed.db);
  const sa::SaDbParse again = sa::parse_sa_db(written, "written.dump");
  fuzz::expect(!again.error, kTarget, "its own output is refused: " + again.error.value_or(""));
  fuzz::expect(again.warnings.empty(), kTarget, "its own output has bad lines");
  fuzz::expect(sa::format_sa_db(again.db) == written, kTarget,
               "written, read back and written again, the text differs");
  return 0;
}
