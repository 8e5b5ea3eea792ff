// topo_diff and degraded (ctl/reports/cabling.cpp) on a hand-made OpsSnapshot: the text
// names both ends of each deviation, --json is exactly cabling::deviations_json's array
// (also when --json follows the command), and a missing or broken file says so.
#include <gtest/gtest.h>

#include <memory>

#include "cabling/deviation.hpp"
#include "ctl/answer_wire.hpp"
#include "ctl/command.hpp"
#include "ctl/errors.hpp"
#include "ctl/reports/reports.hpp"
#include "ops/event_bus.hpp"

namespace ibsm::ctl {
namespace {

using cabling::Deviation;
using cabling::DeviationKind;

std::vector<Deviation> two_deviations() {
  return {
      {DeviationKind::kWrongNode,
       {0x100004, 1, "h3"},
       {0x200002, 5, "leaf1"},
       "\"leaf2\"[1]",
       "\"leaf1\"[5]"},
      {DeviationKind::kWidthMismatch, {0x200000, 1, "spine1"}, {0x200002, 3, "leaf1"}, "4x", "1x"},
  };
}

ops::OpsSnapshot with_cabling(ops::CablingStatus c) {
  ops::OpsSnapshot s;
  s.cabling = std::make_shared<const ops::CablingStatus>(std::move(c));
  return s;
}

ops::CablingStatus checked_status() {
  ops::CablingStatus c;
  c.file = "/etc/opensm/topo.ibnetdiscover";
  c.file_loaded = true;
  c.checked = true;
  c.deviations = two_deviations();
  c.degraded = {two_deviations()[1]};
  return c;
}

struct Asker {
  ops::EventBus bus;
  Answer ask(const ops::OpsSnapshot& s, std::string_view line) {
    auto c = parse_command(line);
    EXPECT_TRUE(c.ok()) << line;
    return answer_read_only(*c, s, bus);
  }
};

TEST(TopoDiff, TextHasOneLinePerDeviationWithBothEndsNamed) {
  Asker k;
  const Answer a = k.ask(with_cabling(checked_status()), "topo_diff");
  ASSERT_TRUE(a.ok);
  EXPECT_NE(a.text.find("2 deviations from topo_config_file /etc/opensm/topo.ibnetdiscover"),
            std::string::npos)
      << a.text;
  EXPECT_NE(a.text.find("wrong_node     0x0000000000100004[1] \"h3\" - 0x0000000000200002[5] "
                        "\"leaf1\": expected \"leaf2\"[1], found \"leaf1\"[5]\n"),
            std::string::npos)
      << a.text;
  EXPECT_NE(a.text.find("width_mismatch 0x0000000000200000[1] \"spine1\" - 0x0000000000200002[3] "
                        "\"leaf1\": expected 4x, found 1x\n"),
            std::string::npos)
      << a.text;
}

TEST(TopoDiff, JsonIsTheCablingArrayWhereverTheFlagIs) {
  Asker k;
  const auto s = with_cabling(checked_status());
  const std::string want = cabling::deviations_json(two_deviations());
  for (const char* line : {"--json topo_diff", "topo_diff --json"}) {
    auto c = parse_command(line);
    ASSERT_TRUE(c.ok()) << line;
    EXPECT_TRUE(c->json) << line;
    EXPECT_FALSE(c->changes);
    const Answer a = answer_read_only(*c, s, k.bus);
    EXPECT_EQ(a.json, want);
    EXPECT_EQ(encode_answer(true, true, "topo_diff", a),
              "{\"command\":\"topo_diff\",\"ok\":true,\"result\":" + want + "}\n.ok\n");
  }
}

TEST(TopoDiff, RefusesOtherArguments) {
  auto c = parse_command("topo_diff everything");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().id, kErrBadArgument);
  EXPECT_FALSE(parse_command("degraded --json extra").ok());
}

TEST(TopoDiff, WithoutFileListsNothingAndSaysSo) {
  Asker k;
  const Answer a = k.ask(with_cabling({}), "topo_diff");
  EXPECT_EQ(a.json, "[]");
  EXPECT_NE(a.text.find("no topo_config_file"), std::string::npos) << a.text;
  // Before the SM's first publish there is no status at all.
  const Answer none = k.ask(ops::OpsSnapshot{}, "topo_diff");
  EXPECT_EQ(none.json, "[]");
}

TEST(TopoDiff, BrokenFileIsShownWithTheLastGoodOneInForce) {
  Asker k;
  auto c = checked_status();
  c.file_ok = false;
  c.error = "IBSM-9102: /etc/opensm/topo.ibnetdiscover:7: line not understood";
  const Answer a = k.ask(with_cabling(c), "topo_diff");
  EXPECT_NE(a.text.find("IN ERROR, the last good one is in force: IBSM-9102: "
                        "/etc/opensm/topo.ibnetdiscover:7"),
            std::string::npos)
      << a.text;
  EXPECT_NE(a.text.find("2 deviations"), std::string::npos) << a.text;
}

TEST(Degraded, ListsTheLinksBelowTheirRate) {
  Asker k;
  const auto s = with_cabling(checked_status());
  const Answer a = k.ask(s, "degraded");
  EXPECT_NE(a.text.find("1 links below the best width or speed"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("width_mismatch 0x0000000000200000[1] \"spine1\""), std::string::npos);
  EXPECT_EQ(k.ask(s, "degraded --json").json,
            cabling::deviations_json(std::vector<Deviation>{two_deviations()[1]}));
}

TEST(TopoDiff, HelpListsBothCommands) {
  Asker k;
  const Answer a = k.ask(ops::OpsSnapshot{}, "help");
  EXPECT_NE(a.text.find("topo_diff [--json]\n"), std::string::npos);
  EXPECT_NE(a.text.find("degraded [--json]\n"), std::string::npos);
}

}  // namespace
}  // namespace ibsm::ctl
