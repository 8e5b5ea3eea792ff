// The JSON bodies of the two POSTs, decoded from untrusted input into plain structs.
// The only file of rest/ that sees the JSON parser (nlohmann-json, header-only from
// Debian's nlohmann-json3-dev): the project writes JSON with common/json_writer.hpp and
// reads it only here. Fields as UFM's API documents them, defaults included; the fields
// UFM has for partition QoS (mtu_limit, service_level, rate_limit) are ignored,
// "memberships" (one membership per GUID) is refused as unsupported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "rest/model.hpp"

namespace ibsm::rest {

inline constexpr std::size_t kMaxBodyBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxGuidsPerRequest = 32768;

// POST /ufmRest/resources/pkeys
struct AddRequest {
  std::uint16_t pkey = 0;
  std::vector<std::uint64_t> guids;  // in request order, duplicates dropped
  MemberFlags flags;                 // membership (default full), index0 (default false)
  bool ip_over_ib = true;            // default true
};

// POST /ufmRest/actions/remove_guids_from_pkey
struct RemoveRequest {
  std::uint16_t pkey = 0;
  std::vector<std::uint64_t> guids;
};

// Errors: kErrRestTooLarge (body or GUID count over the bounds), kErrRestBadRequest (not
// JSON, not an object, a field missing or of the wrong type), kErrRestBadPkey,
// kErrRestBadGuid. The message names the field.
Result<AddRequest> parse_add_request(std::string_view body);
Result<RemoveRequest> parse_remove_request(std::string_view body);

}  // namespace ibsm::rest
