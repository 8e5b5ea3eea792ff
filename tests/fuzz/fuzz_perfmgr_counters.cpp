// Fuzz target: any bytes as a PerfMgt answer (perfmgr/attributes.hpp) and as the data
// of each PerfMgt attribute the PerfMgr decodes. Beyond "no crash": a frame that
// parses is exactly one MAD; an attribute that decodes re-encodes to bytes that
// decode to the same values (decode(encode(a)) == a).
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "perfmgr/attributes.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using namespace ibsm::perfmgr;
using ibsm::fuzz::broken;

template <class A>
void round_trip(std::span<const std::uint8_t> in) {
  auto a = decode_attribute<A>(in);
  if (in.size() < A::kBytes) {
    if (a.ok()) broken(A::kName, "short data decoded");
    return;
  }
  if (!a.ok()) broken(A::kName, "full-size data did not decode");
  (void)dump_attribute(*a);
  std::array<std::uint8_t, kPmDataSize> once{};
  encode_attribute(*a, once);
  auto again = decode_attribute<A>(once);
  if (!again.ok()) broken(A::kName, "its own encoding does not decode");
  for (const auto& f : A::kFields)
    if ((*again).*f.member != (*a).*f.member) broken(A::kName, "decode(encode(a)) != a");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> bytes(data, size);
  auto answer = parse_pm_answer(bytes);
  if (answer.ok()) {
    if (size != kMadSize) broken("parse_pm_answer", "accepted a frame that is not one MAD");
    if (answer->data.size() != kPmDataSize) broken("parse_pm_answer", "data is not 192 bytes");
    round_trip<PortCounters>(answer->data);
    round_trip<PortCountersExtended>(answer->data);
    round_trip<ClassPortInfo>(answer->data);
  }
  round_trip<PortCounters>(bytes);
  round_trip<PortCountersExtended>(bytes);
  round_trip<ClassPortInfo>(bytes);
  return 0;
}
