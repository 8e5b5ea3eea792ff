// P_Key table layout of one port, as osm_pkey_mgr.c lays it out (keep_pkey_indexes):
//  - a wanted P_Key already in the port's table keeps its index;
//  - index 0 holds the indx0 P_Key if one is set, otherwise the default P_Key 0x7fff/0xffff;
//  - a new P_Key takes the index it had before (the "accumulated" index history),
//    otherwise the index after the highest one ever used; when that is past the
//    capacity, the first free entry from index 1; otherwise the table is full.
// Tables are handled in 32-entry blocks (IBA 14.2.5.7 P_KeyTable); a block is sent
// only if it differs from what the port has.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace ibsm::partitions {

inline constexpr std::size_t kPKeysPerBlock = 32;

// P_Key -> index the SM gave it once; kept across sweeps (OpenSM's accum_pkeys).
using PKeyIndexHistory = std::map<std::uint16_t, std::uint16_t>;

struct TableRequest {
  std::vector<std::uint16_t> current;  // the port's table now (any length)
  std::uint16_t capacity = 0;          // entries the port supports
  std::vector<std::uint16_t> wanted;   // P_Keys with membership bit, in OpenSM's order
  std::uint16_t indx0_pkey = 0;
  bool allow_both_pkeys = false;
};

struct TableResult {
  std::vector<std::uint16_t> table;    // capacity rounded up to whole blocks
  std::vector<std::uint16_t> dropped;  // wanted P_Keys that did not fit
  std::size_t used_blocks = 0;         // blocks holding at least one set entry
};

// OpenSM walks partitions by P_Key in the order of its map, whose key is the
// big-endian P_Key read on a little-endian host; limited entries before full ones.
std::vector<std::uint16_t> opensm_pkey_order(std::vector<std::uint16_t> pkeys);

TableResult plan_table(const TableRequest& request, PKeyIndexHistory& history);

// The table of a switch port that enforces for an end port: the end port's valid
// entries packed from index 0, without a limited entry whose full twin is present.
std::vector<std::uint16_t> peer_table(const std::vector<std::uint16_t>& end_port_table,
                                      std::size_t used_blocks);

// Indexes of the 32-entry blocks where want differs from have (have may be shorter;
// missing entries count as 0, a missing block always differs).
std::vector<std::uint16_t> changed_blocks(const std::vector<std::uint16_t>& have,
                                          const std::vector<std::uint16_t>& want,
                                          std::size_t blocks);

}  // namespace ibsm::partitions
