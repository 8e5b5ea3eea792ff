// avoid_throttled_links on drawn fabrics: a throttled switch-to-switch link on a ring
// is left out by sssp, dfsssp and nue (no LFT names its ports, every pair still
// delivered) and used again without the option; a throttled link that is the only way
// between switches (a line, a bridge) stays routed, with a warning.
#include <gtest/gtest.h>

#include <algorithm>

#include "routing/analysis.hpp"
#include "routing/errors.hpp"
#include "routing/throttled_links.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/to_routing.hpp"

namespace ibsm::routing {
namespace {

using testsupport::to_routing;

// Marks the link out of switch `sw` port `port` and its other direction throttled.
void throttle(Topology& t, std::uint32_t sw, PortNum port) {
  for (Link& l : t.switches[sw].links) {
    if (l.port != port) continue;
    l.throttled = true;
    for (Link& back : t.switches[l.peer].links)
      if (back.port == l.peer_port) back.throttled = true;
  }
}

bool lft_uses(const Routes& r, std::uint32_t sw, PortNum port) {
  return std::find(r.lfts[sw].begin(), r.lfts[sw].end(), port) != r.lfts[sw].end();
}

std::size_t links_of(const Topology& t) {
  std::size_t n = 0;
  for (const Switch& s : t.switches)
    n += s.links.size();
  return n;
}

// A ring of 4 switches, one host each: port 1 the host, port 2 towards +x, port 3 -x.
// Switch i's +x port reaches switch i+1's -x port.
Topology ring4() {
  return to_routing(testsupport::torus({4, 1, 1}, 1, {true, false, false})).topo;
}

TEST(ThrottledLinks, OnARingTheThrottledLinkIsLeftOut) {
  Topology t = ring4();
  throttle(t, 0, 2);  // s0 +x <-> s1 -x
  const ThrottledLinks out = without_throttled_links(t);
  EXPECT_EQ(out.dropped, 1u);
  EXPECT_EQ(out.kept, 0u);
  EXPECT_EQ(links_of(out.topology), links_of(t) - 2);  // both directions
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_EQ(out.warnings[0].id, kErrThrottledLinksAvoided);
  EXPECT_NE(out.warnings[0].message.find("1 throttled link(s) left out"), std::string::npos);
  EXPECT_NE(out.warnings[0].message.find("/P2 <-> "), std::string::npos);
}

TEST(ThrottledLinks, ABridgeStaysRouted) {
  // A line s0 - s1 - s2: each link is the only way.
  Topology t = to_routing(testsupport::torus({3, 1, 1}, 1, {false, false, false})).topo;
  throttle(t, 0, 2);
  const ThrottledLinks out = without_throttled_links(t);
  EXPECT_EQ(out.dropped, 0u);
  EXPECT_EQ(out.kept, 1u);
  EXPECT_EQ(links_of(out.topology), links_of(t));
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_EQ(out.warnings[0].id, kErrThrottledLinksKept);
}

TEST(ThrottledLinks, OfTwoThrottledWaysOneIsKept) {
  // Ring with s0-s1 and s2-s3 throttled: the healthy links leave {s1,s2} and {s3,s0};
  // one throttled link joins them, the other is left out.
  Topology t = ring4();
  throttle(t, 0, 2);
  throttle(t, 2, 2);
  const ThrottledLinks out = without_throttled_links(t);
  EXPECT_EQ(out.dropped, 1u);
  EXPECT_EQ(out.kept, 1u);
  EXPECT_EQ(out.warnings.size(), 2u);
}

TEST(ThrottledLinks, NothingThrottledNothingChanges) {
  const Topology t = ring4();
  const ThrottledLinks out = without_throttled_links(t);
  EXPECT_EQ(out.dropped + out.kept, 0u);
  EXPECT_TRUE(out.warnings.empty());
  EXPECT_EQ(links_of(out.topology), links_of(t));
}

class ThrottledEngines : public ::testing::TestWithParam<const char*> {};

TEST_P(ThrottledEngines, RouteAroundAThrottledLinkOnlyWhenAsked) {
  Topology t = ring4();
  throttle(t, 0, 2);
  EngineConfig config;
  config.max_vls = 8;
  config.nue_max_vls = 1;
  auto routed = make_engine(GetParam(), config)->route(t);
  ASSERT_TRUE(routed.ok()) << to_string(routed.error());
  EXPECT_TRUE(lft_uses(*routed, 0, 2));  // s1's host is one hop away that way
  config.avoid_throttled_links = true;
  routed = make_engine(GetParam(), config)->route(t);
  ASSERT_TRUE(routed.ok()) << to_string(routed.error());
  EXPECT_FALSE(lft_uses(*routed, 0, 2));
  EXPECT_FALSE(lft_uses(*routed, 1, 3));
  const PairCheck pairs = check_all_pairs(t, *routed);
  EXPECT_TRUE(pairs.all_delivered()) << pairs.delivered << "/" << pairs.pairs;
  ASSERT_FALSE(routed->warnings.empty());
  EXPECT_EQ(routed->warnings[0].id, kErrThrottledLinksAvoided);
}

INSTANTIATE_TEST_SUITE_P(Engines, ThrottledEngines, ::testing::Values("sssp", "dfsssp", "nue"));

}  // namespace
}  // namespace ibsm::routing
