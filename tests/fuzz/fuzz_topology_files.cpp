// Fuzz target: any bytes as an intended-topology file, read as ibnetdiscover output (or
// an ibsim net file) and as topoconfig CSV. Beyond "no crash": a refusal names file:line
// and carries one of cabling/'s IDs; what is read has ports 1-254 and no cable from a
// port to itself; and a file whose nodes all have GUIDs, compared with the fabric it
// describes, gives no deviation.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cabling/compare.hpp"
#include "cabling/errors.hpp"
#include "cabling/ibnetdiscover_reader.hpp"
#include "cabling/topo_config_reader.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "tests/unit/cabling/found_fabric.hpp"

namespace {

using namespace ibsm;
using namespace ibsm::cabling;
constexpr std::string_view kFile = "fuzz.topo";

void check(const Result<IntendedTopology>& r, std::string_view target) {
  if (!r) {
    const auto id = r.error().id.code;
    fuzz::expect(id >= kErrTopoSyntax.code && id <= kErrTopoUnknownNode.code, target,
                 "an error without a cabling ID: " + r.error().message);
    fuzz::expect(r.error().message.starts_with(std::string(kFile) + ":"), target,
                 "an error does not name file:line: " + r.error().message);
    return;
  }
  bool all_guids = true;
  for (const auto& n : r->nodes)
    all_guids &= n.guid != 0;
  for (const auto& l : r->links) {
    fuzz::expect(l.a.port >= 1 && l.a.port <= 254 && l.b.port >= 1 && l.b.port <= 254, target,
                 "a port outside 1-254 was kept");
    fuzz::expect(l.a.node != l.b.node || l.a.port != l.b.port, target, "a cable to itself");
  }
  if (!all_guids) return;
  const auto list = compare_topology(*r, test::as_found(*r));
  fuzz::expect(list.empty(), target,
               "the fabric a file describes deviates from it: " + deviations_json(list));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  check(read_ibnetdiscover(text, kFile), "ibnetdiscover");
  check(read_topo_config(text, kFile), "topo_config");
  return 0;
}
