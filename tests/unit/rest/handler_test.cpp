// rest/handler.hpp seen from a client: the bodies below are byte for byte what
// Mellanox/ib-kubernetes' UFM plugin sends (pkg/sm/plugins/ufm/ufm.go: "0x%04X" P_Keys,
// GUIDs as net.HardwareAddr's lower-case hex without ':'), and the list answer is read
// the way the plugin reads it (a map of P_Key to {"guids": [{"guid": ...}]}).
#include "rest/handler.hpp"

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "rest/errors.hpp"
#include "rest/request_body.hpp"

namespace ibsm::rest {
namespace {

using Kind = MembershipChange::Kind;
using nlohmann::json;

constexpr std::string_view kAddBody =
    R"({"pkey": "0x0005", "index0": true, "ip_over_ib": true, "membership": "full", )"
    R"("guids": ["0200000000000001","0200000000000002","0200000000000003"]})";
constexpr std::string_view kRemoveBody = R"({"pkey": "0x0005", "guids": ["0200000000000002"]})";

class Api : public ::testing::Test {
 protected:
  Response call(std::string_view method, std::string_view target, std::string_view body = {},
                std::string_view user = "admin") {
    return handle({method, target, body, user}, admin, state, {"0.1.0"});
  }
  Response add(std::string_view body) { return call("POST", "/ufmRest/resources/pkeys", body); }
  Response remove(std::string_view body) {
    return call("POST", "/ufmRest/actions/remove_guids_from_pkey", body);
  }
  // What the plugin's ListGuidsInUse makes of the list: GUID -> P_Key key.
  std::map<std::string, std::string> guids_in_use() {
    const Response r = call("GET", "/ufmRest/resources/pkeys/?guids_data=true");
    EXPECT_EQ(r.status, 200);
    std::map<std::string, std::string> out;
    const json doc = json::parse(r.body);
    for (const auto& [pkey, data] : doc.items()) {
      for (const auto& g : data.at("guids"))
        out[g.at("guid").get<std::string>()] = pkey;
    }
    return out;
  }

  AdminPartitions admin;
  ApiState state;
};

TEST_F(Api, VersionAnswers200WithJson) {
  const Response r = call("GET", "/ufmRest/app/ufm_version");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(json::parse(r.body).at("ufm_release_version"), "ibsm 0.1.0");
  EXPECT_TRUE(r.changes.empty());
}

TEST_F(Api, AddThePluginsBodyAddsFullMembersAtIndex0) {
  const Response r = add(kAddBody);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.state_changed);
  ASSERT_EQ(r.changes.size(), 3u);
  EXPECT_EQ(
      r.changes[0],
      (MembershipChange{Kind::kAdded, 5, 0x0200000000000001, {Membership::kFull, true}, true}));
  EXPECT_EQ(r.changes[2].guid, 0x0200000000000003u);
  const auto& members = state.partitions.at(5).members;
  EXPECT_EQ(members.size(), 3u);
  EXPECT_EQ(members.at(0x0200000000000002), (MemberFlags{Membership::kFull, true}));
}

TEST_F(Api, ListHasTheShapeThePluginParses) {
  ASSERT_EQ(add(kAddBody).status, 200);
  const Response r = call("GET", "/ufmRest/resources/pkeys/?guids_data=true");
  ASSERT_EQ(r.status, 200);
  const json doc = json::parse(r.body);
  ASSERT_TRUE(doc.contains("0x5")) << r.body;
  const json& p = doc.at("0x5");
  EXPECT_EQ(p.at("partition"), "api_0x0005");
  EXPECT_EQ(p.at("ip_over_ib"), true);
  ASSERT_EQ(p.at("guids").size(), 3u);
  EXPECT_EQ(p.at("guids")[0],
            json::parse(R"({"guid": "0200000000000001", "membership": "full", "index0": true})"));
  EXPECT_EQ(guids_in_use(), (std::map<std::string, std::string>{{"0200000000000001", "0x5"},
                                                                {"0200000000000002", "0x5"},
                                                                {"0200000000000003", "0x5"}}));
}

TEST_F(Api, ListWithoutGuidsDataLeavesGuidsOut) {
  ASSERT_EQ(add(kAddBody).status, 200);
  const json doc = json::parse(call("GET", "/ufmRest/resources/pkeys").body);
  EXPECT_FALSE(doc.at("0x5").contains("guids"));
  EXPECT_EQ(json::parse(call("GET", "/ufmRest/resources/pkeys/?guids_data=false").body), doc);
}

TEST_F(Api, UpperCaseHexPkeyAsThePluginFormatsIt) {
  const Response r = add(R"({"pkey": "0x00AB", "index0": true, "ip_over_ib": true, )"
                         R"("membership": "full", "guids": ["0200000000000001"]})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(state.partitions.contains(0xab));
  EXPECT_EQ(guids_in_use().at("0200000000000001"), "0xab");
}

TEST_F(Api, AddTwiceIsOneChange) {
  ASSERT_EQ(add(kAddBody).status, 200);
  const ApiState after_first = state;
  const Response again = add(kAddBody);
  EXPECT_EQ(again.status, 200);
  EXPECT_TRUE(again.changes.empty());
  EXPECT_FALSE(again.state_changed);
  EXPECT_EQ(state, after_first);
}

TEST_F(Api, RemoveTakesOneOutAndRemovingAgainIs200WithNoChange) {
  ASSERT_EQ(add(kAddBody).status, 200);
  const Response r = remove(kRemoveBody);
  ASSERT_EQ(r.status, 200);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].kind, Kind::kRemoved);
  EXPECT_EQ(r.changes[0].guid, 0x0200000000000002u);
  EXPECT_EQ(guids_in_use().size(), 2u);
  const Response again = remove(kRemoveBody);
  EXPECT_EQ(again.status, 200);
  EXPECT_TRUE(again.changes.empty());
  EXPECT_FALSE(again.state_changed);
  // A P_Key the API never saw: still 200 (ib-kubernetes retries removes forever).
  EXPECT_EQ(remove(R"({"pkey": "0x0777", "guids": ["0200000000000009"]})").status, 200);
}

