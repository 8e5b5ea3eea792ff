// Reading linear forwarding tables back from text: OpenSM's opensm-lfts.dump (written by
// its osm_dump.c, by our routing/lft_dump.hpp, and loaded by `opensm -R file -U`) and the
// output of `ibroute` / dump_lfts.sh, whose header and rows differ slightly:
//
//   Unicast lids [0-12] of switch Lid 3 guid 0x0002c90000000001 ('sw1'):
//   0x0001 001 # Channel Adapter portguid 0x...: 'h1'
//   12 lids dumped
//
//   Unicast lids [0x0-0xc] of switch Lid 3 guid 0x0002c90000000001 (sw1):
//   0x0001 001 : (Channel Adapter portguid 0x...: 'h1')
//   12 valid lids dumped
//
// The file is untrusted input: every malformed line is an error naming "path:line".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "routing/engine.hpp"

namespace ibsm::routing {

// One switch block of the dump: its identity and the (destination LID, output port)
// pairs listed, in file order.
struct LftDumpSwitch {
  std::uint64_t guid = 0;
  Lid lid = 0;
  std::string description;
  std::vector<std::pair<Lid, PortNum>> entries;
};

struct LftDump {
  std::vector<LftDumpSwitch> switches;
};

// Parses the whole text; `path` only names the file in errors (kErrLftDumpSyntax).
Result<LftDump> parse_lft_dump(std::string_view text, std::string_view path);

// Builds Routes for `topo` from a parsed dump: switches matched by node GUID, one LFT per
// topology switch sized to the topology's max LID + 1, kNoPath where the dump lists
// nothing. Fails when a topology switch is missing from the dump, when no GUID matches at
// all (a dump of another fabric), or when an entry names a port the switch lacks or
// whose link is down. Dump switches unknown to the topology and entries for LIDs above
// the topology's max LID are skipped with a warning in Routes::warnings.
Result<Routes> routes_from_dump(const Topology& topo, const LftDump& dump, std::string_view path);

}  // namespace ibsm::routing
