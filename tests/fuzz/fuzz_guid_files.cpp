// Fuzz target: any bytes as each of the GUID list files: the routing GUID lists
// (routing/guid_file.hpp: root/cn/io/ignore lists, ids_guid_file with ids) and
// the M_Key caches guid2mkey and neighbors (sm/mkey/). Beyond "no crash": every
// warning names the file, neighbors come out symmetric, and the caches formatted
// and parsed again give the same database without warnings.
#include <cstddef>
#include <cstdint>
#include <string>

#include "routing/errors.hpp"
#include "routing/guid_file.hpp"
#include "sm/mkey/guid2mkey.hpp"
#include "sm/mkey/neighbors.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using namespace ibsm;
constexpr std::string_view kFile = "fuzz.guids";

void expect_named(const std::string& warning, std::string_view target) {
  fuzz::expect(warning.starts_with(std::string(kFile) + ":"), target,
               "a warning does not name the file: " + warning);
}

void routing_lists(std::string_view text) {
  for (const bool with_ids : {false, true}) {
    const routing::GuidFile f =
        routing::parse_guid_file(text, kFile, routing::kErrGuidFile, with_ids);
    for (const auto& w : f.warnings)
      expect_named(w.message, "guid_file");
    fuzz::expect(with_ids ? f.ids.size() == f.guids.size() : f.ids.empty(), "guid_file",
                 "ids and GUIDs do not pair up");
  }
  for (const auto& w : routing::parse_root_guids(text, kFile).warnings)
    expect_named(w.message, "root_guid_file");
}

void guid2mkey(std::string_view text) {
  const auto parsed = sm::mkey::parse_guid2mkey(text, kFile);
  for (const auto& w : parsed.warnings)
    expect_named(w, "guid2mkey");
  const auto again = sm::mkey::parse_guid2mkey(sm::mkey::format_guid2mkey(parsed.db), kFile);
  fuzz::expect(again.warnings.empty(), "guid2mkey", "its own output has bad lines");
  fuzz::expect(again.db == parsed.db, "guid2mkey", "formatted and parsed, the database differs");
}

void neighbors(std::string_view text) {
  const auto parsed = sm::mkey::parse_neighbors(text, kFile);
  for (const auto& w : parsed.warnings)
    expect_named(w, "neighbors");
  for (const auto& [end, peer] : parsed.db) {
    auto back = parsed.db.find(peer);
    fuzz::expect(back != parsed.db.end() && back->second == end, "neighbors",
                 "a one-way record was kept");
  }
  const auto again = sm::mkey::parse_neighbors(sm::mkey::format_neighbors(parsed.db), kFile);
  fuzz::expect(again.warnings.empty(), "neighbors", "its own output has bad lines");
  fuzz::expect(again.db == parsed.db, "neighbors", "formatted and parsed, the database differs");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  routing_lists(text);
  guid2mkey(text);
  neighbors(text);
  return 0;
}
