#include "rest/request_body.hpp"

#include <string>
#include <unordered_set>

#include <spdlog/fmt/fmt.h>
#include <nlohmann/json.hpp>

#include "rest/errors.hpp"

namespace ibsm::rest {

namespace {

using nlohmann::json;

Result<json> parse_object(std::string_view body) {
  if (body.size() > kMaxBodyBytes) {
    return fail(kErrRestTooLarge,
                fmt::format("request body of {} bytes is over the bound of {} bytes", body.size(),
                            kMaxBodyBytes));
  }
  json doc;
  try {
    // nlohmann's parser is iterative (no recursion on nesting) and so is its destructor
    // since 3.10, so the body's bound bounds the work.
    doc = json::parse(body.begin(), body.end());
  } catch (const json::exception& e) {
    return fail(kErrRestBadRequest, fmt::format("request body is not JSON: {}", e.what()));
  }
  if (!doc.is_object()) return fail(kErrRestBadRequest, "request body is not a JSON object");
  return doc;
}

Result<std::uint16_t> pkey_field(const json& doc) {
  const auto it = doc.find("pkey");
  if (it == doc.end()) return fail(kErrRestBadRequest, "\"pkey\" is missing");
  if (!it->is_string()) {
    return fail(kErrRestBadRequest,
                "\"pkey\" is not a string (a hexadecimal string like \"0x0005\")");
  }
  return parse_pkey(it->get_ref<const std::string&>());
}

Result<std::vector<std::uint64_t>> guids_field(const json& doc) {
  const auto it = doc.find("guids");
  if (it == doc.end()) return fail(kErrRestBadRequest, "\"guids\" is missing");
  if (!it->is_array()) return fail(kErrRestBadRequest, "\"guids\" is not an array");
  if (it->size() > kMaxGuidsPerRequest) {
    return fail(kErrRestTooLarge, fmt::format("\"guids\" lists {} GUIDs, over the bound of {}",
                                              it->size(), kMaxGuidsPerRequest));
  }
  std::vector<std::uint64_t> out;
  out.reserve(it->size());
  std::unordered_set<std::uint64_t> seen;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& g = (*it)[i];
    if (!g.is_string()) {
      return fail(kErrRestBadRequest, fmt::format("\"guids\"[{}] is not a string", i));
    }
    auto guid = parse_guid(g.get_ref<const std::string&>());
    if (!guid) {
      return fail(kErrRestBadGuid, fmt::format("\"guids\"[{}]: {}", i, guid.error().message));
    }
    if (seen.insert(*guid).second) out.push_back(*guid);
  }
  return out;
}

Status bool_field(const json& doc, const char* name, bool& out) {
  const auto it = doc.find(name);
  if (it == doc.end()) return {};
  if (!it->is_boolean()) {
    return fail(kErrRestBadRequest, fmt::format("\"{}\" is not true or false", name));
  }
  out = it->get<bool>();
  return {};
}

}  // namespace

Result<AddRequest> parse_add_request(std::string_view body) {
  auto doc = parse_object(body);
  if (!doc) return fail(doc.error());
  AddRequest req;
  auto pkey = pkey_field(*doc);
  if (!pkey) return fail(pkey.error());
  req.pkey = *pkey;
  auto guids = guids_field(*doc);
  if (!guids) return fail(guids.error());
  req.guids = std::move(*guids);
  if (auto s = bool_field(*doc, "index0", req.flags.index0); !s) return fail(s.error());
  if (auto s = bool_field(*doc, "ip_over_ib", req.ip_over_ib); !s) return fail(s.error());
  if (const auto m = doc->find("membership"); m != doc->end()) {
    if (!m->is_string()) return fail(kErrRestBadRequest, "\"membership\" is not a string");
    const auto& word = m->get_ref<const std::string&>();
    if (word == "full") {
      req.flags.membership = Membership::kFull;
    } else if (word == "limited") {
      req.flags.membership = Membership::kLimited;
    } else {
      return fail(kErrRestBadRequest, fmt::format("\"membership\" is \"{}\", not \"full\" or "
                                                  "\"limited\"",
                                                  std::string_view(word).substr(0, 32)));
    }
  }
  if (doc->contains("memberships")) {
    return fail(kErrRestBadRequest,
                "\"memberships\" (one membership per GUID) is not supported; send one request "
                "per membership");
  }
  return req;
}

Result<RemoveRequest> parse_remove_request(std::string_view body) {
  auto doc = parse_object(body);
  if (!doc) return fail(doc.error());
  RemoveRequest req;
  auto pkey = pkey_field(*doc);
  if (!pkey) return fail(pkey.error());
  req.pkey = *pkey;
  auto guids = guids_field(*doc);
  if (!guids) return fail(guids.error());
  req.guids = std::move(*guids);
  return req;
}

}  // namespace ibsm::rest
