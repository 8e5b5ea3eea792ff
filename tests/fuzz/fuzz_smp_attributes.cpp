// Fuzz target: any bytes as a received SMP and as the 64-byte data area of every
// SMP attribute the SM decodes (mad/attr/*.hpp). Beyond "no crash":
//  - an attribute that decodes re-encodes to bytes that decode to the same bytes
//    again (decode(encode(a)) == a, compared on the wire form);
//  - the table attributes and Notice use every bit of the data area, so for them
//    encode(decode(bytes)) must give the bytes back exactly;
//  - a parsed SMP answered with response() parses again, as a response carrying
//    the same TID, attribute, modifier and data.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "mad/attr/forwarding_table.hpp"
#include "mad/attr/guid_info.hpp"
#include "mad/attr/mft_block.hpp"
#include "mad/attr/node_description.hpp"
#include "mad/attr/node_info.hpp"
#include "mad/attr/notice.hpp"
#include "mad/attr/pkey_table.hpp"
#include "mad/attr/port_info.hpp"
#include "mad/attr/sm_info.hpp"
#include "mad/attr/switch_info.hpp"
#include "mad/attr/vl_tables.hpp"
#include "mad/smp.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using namespace ibsm::mad;
using Block = std::array<std::uint8_t, kSmpDataSize>;

using ibsm::fuzz::broken;

// `exact`: every bit of the data area is a field, so the bytes must survive.
template <class A>
void round_trip(const Block& in, bool exact) {
  if (decode<A>(std::span<const std::uint8_t>(in.data(), kSmpDataSize - 1)).ok())
    broken(A::kName, "a 63-byte payload decoded");
  auto a = decode<A>(in);
  if (!a.ok()) return;
  (void)dump(*a);
  Block once{};
  encode(*a, once);
  if (exact && once != in) broken(A::kName, "encode(decode(bytes)) != bytes");
  auto again = decode<A>(once);
  if (!again.ok()) broken(A::kName, "its own encoding does not decode");
  Block twice{};
  encode(*again, twice);
  if (twice != once) broken(A::kName, "decode(encode(a)) != a");
}

void check_smp(std::span<const std::uint8_t> bytes) {
  auto smp = Smp::parse(bytes);
  if (!smp.ok()) return;
  (void)smp->method();
  (void)smp->hop_count();
  (void)smp->m_key();
  (void)smp->status();
  (void)attr_name(smp->attr_id());
  const Smp answer = smp->response(smp->data());
  auto back = Smp::parse(answer.bytes());
  if (!back.ok()) broken("SMP", "a response to a parsed SMP does not parse");
  if (!back->is_response() || back->tid() != smp->tid() || back->attr_id() != smp->attr_id() ||
      back->attr_mod() != smp->attr_mod() || back->directed() != smp->directed() ||
      back->status() != 0 ||
      !std::equal(back->data().begin(), back->data().end(), smp->data().begin()))
    broken("SMP", "the response does not carry the request's header and data");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  check_smp(bytes);
  // A whole SMP's data area, or a bare 64-byte payload (zero-padded).
  Block payload{};
  const std::size_t at = size >= kSmpDataOffset + kSmpDataSize ? kSmpDataOffset : 0;
  std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(at), std::min(size - at, kSmpDataSize),
              payload.begin());
  round_trip<NodeInfo>(payload, false);
  round_trip<PortInfo>(payload, false);
  round_trip<SwitchInfo>(payload, false);
  round_trip<SmInfo>(payload, false);
  round_trip<NodeDescription>(payload, false);
  round_trip<SlToVlTable>(payload, false);
  round_trip<VlArbBlock>(payload, false);
  round_trip<LftBlock>(payload, true);
  round_trip<MftBlock>(payload, true);
  round_trip<PKeyBlock>(payload, true);
  round_trip<GuidInfoBlock>(payload, true);
  round_trip<Notice>(payload, true);
  if (auto n = decode<Notice>(payload); n.ok()) (void)n->details_lid();
  return 0;
}
