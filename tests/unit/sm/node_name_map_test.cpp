// Node names (names/node_name_map.hpp): infiniband-diags' node-name-map format
// as rdma-core and OpenSM read it, file:line errors that keep the map in force,
// and end to end on a FakeFabric: the names in opensm-subnet.lst and in the log,
// renamed by a reload, with the SA's NodeDescription left alone.
#include "names/node_name_map.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "mad/attr/notice.hpp"
#include "names/errors.hpp"
#include "sm/publish/perfmgr_link.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm {
namespace {

using names::Guid;
using names::kErrNodeNameMapSyntax;
using names::kErrNodeNameMapUnreadable;
using names::NodeNameMap;
using names::NodeNames;

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(NodeNameMap, ReadsTheDiagsFormat) {
  auto m = NodeNameMap::parse(
      "# ib-node-name-map\n"
      "\n"
      "0x0002c90300001234 \"leaf-01\"\n"
      "   0X0002C90300001235\t\"spine 02\"   # quoted, with a blank\n"
      "0x0002c90300001236 core-3 # unquoted: up to the '#'\n"
      "0x0002c90300001237\n"           // a GUID alone names nothing
      "0x0002c90300001238 \"\"\n"      // nor an empty name
      "0x0002c90300001239#\"hash\"\n"  // '#' may follow the GUID directly
      "1234 \"decimal\"\n"
      "0777 \"octal\"\r\n",
      "map");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->size(), 6u);
  EXPECT_EQ(*m->find(0x0002c90300001234), "leaf-01");
  EXPECT_EQ(*m->find(0x0002c90300001235), "spine 02");
  EXPECT_EQ(*m->find(0x0002c90300001236), "core-3 ");
  EXPECT_EQ(m->find(0x0002c90300001237), nullptr);
  EXPECT_EQ(m->find(0x0002c90300001238), nullptr);
  EXPECT_EQ(*m->find(0x0002c90300001239), "hash");
  EXPECT_EQ(*m->find(1234), "decimal");
  EXPECT_EQ(*m->find(0777), "octal");
  EXPECT_TRUE(m->warnings().empty());
}

TEST(NodeNameMap, FirstLineForAGuidWinsAndTheSecondIsAWarning) {
  auto m = NodeNameMap::parse("0x10 \"a\"\n0x10 \"b\"\n0x10 \"a\"\n", "map");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m->find(0x10), "a");
  ASSERT_EQ(m->warnings().size(), 1u);
  EXPECT_THAT(m->warnings()[0],
              AllOf(HasSubstr("IBSM-2052"), HasSubstr("map:2:"), HasSubstr("line 1")));
}

TEST(NodeNameMap, BadLinesRefuseTheMapNamingFileAndLine) {
  for (const char* bad : {"leaf-01 0x10\n", "0x10\"x\"\n", "0x10z \"x\"\n", "-0x10 \"x\"\n",
                          "0x1ffffffffffffffff \"x\"\n", "08 \"x\"\n"}) {
    auto m = NodeNameMap::parse(std::string("# c\n0x1 \"ok\"\n") + bad, "/etc/map");
    ASSERT_FALSE(m.ok()) << bad;
    EXPECT_EQ(m.error().id, kErrNodeNameMapSyntax);
    EXPECT_THAT(m.error().message, StartsWith("/etc/map:3: ")) << bad;
  }
  auto long_line = NodeNameMap::parse("0x1 \"" + std::string(300, 'n') + "\"\n", "m");
  ASSERT_FALSE(long_line.ok());
  EXPECT_THAT(long_line.error().message, AllOf(StartsWith("m:1: "), HasSubstr("255")));
}

TEST(NodeNameMap, NameOfFallsBackToTheDescriptionAsDisplayText) {
  auto m = NodeNameMap::parse("0x1 \"named\"\n", "m");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->name_of(0x1, "desc"), "named");
  // A tab as a blank, another control character as U+FFFD, cut at 63 bytes.
  EXPECT_EQ(m->name_of(0x2, std::string("ho\tst\x01") + std::string(70, 'x')),
            "ho st\xef\xbf\xbd" + std::string(55, 'x'));
  EXPECT_EQ(m->name_of(0x2, std::string("a\0b", 3)), "a");
}

// The free names::name_of, which ibsm-ctl's reports and the metrics' topology picture
// use: the map's name_of, and with no map in force the description as display text.
TEST(NodeNameMap, FreeNameOfIsTheMapsRuleAndTakesNoMap) {
  auto m = NodeNameMap::parse("0x1 \"named\"\n", "m");
  ASSERT_TRUE(m.ok());
  const std::string odd = std::string("ho\tst\x01") + std::string(70, 'x');
  EXPECT_EQ(names::name_of(&*m, 0x1, "desc"), "named");
  EXPECT_EQ(names::name_of(&*m, 0x2, odd), m->name_of(0x2, odd));
  EXPECT_EQ(names::name_of(nullptr, 0x1, odd), names::printable_description(odd));
  EXPECT_EQ(names::name_of(nullptr, 0x1, odd), m->name_of(0x2, odd));
}

// The map's names are display text too: a map cannot put bytes that are not UTF-8 or
// control characters into /metrics or the logs.
TEST(NodeNameMap, NamesAreReadAsDisplayText) {
  auto m = NodeNameMap::parse("0x1 \"bad\xff\x1bname\"\n0x2 \"ok-\xc3\xa9\"\n", "m");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m->find(0x1), "bad\xef\xbf\xbd\xef\xbf\xbdname");
  EXPECT_EQ(*m->find(0x2), "ok-\xc3\xa9");
}

