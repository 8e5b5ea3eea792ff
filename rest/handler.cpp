#include "rest/handler.hpp"

#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "rest/errors.hpp"
#include "rest/request_body.hpp"

namespace ibsm::rest {

namespace {

constexpr std::string_view kVersionPath = "/ufmRest/app/ufm_version";
constexpr std::string_view kPkeysPath = "/ufmRest/resources/pkeys";
constexpr std::string_view kRemovePath = "/ufmRest/actions/remove_guids_from_pkey";

int status_of(const Error& e) {
  if (e.id == kErrRestTooLarge) return 413;
  if (e.id == kErrRestUnauthorized) return 401;
  if (e.id == kErrRestRateLimited) return 429;
  return 400;
}

Response failure(int status, Error e) {
  Response r;
  r.status = status;
  JsonWriter w;
  w.begin_object().field("error", e.message).field("id", format_error_id(e.id)).end_object();
  r.body = w.text();
  r.error = std::move(e);
  return r;
}

Response success(std::string body) {
  Response r;
  r.body = std::move(body);
  return r;
}

// The path without a trailing '/' (UFM documents "/ufmRest/resources/pkeys/", the plugin
// posts without it), and the query.
std::pair<std::string_view, std::string_view> split_target(std::string_view target) {
  std::string_view query;
  if (const auto q = target.find('?'); q != std::string_view::npos) {
    query = target.substr(q + 1);
    target = target.substr(0, q);
  }
  if (target.size() > 1 && target.back() == '/') target.remove_suffix(1);
  return {target, query};
}

bool query_flag(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    const auto eq = param.find('=');
    if (param.substr(0, eq) != name) continue;
    const std::string_view value = eq == std::string_view::npos ? "" : param.substr(eq + 1);
    return value == "true" || value == "True" || value == "1";
  }
  return false;
}

bool partition_ipoib(const AdminPartitions& admin, const ApiState& state, std::uint16_t pkey) {
  if (auto a = admin.find(pkey); a != admin.end()) return a->second.ip_over_ib;
  auto p = state.partitions.find(pkey);
  return p != state.partitions.end() && p->second.ip_over_ib;
}

void note_change(Response& r, std::uint16_t pkey, std::uint64_t guid,
                 const std::optional<EffectiveMember>& before,
                 const std::optional<EffectiveMember>& after, bool ipoib) {
  using Kind = MembershipChange::Kind;
  if (!before && after) {
    r.changes.push_back({Kind::kAdded, pkey, guid, after->flags, ipoib});
  } else if (before && !after) {
    r.changes.push_back({Kind::kRemoved, pkey, guid, before->flags, ipoib});
  } else if (before && after && before->flags != after->flags) {
    r.changes.push_back({Kind::kChanged, pkey, guid, after->flags, ipoib});
  }
}

Response add(std::string_view body, const AdminPartitions& admin, ApiState& state) {
  auto req = parse_add_request(body);
  if (!req) return failure(status_of(req.error()), req.error());
  Response r = success("{}");
  if (req->guids.empty()) return r;
  const auto [it, created] = state.partitions.try_emplace(req->pkey);
  ApiPartition& part = it->second;
  const bool ipoib_before = part.ip_over_ib;
  part.ip_over_ib = req->ip_over_ib;
  r.state_changed = created || ipoib_before != part.ip_over_ib;
  const bool ipoib = partition_ipoib(admin, state, req->pkey);
  for (const std::uint64_t guid : req->guids) {
    const auto before = find_member(admin, state, req->pkey, guid);
    auto [m, inserted] = part.members.try_emplace(guid, req->flags);
    if (!inserted && m->second != req->flags) {
      m->second = req->flags;
      r.state_changed = true;
    }
    r.state_changed = r.state_changed || inserted;
    note_change(r, req->pkey, guid, before, find_member(admin, state, req->pkey, guid), ipoib);
  }
  return r;
}

Response remove(std::string_view body, const AdminPartitions& admin, ApiState& state) {
  auto req = parse_remove_request(body);
  if (!req) return failure(status_of(req.error()), req.error());
  Response r = success("{}");
  const auto it = state.partitions.find(req->pkey);
  if (it == state.partitions.end()) return r;  // nothing of the API's: the admin's stay
  const bool ipoib = partition_ipoib(admin, state, req->pkey);
  for (const std::uint64_t guid : req->guids) {
    const auto before = find_member(admin, state, req->pkey, guid);
    if (it->second.members.erase(guid) == 0) continue;
    r.state_changed = true;
    note_change(r, req->pkey, guid, before, find_member(admin, state, req->pkey, guid), ipoib);
  }
  if (it->second.members.empty()) state.partitions.erase(it);
  return r;
}

Response list(std::string_view query, const AdminPartitions& admin, const ApiState& state) {
  const bool with_guids = query_flag(query, "guids_data");
  JsonWriter w;
  w.begin_object();
  for (const auto& [pkey, part] : merge(admin, state)) {
    w.key(pkey_key(pkey)).begin_object();
    w.field("partition", part.name).field("ip_over_ib", part.ip_over_ib);
    if (with_guids) {
      w.key("guids").begin_array();
      for (const auto& [guid, member] : part.members) {
        w.begin_object()
            .field("guid", guid_text(guid))
            .field("membership", membership_word(member.flags.membership))
            .field("index0", member.flags.index0)
            .end_object();
      }
      w.end_array();
    }
    w.end_object();
  }
  w.end_object();
  return success(w.text());
}

Response version(const ServerFacts& facts) {
  JsonWriter w;
  w.begin_object().field("ufm_release_version", fmt::format("ibsm {}", facts.version));
  w.end_object();
  return success(w.text());
}

Response wrong_method(std::string_view allow) {
  Response r =
      failure(405, Error{kErrRestNotFound, fmt::format("method not allowed; allowed: {}", allow)});
  r.headers.emplace_back("Allow", std::string(allow));
  return r;
}

}  // namespace

Response handle(const Request& request, const AdminPartitions& admin, ApiState& state,
                const ServerFacts& facts) {
  if (request.user.empty()) {
    Response r = failure(401, Error{kErrRestUnauthorized, "authentication required"});
    r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"ibsm\"");
    return r;
  }
  const auto [path, query] = split_target(request.target);
  const bool get = request.method == "GET";
  const bool post = request.method == "POST";
  if (path == kVersionPath) return get ? version(facts) : wrong_method("GET");
  if (path == kPkeysPath) {
    if (get) return list(query, admin, state);
    if (post) return add(request.body, admin, state);
    return wrong_method("GET, POST");
  }
  if (path == kRemovePath) return post ? remove(request.body, admin, state) : wrong_method("POST");
  return failure(404,
                 Error{kErrRestNotFound, fmt::format("no such path: {}", path.substr(0, 200))});
}

std::string_view status_reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    default:
      return "Unknown";
  }
}

}  // namespace ibsm::rest
