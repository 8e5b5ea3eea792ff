// Prefix routes (opensm.conf prefix_routes_file, OpenSM's osm_subnet.c
// parse_prefix_routes_file and osm_sa_path_record.c find_router): which router
// port a PathRecord to a GID outside the subnet prefix goes to.
//
// File: one route per line, "<prefix> <router port GUID>", both 64-bit hex with an
// optional 0x, either one "*" (any prefix / the first router of the fabric, by
// port GUID); '#' to the end of a line is a comment, blank lines are ignored. The
// first line whose prefix matches and whose router is in the fabric wins (the man
// page's "first available matching router"; OpenSM 3.3.23's code stops at the first
// matching line even when its router is absent). No file: off-subnet queries fail,
// as in OpenSM.
//
// Bad input: a line that does not parse (a bad prefix or GUID, a missing GUID) fails
// the whole file with file:line:column (IBSM-7040) and the last good routes stay;
// OpenSM logs such lines and uses the rest. A GUID that names no router port of the
// fabric is logged with its file:line after each sweep (IBSM-7041) and skipped.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "common/result.hpp"
#include "mad/types.hpp"

namespace ibsm::sa {

inline constexpr ErrorId kErrPrefixRoutesSyntax{7040};
inline constexpr ErrorId kErrPrefixRouteNoRouter{7041};
inline constexpr ErrorId kErrPrefixRoutesUnreadable{7042};

inline constexpr ErrorInfo kPrefixRouteErrors[] = {
    {kErrPrefixRoutesSyntax, "Prefix routes file refused",
     "A line of prefix_routes_file is not \"<prefix> <router port GUID>\" (64-bit hex, 0x "
     "optional, or *): a bad prefix or GUID, or no GUID. The message names file:line:column. "
     "Nothing of the file is used; the routes read before (none at start-up) stay.",
     "Fix the line and send SIGHUP. Until then PathRecords to other subnets are answered with "
     "the last good routes."},
    {kErrPrefixRouteNoRouter, "Prefix route names no router",
     "A line of prefix_routes_file names a GUID that is not the port GUID of a router in the "
     "fabric just swept. The line is skipped; a later line for the same prefix may serve.",
     "Check the GUID (ibnetdiscover lists routers as Rt) or whether the router is down."},
    {kErrPrefixRoutesUnreadable, "Prefix routes file unreadable",
     "prefix_routes_file exists but cannot be read. The routes read before stay.",
     "Check the file's permissions."},
};

struct PrefixRoute {
  bool any_prefix = false;  // "*"
  std::uint64_t prefix = 0;
  bool any_router = false;  // "*": the first router port of the fabric
  mad::Guid router = 0;
  std::size_t line = 0;
};

struct PrefixRoutes {
  std::string origin;  // the file, for messages
  std::vector<PrefixRoute> routes;
};

// Never throws; an error names origin:line:column.
Result<PrefixRoutes> parse_prefix_routes(std::string_view text, std::string_view origin);
// A missing file is no routes (not an error), as in OpenSM.
Result<PrefixRoutes> load_prefix_routes(const std::string& path);

// The router port for a DGID prefix outside the subnet, 0 when none: `routers` holds
// the router port GUIDs of the fabric, sorted.
mad::Guid route_for(const PrefixRoutes& r, std::uint64_t prefix,
                    const std::vector<mad::Guid>& routers);
// "file:line: ..." for each route naming a GUID that is no router port here.
std::vector<std::string> routes_without_router(const PrefixRoutes& r,
                                               const std::vector<mad::Guid>& routers);

}  // namespace ibsm::sa
