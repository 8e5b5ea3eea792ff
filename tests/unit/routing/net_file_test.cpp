// ibsim net-file parsing: GUIDs exactly as ibsim numbers them, cables, and errors that
// point at file:line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "tests/support/builders.hpp"
#include "tests/support/net_file.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::testsupport {
namespace {

using ::testing::HasSubstr;

// ibsim-utils' net.2sw2path4hca example (two switches, two parallel links, 2-port HCAs).
constexpr std::string_view kTwoSwitches = R"(# comment
Switch	8 "Switch1"
[1]	"Hca1"[1]
[2]	"Hca3"[1]
[3]	"Switch2"[3]
[5]	"Switch2"[5]

Switch 8 "Switch2"
[1]	"Hca2"[1]
[2]	"Hca4"[1]
[3]	"Switch1"[3]
[5]	"Switch1"[5]

Hca	2 "Hca1"
[1]	"Switch1"[1]

Hca	2 "Hca2"
[1]	"Switch2"[1]

Hca	2 "Hca3"
[1]	"Switch1"[2]

Hca 	2 "Hca4"
[1]	"Switch2"[2]
)";

Fabric parse_ok(std::string_view text) {
  auto f = parse_net(text, "t.net");
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : to_string(f.error()));
  return f.ok() ? std::move(f).value() : Fabric{};
}

std::string parse_error(std::string_view text) {
  auto f = parse_net(text, "t.net");
  EXPECT_FALSE(f.ok());
  return f.ok() ? "" : f.error().message;
}

TEST(NetFile, AssignsGuidsLikeIbsim) {
  const Fabric f = parse_ok(kTwoSwitches);
  ASSERT_EQ(f.nodes.size(), 6U);
  EXPECT_EQ(f.nodes[0].node_guid, 0x200000U);
  EXPECT_EQ(f.nodes[1].node_guid, 0x200001U);
  EXPECT_EQ(f.nodes[1].port_guid(0), 0x200001U);
  // 2-port CAs reserve 3 GUIDs each; port p is node GUID + p. These are the port GUIDs
  // OpenSM reported for this file under ibsim (Hca1 0x100001, Hca2 0x100004, ...).
  EXPECT_EQ(f.nodes[2].node_guid, 0x100000U);
  EXPECT_EQ(f.nodes[2].port_guid(1), 0x100001U);
  EXPECT_EQ(f.nodes[3].port_guid(1), 0x100004U);
  EXPECT_EQ(f.nodes[5].port_guid(1), 0x10000aU);
}

TEST(NetFile, ReadsNodesAndCablesOnce) {
  const Fabric f = parse_ok(kTwoSwitches);
  EXPECT_EQ(f.nodes[0].type, NodeType::kSwitch);
  EXPECT_EQ(f.nodes[0].num_ports, 8);
  EXPECT_EQ(f.nodes[2].type, NodeType::kCa);
  EXPECT_EQ(f.nodes[2].description, "Hca1");
  EXPECT_EQ(f.cables.size(), 6U);
  EXPECT_EQ(f.peer({0, 5}), (PortRef{1, 5}));
  EXPECT_EQ(f.peer({5, 1}), (PortRef{1, 2}));
  EXPECT_FALSE(f.peer({0, 4}).has_value());
}

TEST(NetFile, RemotePortDefaultsToOne) {
  const Fabric f = parse_ok("Switch 2 \"s\"\n[1] \"h\"\n\nHca 1 \"h\"\n[1] \"s\"[1]\n");
  EXPECT_EQ(f.peer({0, 1}), (PortRef{1, 1}));
}

TEST(NetFile, GuidBaseLinesAbsoluteAndRelative) {
  const Fabric f = parse_ok(
      "switchguid=0x500000\nSwitch 2 \"a\"\n\nswitchguid+0x10\nSwitch 2 \"b\"\n\n"
      "caguid=0x700000\nHca 1 \"h\"\n");
  EXPECT_EQ(f.nodes[0].node_guid, 0x500000U);
  EXPECT_EQ(f.nodes[1].node_guid, 0x500010U);
  EXPECT_EQ(f.nodes[2].node_guid, 0x700000U);
}

TEST(NetFile, DescriptionLidAndTypes) {
  const Fabric f = parse_ok(
      "Switch 4 \"s\" # \"leaf one\" enhanced port 0 lid 7 lmc 1\n[1] \"r\"[1]\n\n"
      "Rt 1 \"r\" # router\n[1] \"s\"[1]\n");
  EXPECT_EQ(f.nodes[0].description, "leaf one");
  EXPECT_EQ(f.nodes[0].lid, 7);
  EXPECT_EQ(f.nodes[0].lmc, 1);
  EXPECT_EQ(f.nodes[1].type, NodeType::kRouter);
  EXPECT_EQ(f.nodes[1].description, "router");
}

TEST(NetFile, ErrorsNameFileAndLine) {
  EXPECT_THAT(parse_error("Switch 2 \"s\"\n[1] \"nobody\"[1]\n"), HasSubstr("t.net:2:"));
  EXPECT_THAT(parse_error("Switch 2 \"s\"\n[1] \"h\"[1]\n\nHca 1 \"h\"\n[1] \"s\"[2]\n"),
              HasSubstr("is not connected"));
  EXPECT_THAT(parse_error("Switch 2 \"s\"\n\nSwitch 2 \"s\"\n"), HasSubstr("t.net:3: duplicate"));
  EXPECT_THAT(parse_error("Switch 2 \"s\"\n[3] \"h\"[1]\n"), HasSubstr("bad port number 3"));
  EXPECT_THAT(parse_error("include \"x.net\"\n"), HasSubstr("not supported"));
}

std::set<std::tuple<std::string, int, std::string, int>> cable_names(const Fabric& f) {
  std::set<std::tuple<std::string, int, std::string, int>> out;
  for (const Cable& c : f.cables) {
    auto a = std::tuple(f.nodes[c.a.node].id, int{c.a.port});
    auto b = std::tuple(f.nodes[c.b.node].id, int{c.b.port});
    if (b < a) std::swap(a, b);
    out.insert(std::tuple_cat(a, b));
  }
  return out;
}

TEST(NetFile, WriteThenParseGivesTheSameFabric) {
  Fabric f = folded_clos3(2, 2, 2, 2, 2);
  f.nodes[3].node_guid = 0x123456;  // forces a GUID base line
  const Fabric back = parse_ok(write_net(f));
  ASSERT_EQ(back.nodes.size(), f.nodes.size());
  for (std::size_t i = 0; i < f.nodes.size(); ++i) {
    EXPECT_EQ(back.nodes[i].id, f.nodes[i].id);
    EXPECT_EQ(back.nodes[i].node_guid, f.nodes[i].node_guid) << f.nodes[i].id;
  }
  EXPECT_EQ(cable_names(back), cable_names(f));
}

TEST(NetFile, SharedKaryTreeMatchesBuilder) {
  const std::string path = routing::test::shared_net("kary-4-3-64.net");
  if (!routing::test::have_file(path)) GTEST_SKIP() << path << " not present";
  auto f = load_net_file(path);
  ASSERT_TRUE(f.ok()) << to_string(f.error());
  EXPECT_EQ(f->nodes.size(), 48U + 64U);
  EXPECT_EQ(cable_names(*f), cable_names(kary_ntree(4, 3)));
}

}  // namespace
}  // namespace ibsm::testsupport
