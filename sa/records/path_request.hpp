// A PathRecord used as a query (PathRecord Get/GetTable, and the template of a
// TraceRecord GetTraceTable): its checks, its endpoints and the walk over the port
// pairs it selects, in OpenSM's order (osm_sa_path_record.c).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "sa/context.hpp"
#include "sa/path_resolver.hpp"

namespace ibsm::sa::pathrec {

// ComponentMask bits of PathRecord (IBA 15.2.5.16; sa/layouts_path.cpp).
inline constexpr unsigned kServiceIdMsb = 0;
inline constexpr unsigned kServiceIdLsb = 1;
inline constexpr unsigned kDgid = 2;
inline constexpr unsigned kSgid = 3;
inline constexpr unsigned kDlid = 4;
inline constexpr unsigned kSlid = 5;
inline constexpr unsigned kRawTraffic = 6;
inline constexpr unsigned kFlowLabel = 8;
inline constexpr unsigned kHopLimit = 9;
inline constexpr unsigned kTClass = 10;
inline constexpr unsigned kReversible = 11;
inline constexpr unsigned kNumbPath = 12;
inline constexpr unsigned kPKey = 13;
inline constexpr unsigned kQosClass = 14;
inline constexpr unsigned kSl = 15;
inline constexpr unsigned kMtuSelector = 16;
inline constexpr unsigned kMtu = 17;
inline constexpr unsigned kRateSelector = 18;
inline constexpr unsigned kRate = 19;
inline constexpr unsigned kLifeSelector = 20;
inline constexpr unsigned kLife = 21;

inline constexpr std::size_t kSize = 64;
inline constexpr unsigned kUnlimited = ~0u;

inline bool has(std::uint64_t mask, unsigned bit) {
  return (mask >> bit & 1u) != 0;
}

struct Request {
  std::array<std::uint8_t, kSize> rec{};  // the query record, zero-padded
  std::uint64_t mask = 0;
  bool get = false;  // SubnAdmGet: one path at most
  PathQuery query;
  PortRef src, dst;        // fixed endpoints (invalid: any)
  bool no_paths = false;   // an endpoint names nothing: the answer is empty, not an error
  bool multicast = false;  // DGID is a multicast GID: the path comes from the group
  bool echo_sgid = false;  // the record carries the requested SGID
  Gid sgid{};
  Guid dgid_alias = 0;  // DGID named `dst` by an alias GUID: the records' DGID carries it
  // DGID outside the subnet: `dst` is the router port a prefix route chose, and the
  // records carry the requested DGID (OpenSM osm_pr_get_end_points / pr_rcv_build_pr).
  bool off_subnet = false;
  Gid dgid{};
  unsigned per_pair = kUnlimited;  // paths per port pair (NumbPath; Get: 1)
};

// Reads and checks a PathRecord query. Returns a status for the whole request
// (0x0200: a bad MTU/rate enum, SGID/SLID or DGID/DLID naming different ports;
// 0x0600: one ServiceID bit without the other), else kOk with `req` filled.
// Endpoints that name nothing leave `no_paths` set (OpenSM answers those with an
// empty list — never INVALID_GID, sa.md 4.1).
std::uint16_t read_request(const RequestContext& ctx, const PathTables& t, Request& req);

// Receives resolved paths; returns false to stop the walk.
class PathSink {
 public:
  virtual bool take(const ResolvedPath& p) = 0;

 protected:
  ~PathSink() = default;
};

// Resolves the paths `req` selects, in OpenSM's order: one fixed pair, or every
// port as the open end(s) (the "world" query has destinations outside, sources
// inside). Pairs whose ports share no partition with each other or with the
// requester are skipped (IBA 15.4.3; sa.md 3.2). For each pair, LMC pairs with
// Preference 0 first (base+i to base+i), then the cross pairs with Preference 2.
void for_each_path(const RequestContext& ctx, const PathResolver& r, const Request& req,
                   PathSink& sink);

}  // namespace ibsm::sa::pathrec