TEST_F(Api, RemovingTheLastMemberDropsTheApiPartition) {
  ASSERT_EQ(add(R"({"pkey": "0x0006", "guids": ["0200000000000001"]})").status, 200);
  ASSERT_EQ(remove(R"({"pkey": "0x0006", "guids": ["0200000000000001"]})").status, 200);
  EXPECT_TRUE(state.partitions.empty());
  EXPECT_EQ(call("GET", "/ufmRest/resources/pkeys/?guids_data=true").body, "{}");
}

TEST_F(Api, UfmDefaultsWhenFieldsAreLeftOut) {
  ASSERT_EQ(add(R"({"pkey": "0x0006", "guids": ["0200000000000001"]})").status, 200);
  EXPECT_EQ(state.partitions.at(6).members.at(0x0200000000000001),
            (MemberFlags{Membership::kFull, false}));
  EXPECT_TRUE(state.partitions.at(6).ip_over_ib);
}

TEST_F(Api, LimitedMembershipAndAChangeOfIt) {
  ASSERT_EQ(
      add(R"({"pkey": "0x0006", "membership": "limited", "guids": ["0200000000000001"]})").status,
      200);
  EXPECT_EQ(state.partitions.at(6).members.at(0x0200000000000001).membership, Membership::kLimited);
  const Response r =
      add(R"({"pkey": "0x0006", "membership": "full", "guids": ["0200000000000001"]})");
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].kind, Kind::kChanged);
  EXPECT_EQ(r.changes[0].flags.membership, Membership::kFull);
}

