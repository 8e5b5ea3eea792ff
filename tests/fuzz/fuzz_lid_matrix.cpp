// Fuzz target: any bytes as opensm-lid-matrix.dump for `-R file -M`
// (routing/file/lid_matrix_reader.hpp). Beyond "no crash": an error names the file and a
// line, and every accepted row has at least the port 0 column.
#include <cstddef>
#include <cstdint>
#include <string>

#include "routing/file/lid_matrix_reader.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  constexpr std::string_view kTarget = "lid_matrix";
  auto matrix = routing::parse_lid_matrix(fuzz::as_text(data, size), "fuzz.matrix");
  if (!matrix.ok()) {
    fuzz::expect(matrix.error().message.starts_with("fuzz.matrix:"), kTarget,
                 "the error does not name the file and line: " + matrix.error().message);
    return 0;
  }
  for (const auto& sw : matrix->switches)
    for (const auto& row : sw.rows)
      fuzz::expect(!row.hops.empty(), kTarget, "a row without columns was accepted");
  return 0;
}
