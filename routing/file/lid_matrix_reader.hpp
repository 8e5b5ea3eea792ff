// Reading OpenSM's opensm-lid-matrix.dump (osm_dump.c dump_lid_matrix; loaded by
// `opensm -R file -M`): per switch the hop count to every switch LID through each port.
//
//   Switch: guid 0x0002c90000000001
//   0x0001: 00 02 02 ff # portguid 0x0002c90000000001
//   0x0002: 01 01 01 ff # portguid 0x0002c90000000002
//
// Columns are ports 0..N in hex, 0xff = no path through that port; column 0 holds the
// least hop count of the row (OpenSM caches it in the port 0 slot). Only switch LIDs appear
// (OpenSM keeps hops for switches only; an end port is as far as the switch it hangs off).
// The file is untrusted input: every malformed line is an error naming "path:line".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

struct LidMatrixRow {
  Lid lid = 0;
  std::vector<std::uint8_t> hops;  // hops[port], [0] = least of the row; 0xff: no path
  std::uint64_t port_guid = 0;     // from the "# portguid" comment; 0 if absent
};

struct LidMatrixSwitch {
  std::uint64_t guid = 0;
  std::size_t line = 0;  // of its header, for messages
  std::vector<LidMatrixRow> rows;
};

struct LidMatrix {
  std::vector<LidMatrixSwitch> switches;
};

inline constexpr std::uint8_t kNoHops = 0xFF;

// Parses the whole text; `path` only names the file in errors (kErrLidMatrixSyntax).
Result<LidMatrix> parse_lid_matrix(std::string_view text, std::string_view path);

}  // namespace ibsm::routing