TEST_F(Api, AnAdminMemberIsNeverRemovedNorChanged) {
  admin[0x0005] = {"storage", false, {{0x0200000000000002, {Membership::kLimited, false}}}};
  const Response r = add(kAddBody);
  ASSERT_EQ(r.status, 200);
  // ...02 is the admin's: the API's add is kept but changes nothing in force.
  ASSERT_EQ(r.changes.size(), 2u);
  EXPECT_EQ(r.changes[0].guid, 0x0200000000000001u);
  EXPECT_EQ(r.changes[1].guid, 0x0200000000000003u);
  EXPECT_FALSE(r.changes[0].ip_over_ib);  // the admin's partition keeps its ipoib setting
  const Response rm = remove(kRemoveBody);
  EXPECT_EQ(rm.status, 200);
  EXPECT_TRUE(rm.changes.empty());
  const json doc = json::parse(call("GET", "/ufmRest/resources/pkeys/?guids_data=true").body);
  EXPECT_EQ(doc.at("0x5").at("partition"), "storage");
  EXPECT_EQ(
      doc.at("0x5").at("guids")[1],
      json::parse(R"({"guid": "0200000000000002", "membership": "limited", "index0": false})"));
  const Effective e = merge(admin, state);
  EXPECT_EQ(e.at(5).members.at(0x0200000000000002).source, Source::kAdmin);
  EXPECT_EQ(e.at(5).members.at(0x0200000000000001).source, Source::kApi);
  EXPECT_FALSE(e.at(5).api_owned);
}

TEST_F(Api, UnknownGuidsAreAcceptedAndKeptPending) {
  // The library knows no fabric: every well-formed GUID is kept; the SM programs it when
  // a port or alias GUID of that value appears (docs/integrations-ufm.md).
  EXPECT_EQ(add(R"({"pkey": "0x0005", "guids": ["0x02ffffffffffffff"]})").status, 200);
  EXPECT_TRUE(guids_in_use().contains("02ffffffffffffff"));
}

void expect_refused(const Response& r, int status, ErrorId id, std::string_view words) {
  EXPECT_EQ(r.status, status) << r.body;
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->id, id) << r.error->message;
  EXPECT_NE(r.body.find(words), std::string::npos) << r.body;
  EXPECT_EQ(json::parse(r.body).at("id"), format_error_id(id));
  EXPECT_TRUE(r.changes.empty());
  EXPECT_FALSE(r.state_changed);
}

TEST_F(Api, BadBodiesAre400AndChangeNothing) {
  ASSERT_EQ(add(kAddBody).status, 200);
  const ApiState before = state;
  expect_refused(add("{\"pkey\": \"0x0005\", "), 400, kErrRestBadRequest, "not JSON");
  expect_refused(add("[1,2]"), 400, kErrRestBadRequest, "not a JSON object");
  expect_refused(add(R"({"guids": []})"), 400, kErrRestBadRequest, "\\\"pkey\\\" is missing");
  expect_refused(add(R"({"pkey": 5, "guids": []})"), 400, kErrRestBadRequest, "not a string");
  expect_refused(add(R"({"pkey": "0x0005"})"), 400, kErrRestBadRequest, "\\\"guids\\\" is missing");
  expect_refused(add(R"({"pkey": "0x0005", "guids": "0200000000000001"})"), 400, kErrRestBadRequest,
                 "not an array");
  expect_refused(add(R"({"pkey": "0x0005", "guids": [1]})"), 400, kErrRestBadRequest,
                 "[0] is not a string");
  expect_refused(add(R"({"pkey": "0x0005", "membership": "both", "guids": []})"), 400,
                 kErrRestBadRequest, "membership");
  expect_refused(add(R"({"pkey": "0x0005", "index0": "yes", "guids": []})"), 400,
                 kErrRestBadRequest, "index0");
  expect_refused(add(R"({"pkey": "0x0005", "memberships": ["full"], "guids": []})"), 400,
                 kErrRestBadRequest, "not supported");
  expect_refused(remove("not json"), 400, kErrRestBadRequest, "not JSON");
  EXPECT_EQ(state, before);
}

TEST_F(Api, OneBadGuidRefusesTheWholeRequest) {
  const Response r =
      add(R"({"pkey": "0x0005", "guids": ["0200000000000001", "02:00:00:00:00:00:00:02"]})");
  expect_refused(r, 400, kErrRestBadGuid, "[1]");
  for (std::string_view g : {"\"020000000000001\"", "\"02000000000000001\"", "\"020000000000000g\"",
                             "\"0000000000000000\"", "\"\""}) {
    const std::string body =
        std::string(R"({"pkey": "0x0005", "guids": [)") + std::string(g) + "]}";
    EXPECT_EQ(add(body).status, 400) << g;
    EXPECT_EQ(remove(body).status, 400) << g;
  }
  EXPECT_TRUE(state.partitions.empty());
}

