#include "routing/torus/torus_rules.hpp"

namespace ibsm::routing::torus {
namespace {

// Lengths of the direct way (no wrap) and the wrapping way between two ring positions
// (OpenSM get_pathlen).
struct RingLengths {
  unsigned direct;
  unsigned wrapping;
};

RingLengths ring_lengths(int src, int dst, unsigned radix) {
  const unsigned lo = static_cast<unsigned>(src < dst ? src : dst);
  const unsigned hi = static_cast<unsigned>(src < dst ? dst : src);
  return {hi - lo, lo + radix - hi};
}

}  // namespace

int ring_direction(int src, int dst, unsigned radix) {
  if (src == dst) return 0;
  const RingLengths l = ring_lengths(src, dst, radix);
  const bool direct = l.direct <= l.wrapping;
  if (dst > src) return direct ? 1 : -1;
  return direct ? -1 : 1;
}

bool crosses_dateline(int src, int dst, unsigned radix) {
  const RingLengths l = ring_lengths(src, dst, radix);
  return l.direct > l.wrapping;
}

std::uint8_t path_sl_bits(const Coord& s, const Coord& d, const std::array<unsigned, kDims>& radix,
                          const std::array<bool, kDims>& wraps) {
  std::uint8_t sl = 0;
  for (unsigned k = 0; k < kDims; ++k)
    if (wraps[k] && crosses_dateline(s[k], d[k], radix[k]))
      sl |= static_cast<std::uint8_t>(1u << k);
  return sl;
}

Routes::Sl2Vl::Table switch_sl2vl(unsigned in_dim, unsigned out_dim) {
  Routes::Sl2Vl::Table t{};
  for (unsigned sl = 0; sl < t.size(); ++sl) {
    const unsigned qos = (sl >> 3) & 1u;
    unsigned vl = 0;
    if (out_dim != kNoDim) {
      vl |= (sl >> out_dim) & 1u;
      if (in_dim != kNoDim && in_dim > out_dim) vl |= 2u;
      vl |= qos << 2;
    } else {
      vl = qos;
    }
    t[sl] = static_cast<std::uint8_t>(vl);
  }
  return t;
}

Routes::Sl2Vl::Table end_port_sl2vl() {
  Routes::Sl2Vl::Table t{};
  for (unsigned sl = 0; sl < t.size(); ++sl)
    t[sl] = static_cast<std::uint8_t>((sl >> 3) & 1u);
  return t;
}

}  // namespace ibsm::routing::torus
