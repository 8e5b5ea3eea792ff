// One REST API request, handled as a pure function of the request, the admin's
// partitions and the API's state: the subset of NVIDIA UFM's REST API that
// Mellanox/ib-kubernetes' UFM plugin calls (docs/integrations-ufm.md):
//   GET  /ufmRest/app/ufm_version
//   POST /ufmRest/resources/pkeys                      add GUIDs to a P_Key
//   POST /ufmRest/actions/remove_guids_from_pkey       remove GUIDs from a P_Key
//   GET  /ufmRest/resources/pkeys/?guids_data=true     every P_Key with its GUIDs
// 200 on success; an add of a member already there and a remove of one absent are
// successes that change nothing. A request that fails changes nothing. The listener
// (TLS, HTTP framing, Basic auth through rest/basic_auth.hpp, the failed-login limiter)
// runs before this and hands over the authenticated user.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "rest/model.hpp"

namespace ibsm::rest {

struct Request {
  std::string_view method;  // "GET", "POST"
  std::string_view target;  // the request line's target: path and query
  std::string_view body;
  std::string_view user;  // the authenticated user; empty: none (401)
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // Allow, WWW-Authenticate
  // What changed in the membership in force, in request order: the SM programs it.
  std::vector<MembershipChange> changes;
  bool state_changed = false;  // the ApiState changed: persist it before answering
  std::optional<Error> error;  // why the request failed, for the log
};

struct ServerFacts {
  std::string_view version;  // ibsm's version, shown by ufm_version
};

// `state` is changed only by a successful add or remove.
Response handle(const Request& request, const AdminPartitions& admin, ApiState& state,
                const ServerFacts& facts);

// The status line's words for the statuses handle() and the listener answer.
std::string_view status_reason(int status);

}  // namespace ibsm::rest