TEST_F(Api, PkeyRangeEdges) {
  const auto with = [](std::string_view pkey) {
    return std::string(R"({"pkey": ")") + std::string(pkey) +
           R"(", "guids": ["0200000000000001"]})";
  };
  for (std::string_view bad :
       {"0x0000", "0x7FFF", "0x8005", "0xFFFF", "0x10000", "5", "0x", "0xg1", "-0x1", "0x 5"}) {
    const Response r = add(with(bad));
    EXPECT_EQ(r.status, 400) << bad;
    ASSERT_TRUE(r.error.has_value());
    EXPECT_EQ(r.error->id, kErrRestBadPkey) << bad << ": " << r.error->message;
  }
  EXPECT_NE(add(with("0x8005")).body.find("membership"), std::string::npos);
  EXPECT_TRUE(state.partitions.empty());
  EXPECT_EQ(add(with("0x0001")).status, 200);
  EXPECT_EQ(add(with("0x7FFE")).status, 200);
  EXPECT_EQ(add(with("0x7ffe")).status, 200);
  EXPECT_EQ(add(with("0x1")).status, 200);
  EXPECT_EQ(state.partitions.size(), 2u);
}

TEST_F(Api, OversizedBodiesAre413) {
  std::string big(kMaxBodyBytes + 1, ' ');
  expect_refused(add(big), 413, kErrRestTooLarge, "bound");
  std::string many = R"({"pkey": "0x0005", "guids": [)";
  for (std::size_t i = 0; i <= kMaxGuidsPerRequest; ++i) {
    many += (i ? ",\"" : "\"") + guid_text(0x0200000000000000 + i + 1) + "\"";
  }
  many += "]}";
  ASSERT_LE(many.size(), kMaxBodyBytes);
  expect_refused(add(many), 413, kErrRestTooLarge, "GUIDs");
  EXPECT_TRUE(state.partitions.empty());
}

TEST_F(Api, DeepNestingIsRefusedQuickly) {
  std::string deep(kMaxBodyBytes / 2, '[');
  expect_refused(add(deep), 400, kErrRestBadRequest, "not JSON");
}

TEST_F(Api, UnauthenticatedIs401WithAChallenge) {
  const Response r = call("POST", "/ufmRest/resources/pkeys", kAddBody, "");
  EXPECT_EQ(r.status, 401);
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0].first, "WWW-Authenticate");
  EXPECT_TRUE(state.partitions.empty());
}

TEST_F(Api, UnknownPathsAndMethods) {
  EXPECT_EQ(call("GET", "/ufmRest/resources/ports").status, 404);
  EXPECT_EQ(call("GET", "/").status, 404);
  const Response r = call("DELETE", "/ufmRest/resources/pkeys/0x5");
  EXPECT_EQ(r.status, 404);
  const Response m = call("PUT", "/ufmRest/resources/pkeys", kAddBody);
  EXPECT_EQ(m.status, 405);
  ASSERT_EQ(m.headers.size(), 1u);
  EXPECT_EQ(m.headers[0], (std::pair<std::string, std::string>{"Allow", "GET, POST"}));
  EXPECT_EQ(call("GET", "/ufmRest/actions/remove_guids_from_pkey").status, 405);
  EXPECT_EQ(call("POST", "/ufmRest/app/ufm_version").status, 405);
  EXPECT_TRUE(state.partitions.empty());
  // UFM's documented form with a trailing '/' is the same resource.
  EXPECT_EQ(call("POST", "/ufmRest/resources/pkeys/", kAddBody).status, 200);
}

TEST(RestText, GuidAndPkeyForms) {
  EXPECT_EQ(guid_text(0x0200000000000001), "0200000000000001");
  EXPECT_EQ(guid_text(0xABCDEF0123456789), "abcdef0123456789");
  EXPECT_EQ(pkey_key(5), "0x5");
  EXPECT_EQ(pkey_key(0x7ffe), "0x7ffe");
  EXPECT_EQ(pkey_text(5), "0x0005");
  EXPECT_EQ(*parse_guid("0xABCDEF0123456789"), 0xabcdef0123456789u);
  EXPECT_EQ(*parse_pkey("0X7ffe"), 0x7ffe);
}

}  // namespace
}  // namespace ibsm::rest
