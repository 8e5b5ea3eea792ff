#include "sa/mcast/join_rules.hpp"

#include <algorithm>

#include "sa/path_resolver.hpp"
#include "sa/pkey_access.hpp"

namespace ibsm::sa::mcast {

namespace {

std::uint64_t be(std::span<const std::uint8_t> b, std::size_t off, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v = (v << 8) | (off + i < b.size() ? b[off + i] : 0u);
  return v;
}

Gid gid_at(std::span<const std::uint8_t> b, std::size_t off) {
  Gid g{};
  for (std::size_t i = 0; i < g.size(); ++i)
    g[i] = off + i < b.size() ? b[off + i] : 0;
  return g;
}

constexpr std::uint8_t kScopeLinkLocal = 2;
constexpr std::uint16_t kSigIpv4 = 0x401B;
constexpr std::uint16_t kSigIpv6 = 0x601B;
constexpr std::uint16_t kSigSaAssigned = 0xA01B;

// Selector test of a group value against the request (IBA 15.2.5.17: 0 ">", 1 "<",
// 2 "=", 3 anything); values compared by `rank`.
bool selector_holds(std::uint8_t sel, int group, int want) {
  switch (sel) {
    case selector::kGreater:
      return group > want;
    case selector::kLess:
      return group < want;
    case selector::kExactly:
      return group == want;
    default:
      return true;
  }
}

}  // namespace

McRequest decode_request(std::span<const std::uint8_t> rec, std::uint64_t mask) {
  McRequest r;
  r.mask = mask;
  r.mgid = gid_at(rec, 0);
  r.port_gid = gid_at(rec, 16);
  r.qkey = static_cast<std::uint32_t>(be(rec, 32, 4));
  r.mlid = static_cast<Lid>(be(rec, 36, 2));
  const auto mtu = static_cast<std::uint8_t>(be(rec, 38, 1));
  r.mtu_sel = static_cast<std::uint8_t>(mtu >> 6);
  r.mtu = mtu & 0x3f;
  r.tclass = static_cast<std::uint8_t>(be(rec, 39, 1));
  r.pkey = static_cast<std::uint16_t>(be(rec, 40, 2));
  const auto rate = static_cast<std::uint8_t>(be(rec, 42, 1));
  r.rate_sel = static_cast<std::uint8_t>(rate >> 6);
  r.rate = rate & 0x3f;
  const auto life = static_cast<std::uint8_t>(be(rec, 43, 1));
  r.life_sel = static_cast<std::uint8_t>(life >> 6);
  r.life = life & 0x3f;
  const auto sfh = static_cast<std::uint32_t>(be(rec, 44, 4));
  r.sl = static_cast<std::uint8_t>(sfh >> 28);
  r.flow_label = sfh >> 8 & 0xfffff;
  r.hop_limit = static_cast<std::uint8_t>(sfh);
  const auto ss = static_cast<std::uint8_t>(be(rec, 48, 1));
  r.scope = static_cast<std::uint8_t>(ss >> 4);
  r.join_state = ss & 0x0f;
  return r;
}

bool enums_valid(const McRequest& r) {
  if (r.has(bit::kMtuSel | bit::kMtu) && !mtu_valid(r.mtu)) return false;
  if (r.has(bit::kRateSel | bit::kRate) && !rate_valid(r.rate)) return false;
  return true;
}

std::uint16_t ipoib_signature(const Gid& mgid) {
  const auto sig = static_cast<std::uint16_t>(mgid[2] << 8 | mgid[3]);
  return sig == kSigIpv4 || sig == kSigIpv6 ? sig : 0;
}

bool requested_mgid_valid(const Gid& mgid) {
  if (mgid[0] != 0xff) return false;
  if (ipoib_signature(mgid) != 0) return true;
  if ((mgid[1] & 0xe0) != 0) return false;
  const auto sig = static_cast<std::uint16_t>(mgid[2] << 8 | mgid[3]);
  return !(sig == kSigSaAssigned && (mgid[1] & 0x0f) == kScopeLinkLocal);
}

std::optional<Gid> ipoib_broadcast_for(const Gid& mgid) {
  if (ipoib_signature(mgid) == 0) return std::nullopt;
  Gid b{0xff, static_cast<std::uint8_t>(0x10 | (mgid[1] & 0x0f)), 0x40, 0x1b, mgid[4], mgid[5]};
  std::fill(b.begin() + 12, b.end(), std::uint8_t{0xff});
  if (b == mgid) return std::nullopt;
  return b;
}

bool is_ipv6_snm(const Gid& mgid) {
  // ff1Z:601b:PPPP:0000 : 0000:0001:ffXX:XXXX; OpenSM masks the flags nibble to 1
  // and lets the scope vary.
  if (mgid[0] != 0xff || (mgid[1] & 0xf0) != 0x10) return false;
  if (mgid[2] != 0x60 || mgid[3] != 0x1b || mgid[6] != 0 || mgid[7] != 0) return false;
  for (std::size_t i = 8; i < 11; ++i)
    if (mgid[i] != 0) return false;
  // OpenSM's interface-ID mask 0xfffffff1ff000000 leaves three bits of byte 11
  // free; a solicited-node address has exactly 1 there.
  return (mgid[11] & 0xf1) == 0x01 && mgid[12] == 0xff;
}

bool same_snm_family(const Gid& a, const Gid& b) {
  return std::equal(a.begin(), a.begin() + 13, b.begin());
}

Gid sa_assigned_mgid(std::uint8_t scope, std::uint64_t subnet_prefix, std::uint32_t counter) {
  Gid g{0xff, static_cast<std::uint8_t>(0x10 | (scope & 0x0f)), 0xa0, 0x1b};
  for (std::size_t i = 0; i < 8; ++i)
    g[4 + i] = static_cast<std::uint8_t>(subnet_prefix >> (56 - 8 * i));
  // OpenSM copies its counter in host order (little-endian on every platform it
  // runs on); the same bytes come out here on any host.
  for (std::size_t i = 0; i < 4; ++i)
    g[10 + i] = static_cast<std::uint8_t>(counter >> (8 * i));
  return g;
}

std::optional<std::uint8_t> create_mtu(const McRequest& r, std::uint8_t port_mtu) {
  if (!r.has(bit::kMtu | bit::kMtuSel) || r.mtu_sel == selector::kBest) {
    if (port_mtu == 0) return std::nullopt;
    return port_mtu;
  }
  int mtu = r.mtu;
  switch (r.mtu_sel) {
    case selector::kGreater:
      if (port_mtu != 0 && r.mtu >= port_mtu) return std::nullopt;
      mtu = port_mtu != 0 ? port_mtu : r.mtu + 1;
      break;
    case selector::kLess:
      mtu = port_mtu != 0 && r.mtu > port_mtu ? port_mtu : r.mtu - 1;
      break;
    default:
      break;
  }
  if (mtu < kMtuMin || mtu > kMtuMax) return std::nullopt;
  return static_cast<std::uint8_t>(mtu);
}

std::optional<std::uint8_t> create_rate(const McRequest& r, std::uint8_t port_rate) {
  if (!r.has(bit::kRate | bit::kRateSel) || r.rate_sel == selector::kBest) {
    if (port_rate == 0) return std::nullopt;
    return port_rate;
  }
  std::uint8_t rate = r.rate;
  switch (r.rate_sel) {
    case selector::kGreater:
      if (rate_rank(r.rate) >= rate_rank(port_rate)) return std::nullopt;
      rate = port_rate;
      break;
    case selector::kLess:
      rate = rate_rank(r.rate) > rate_rank(port_rate) ? port_rate : rate_below(r.rate);
      break;
    default:
      break;
  }
  if (!rate_valid(rate)) return std::nullopt;
  return rate;
}

bool other_fields_match(const McRequest& r, const McGroupRec& g) {
  if (r.has(bit::kQKey) && r.qkey != g.qkey) return false;
  if (r.has(bit::kPKey)) {
    if (((r.pkey | g.pkey) & kPKeyFullBit) == 0) return false;
    if ((r.pkey & kPKeyBaseMask) != (g.pkey & kPKeyBaseMask)) return false;
  }
  if (r.has(bit::kTClass) && r.tclass != g.tclass) return false;
  if (r.has(bit::kSl) && r.sl != (g.sl & 0x0f)) return false;
  if (r.has(bit::kFlowLabel) && r.flow_label != (g.flow_label & 0xfffff)) return false;
  if (r.has(bit::kHopLimit) && r.hop_limit != g.hop_limit) return false;
  return true;
}

bool selectors_match(const McRequest& r, const McGroupRec& g) {
  if (r.has(bit::kMtuSel) && !selector_holds(r.mtu_sel, g.mtu & 0x3f, r.mtu)) return false;
  if (r.has(bit::kRateSel) &&
      !selector_holds(r.rate_sel, rate_rank(g.rate & 0x3f), rate_rank(r.rate)))
    return false;
  return true;
}

bool port_can_carry(const McGroupRec& g, std::uint8_t neighbor_mtu, std::uint8_t port_rate) {
  if (neighbor_mtu < (g.mtu & 0x3f)) return false;
  return rate_rank(port_rate) >= rate_rank(g.rate & 0x3f);
}

bool leave_bits_valid(std::uint8_t stored, std::uint8_t requested) {
  requested &= 0x0f;
  stored &= 0x0f;
  return (requested & stored) != 0 && (requested & ~stored) == 0;
}

std::uint8_t state_after_leave(std::uint8_t stored, std::uint8_t requested,
                               bool other_full_members) {
  const auto left = static_cast<std::uint8_t>(stored & ~requested & 0x0f);
  if ((left & kFullBits) != 0) return left;
  if (left != 0 && other_full_members) return left;
  return 0;
}

}  // namespace ibsm::sa::mcast