TEST(NodeNames, ReloadKeepsTheLastGoodMap) {
  testsupport::TempDir dir;
  const std::string path = dir.path() + "/map";
  std::ofstream(path) << "0x1 \"one\"\n";
  NodeNames names;
  ASSERT_TRUE(names.reload(path).ok());
  EXPECT_EQ(names.name_of(0x1, "d"), "one");
  std::ofstream(path) << "0x1 \"uno\"\nnot a guid\n";
  auto bad = names.reload(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, StartsWith(path + ":2: "));
  EXPECT_EQ(names.name_of(0x1, "d"), "one");
  auto gone = names.reload(dir.path() + "/absent");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().id, kErrNodeNameMapUnreadable);
  EXPECT_EQ(names.name_of(0x1, "d"), "one");
}

constexpr const char* kNet = R"(
Switch 4 "s1"
[1] "h1"[1]
[2] "h2"[1]

Hca 1 "h1"
[1] "s1"[1]

Hca 1 "h2"
[1] "s1"[2]
)";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// OpenSM names nodes by the map in its dumps (print_desc); so does ibsm. The SA keeps
// answering with the NodeDescription.
TEST(NodeNamesInTheSm, SubnetLstAndLogsUseTheMapAndAReloadRenames) {
  using namespace std::chrono_literals;
  testsupport::TempDir dir;
  FakeClock clock;
  auto desc = testsupport::parse_net(kNet);
  ASSERT_TRUE(desc.ok());
  fake::FakeFabric fabric(*desc, clock);
  const Guid s1 = fabric.node(fabric.index("s1")).info.node_guid;
  const std::string map_path = dir.path() + "/ib-node-name-map";
  std::ofstream(map_path) << "# test\n" << mad::format_guid(s1) << " \"leaf-01\"\n";
  conf::Options options;
  options.cache_dir = dir.path() + "/cache";
  options.dump_files_dir = dir.path() + "/dump";
  options.node_name_map_name = map_path;
  std::ostringstream log_text;
  SubnetManager sm(fabric, clock, testsupport::capture_log(log_text, "sm", spdlog::level::info),
                   options);
  ASSERT_TRUE(sm.reload_node_names().ok());
  ControlFlags control;
  auto run_for = [&](Clock::Duration d) {
    const auto until = clock.now() + d;
    while (clock.now() < until)
      (void)sm.step(control);
  };
  run_for(3s);
  ASSERT_EQ(sm.state(), mad::SmState::kMaster);
  const std::string lst = slurp(options.dump_files_dir + "/opensm-subnet.lst");
  EXPECT_THAT(lst, HasSubstr("{leaf-01}"));
  EXPECT_THAT(lst, HasSubstr("{h1}"));  // not in the map: its NodeDescription
  EXPECT_THAT(lst, Not(HasSubstr("{s1}")));
  const NodeIndex si = sm.fabric().find(s1);
  ASSERT_NE(si, kNoNode);
  EXPECT_EQ(sm.fabric().node(si).description, "s1");  // what the SA answers with
  EXPECT_EQ(sm.fabric().node(si).display_name(), "leaf-01");
  // The PerfMgr gets the same names (its log lines and the /metrics labels): the view
  // the heavy sweep hands it. Before issue 38 it got the NodeDescription ("s1").
  const auto view = perfmgr_view(sm.fabric());
  const auto vn = std::find_if(view->nodes.begin(), view->nodes.end(),
                               [&](const perfmgr::ViewNode& n) { return n.guid == s1; });
  ASSERT_NE(vn, view->nodes.end());
  EXPECT_EQ(vn->name, "leaf-01");

  // Traps are logged with the name of the node that sent them.
  const mad::Lid s1_lid = fabric.node(fabric.index("s1")).ports[0].info.lid;
  mad::Notice n128;
  n128.is_generic = true;
  n128.type = 1;
  n128.trap_number = 128;
  n128.issuer_lid = s1_lid;
  n128.details[0] = static_cast<std::uint8_t>(s1_lid >> 8);
  n128.details[1] = static_cast<std::uint8_t>(s1_lid);
  mad::Smp trap = mad::Smp::request(mad::Method::kTrap, mad::AttrId::kNotice, 0, mad::Lid{1}, 0x77);
  trap.set_attribute(n128);
  fabric.inject(trap, s1_lid);
  run_for(1s);
  EXPECT_THAT(log_text.str(),
              HasSubstr("trap 128 from LID " + std::to_string(s1_lid) + " (leaf-01)"));

  // A broken map: error with file:line, the names stay.
  std::ofstream(map_path) << mad::format_guid(s1) << " \"spine-9\"\nbroken\n";
  auto bad = sm.reload_node_names();
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(log_text.str(), HasSubstr(map_path + ":2: "));
  EXPECT_EQ(sm.fabric().node(si).display_name(), "leaf-01");

  // Fixed: the model is renamed at once, and the next dump shows it.
  std::ofstream(map_path) << mad::format_guid(s1) << " \"spine-9\"\n";
  ASSERT_TRUE(sm.reload_node_names().ok());
  EXPECT_EQ(sm.fabric().node(si).display_name(), "spine-9");
  sm.request_heavy_sweep(HeavyReason::kForced);
  run_for(2s);
  EXPECT_THAT(slurp(options.dump_files_dir + "/opensm-subnet.lst"), HasSubstr("{spine-9}"));
}

}  // namespace
}  // namespace ibsm::sm
