// Fuzz target: any bytes as a node name map (node_name_map_name,
// names/node_name_map.hpp). Beyond "no crash": an error names the file and a
// line, every name is non-empty and free of '"', '#' and newlines, and the map
// written back in the diagnostics' form reads back the same.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "names/node_name_map.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using namespace ibsm;
constexpr std::string_view kFile = "fuzz.map";
constexpr std::string_view kTarget = "node_name_map";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = names::NodeNameMap::parse(fuzz::as_text(data, size), kFile);
  if (!parsed.ok()) {
    fuzz::expect(parsed.error().message.starts_with(std::string(kFile) + ":"), kTarget,
                 "an error does not name the file: " + parsed.error().message);
    return 0;
  }
  std::string again;
  for (const auto& [guid, name] : parsed->entries()) {
    fuzz::expect(!name.empty() && name.find_first_of("\"#\n") == std::string::npos, kTarget,
                 "a name holds a delimiter: " + name);
    if (name.size() > 200) continue;  // would not fit a line written back
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(guid));
    again += std::string(buf) + " \"" + name + "\"\n";
  }
  const auto back = names::NodeNameMap::parse(again, kFile);
  fuzz::expect(back.ok(), kTarget, "its own form does not read back");
  for (const auto& [guid, name] : back->entries()) {
    const std::string* first = parsed->find(guid);
    fuzz::expect(first != nullptr && *first == name, kTarget, "a name changed on the way back");
  }
  return 0;
}
