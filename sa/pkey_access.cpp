#include "sa/pkey_access.hpp"

#include <algorithm>

namespace ibsm::sa {

bool tables_share_pkey(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b) {
  for (std::uint16_t x : a) {
    if ((x & kPKeyBaseMask) == 0) continue;
    for (std::uint16_t y : b) {
      if ((x & kPKeyBaseMask) != (y & kPKeyBaseMask)) continue;
      if (((x | y) & kPKeyFullBit) != 0) return true;
    }
  }
  return false;
}

std::span<const std::uint16_t> access_table(const Snapshot& s, PortRef p) {
  const SnapNode& n = s.node(p);
  const PortNum num = n.is_switch() ? 0 : p.port;
  if (num >= n.ports.size()) return {};
  return n.ports[num].pkeys;
}

bool ports_share_pkey(const Snapshot& s, PortRef a, PortRef b) {
  if (!a.valid() || !b.valid()) return false;
  if (a == b) return true;
  const auto ta = access_table(s, a);
  const auto tb = access_table(s, b);
  if (ta.empty() || tb.empty()) return true;
  return tables_share_pkey(ta, tb);
}

bool table_has_pkey(std::span<const std::uint16_t> table, std::uint16_t pkey, bool full) {
  for (std::uint16_t x : table) {
    if ((x & kPKeyBaseMask) == 0 || (x & kPKeyBaseMask) != (pkey & kPKeyBaseMask)) continue;
    if (!full || (x & kPKeyFullBit) != 0) return true;
  }
  return false;
}

std::optional<std::uint16_t> first_shared_pkey(std::span<const std::uint16_t> a,
                                               std::span<const std::uint16_t> b) {
  std::optional<std::uint16_t> best;
  for (std::uint16_t x : a) {
    const std::uint16_t base = x & kPKeyBaseMask;
    if (base == 0) continue;
    for (std::uint16_t y : b) {
      if ((y & kPKeyBaseMask) != base) continue;
      if (((x | y) & kPKeyFullBit) == 0) continue;
      const std::uint16_t key = static_cast<std::uint16_t>(base | ((x & y) & kPKeyFullBit));
      if (!best || (key & kPKeyBaseMask) < (*best & kPKeyBaseMask) ||
          ((key & kPKeyBaseMask) == (*best & kPKeyBaseMask) && key > *best))
        best = key;
    }
  }
  return best;
}

}  // namespace ibsm::sa
