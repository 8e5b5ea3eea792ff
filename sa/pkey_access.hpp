// Partition rules of the SA (IBA 15.4.3 / C15-0.1.x; OpenSM osm_pkey.c): a
// requester sees a port, path or group only if it shares a partition with it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "sa/snapshot.hpp"

namespace ibsm::sa {

inline constexpr std::uint16_t kPKeyBaseMask = 0x7fff;
inline constexpr std::uint16_t kPKeyFullBit = 0x8000;

// Two P_Key tables share a partition when some non-zero base P_Key is in both
// and at least one side holds it as a full member. With allow_both_pkeys a table
// may hold the same base twice (full and limited); every pair is compared.
bool tables_share_pkey(std::span<const std::uint16_t> a, std::span<const std::uint16_t> b);

// The P_Key table that governs what a port may reach: its own for an end port;
// for a switch, port 0's.
std::span<const std::uint16_t> access_table(const Snapshot& s, PortRef p);

// OpenSM's osm_physp_share_pkey: the same port shares with itself; a port with an
// empty table (not read) is treated as sharing, so a missing read hides nothing.
bool ports_share_pkey(const Snapshot& s, PortRef a, PortRef b);

// True when the table holds `pkey` (base compared) — as a full member if `full`.
bool table_has_pkey(std::span<const std::uint16_t> table, std::uint16_t pkey, bool full = false);

// The lowest shared P_Key (OpenSM: first common key, sorted by value, one side
// full), with the full bit set if either side is full; nullopt when none.
std::optional<std::uint16_t> first_shared_pkey(std::span<const std::uint16_t> a,
                                               std::span<const std::uint16_t> b);

}  // namespace ibsm::sa
