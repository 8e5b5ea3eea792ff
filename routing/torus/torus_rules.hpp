// The small rules of torus-2QoS (as OpenSM's osm_torus.c): which way round a ring, which
// SL a path gets, which VL a hop takes. Pure functions on coordinates.
#pragma once

#include <array>
#include <cstdint>

#include "routing/engine.hpp"
#include "routing/torus/torus_layout.hpp"

namespace ibsm::routing::torus {

inline constexpr unsigned kNoDim = kDims;  // a port that is no inter-switch link

// +1 or -1: the shorter way from src to dst on a ring of `radix`, ties going the direct
// way (no wrap); 0 when src == dst (OpenSM ring_dir_idx).
int ring_direction(int src, int dst, unsigned radix);

// True when the shorter way from src to dst wraps past radix-1 -> 0, i.e. crosses the
// dateline (OpenSM use_vl1; ties do not wrap).
bool crosses_dateline(int src, int dst, unsigned radix);

// SL bits 0-2 of the path from switch coordinate s to d: bit k = the path crosses the
// dateline of dimension k. Mesh dimensions have no dateline.
std::uint8_t path_sl_bits(const Coord& s, const Coord& d, const std::array<unsigned, kDims>& radix,
                          const std::array<bool, kDims>& wraps);

// Dimension of a port from its direction group (kNoDir -> kNoDim).
inline unsigned port_dimension(std::uint8_t dir) {
  return dir == kNoDir ? kNoDim : dir / 2u;
}

// The SL->VL table of a switch for packets entering on a port of dimension `in_dim` and
// leaving on one of `out_dim` (kNoDim: end port / the switch itself). Inter-switch output:
// VL bit 0 = SL bit out_dim, bit 1 = in_dim > out_dim (a turn DOR forbids), bit 2 = SL
// bit 3. Towards an end port: VL = SL bit 3 (OpenSM sl2vl_entry).
Routes::Sl2Vl::Table switch_sl2vl(unsigned in_dim, unsigned out_dim);

// An end port's table: VL = SL bit 3 (the QoS level), so CAs need VL0 and VL1 only.
Routes::Sl2Vl::Table end_port_sl2vl();

}  // namespace ibsm::routing::torus
