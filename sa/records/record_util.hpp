// Small helpers the record handlers share: big-endian stores, embedding SMP
// attributes into records, the LID-range match OpenSM applies to LID fields.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "mad/attribute_codec.hpp"
#include "sa/bytes.hpp"
#include "sa/context.hpp"
#include "sa/pkey_access.hpp"

namespace ibsm::sa {

// Writes an SMP attribute (64-byte encoding) into a record at `off`, `len` bytes of it.
template <class A>
void embed(std::span<std::uint8_t> rec, std::size_t off, const A& a, std::size_t len) {
  std::array<std::uint8_t, mad::kSmpDataSize> buf{};
  mad::encode(a, mad::Payload(buf));
  std::copy_n(buf.begin(), std::min(len, buf.size()),
              rec.begin() + static_cast<std::ptrdiff_t>(off));
}

// A GID from the subnet prefix and a port GUID.
inline Gid make_gid(std::uint64_t prefix, Guid guid) {
  Gid g{};
  for (int i = 0; i < 8; ++i) {
    g[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(prefix >> (56 - 8 * i));
    g[static_cast<std::size_t>(8 + i)] = static_cast<std::uint8_t>(guid >> (56 - 8 * i));
  }
  return g;
}

// True when `lid` falls in the LMC range of a port whose base LID is `base`.
inline bool lid_in_range(Lid lid, Lid base, std::uint8_t lmc) {
  return base != 0 && lid >= base && lid < base + (1u << lmc);
}

// Matching with the generic field comparison for every selected bit except
// those in `custom` (fields the handler already checked its own way).
inline bool matches_except(const RecordLayout& layout, const RequestContext& ctx,
                           std::span<const std::uint8_t> query,
                           std::span<const std::uint8_t> candidate, std::uint64_t custom) {
  return matches(layout, query, candidate, ctx.comp_mask() & ~custom);
}

// True when the requester may see a port (partition rule; trusted sees all).
inline bool visible(const RequestContext& ctx, PortRef port) {
  if (ctx.trusted) return true;
  if (!ctx.requester.valid()) return true;  // attributes that allow unknown requesters
  return ports_share_pkey(ctx.snap, ctx.requester, port);
}

// Get may stop at the second match (the server turns it into TOO_MANY_RECORDS).
inline bool enough(const RequestContext& ctx, const HandlerResult& r) {
  return ctx.method() == method::kGet && r.count >= 2;
}

}  // namespace ibsm::sa
