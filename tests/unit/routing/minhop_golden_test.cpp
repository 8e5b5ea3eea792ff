// Golden tests: small hand-drawn fabrics routed by minhop, compared textually with
// golden/<name>.lfts in OpenSM's opensm-lfts.dump format. A change in routing shows up
// as a readable diff of forwarding entries.
//
// To accept new output after an intended change, run with IBSM_UPDATE_GOLDEN=1: the
// files are rewritten and every rewritten case FAILS, so an update can never pass
// unnoticed; review `git diff tests/unit/routing/golden` and re-run without the variable.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "routing/lft_dump.hpp"
#include "tests/support/to_routing.hpp"
#include "tests/unit/routing/test_helpers.hpp"

namespace ibsm::routing {
namespace {

struct GoldenCase {
  const char* name;
  std::string_view net;
  std::uint8_t lmc = 0;
};

// Two switches joined by two parallel cables; hosts must alternate between them.
//
//   Hca1 --1[ Switch1 ]3====3[ Switch2 ]1-- Hca2
//   Hca3 --2[         ]5====5[         ]2-- Hca4
constexpr std::string_view kParallel = test::kTwoSwitchesParallelLinks;

// A 2-level fat tree: 3 leaves x 2 hosts, 2 spines. Each leaf's two hosts leave on
// different spines, and each spine serves one host of every leaf.
//
//          [ spine0 ]      [ spine1 ]
//          1|  2|  3|      1|  2|  3|
//     3[leaf0]  3[leaf1]  3[leaf2]     (port 3 -> spine0, port 4 -> spine1)
//     1|  2|    1|  2|    1|  2|
//     h00 h01   h10 h11   h20 h21
constexpr std::string_view kFatTree = R"(Switch 3 "spine0"
[1] "leaf0"[3]
[2] "leaf1"[3]
[3] "leaf2"[3]

Switch 3 "spine1"
[1] "leaf0"[4]
[2] "leaf1"[4]
[3] "leaf2"[4]

Switch 4 "leaf0"
[1] "h00"[1]
[2] "h01"[1]
[3] "spine0"[1]
[4] "spine1"[1]

Switch 4 "leaf1"
[1] "h10"[1]
[2] "h11"[1]
[3] "spine0"[2]
[4] "spine1"[2]

Switch 4 "leaf2"
[1] "h20"[1]
[2] "h21"[1]
[3] "spine0"[3]
[4] "spine1"[3]

Hca 1 "h00"
[1] "leaf0"[1]
Hca 1 "h01"
[1] "leaf0"[2]
Hca 1 "h10"
[1] "leaf1"[1]
Hca 1 "h11"
[1] "leaf1"[2]
Hca 1 "h20"
[1] "leaf2"[1]
Hca 1 "h21"
[1] "leaf2"[2]
)";

// A ring of four switches (a loop): opposite switches are two hops apart both ways
// round, and the two directions should share that traffic.
//
//    h0 -[ r0 ]2---1[ r1 ]- h1
//          1|         |2
//          2|         |1
//    h3 -[ r3 ]1---2[ r2 ]- h2          (host on port 3 of each switch)
constexpr std::string_view kRing = test::kRingOfFour;

// Odd corners: two hosts cabled back to back (no switch: no routes, and their LIDs
// appear nowhere), and a switch island the rest cannot reach (kNoPath both ways).
//
//    ha --1[ s0 ]2-- hb        hc ==== hd        [ lonely ]1-- he
constexpr std::string_view kCorners = R"(Switch 2 "s0"
[1] "ha"[1]
[2] "hb"[1]

Switch 2 "lonely"
[1] "he"[1]

Hca 1 "ha"
[1] "s0"[1]
Hca 1 "hb"
[1] "s0"[2]
Hca 1 "hc"
[1] "hd"[1]
Hca 1 "hd"
[1] "hc"[1]
Hca 1 "he"
[1] "lonely"[1]
)";

const GoldenCase kCases[] = {
    {"parallel_links", kParallel},
    {"fat_tree_3x2", kFatTree},
    {"fat_tree_3x2_lmc1", kFatTree, 1},
    {"ring4", kRing},
    {"corners", kCorners},
};

class MinhopGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(MinhopGolden, MatchesGoldenDump) {
  const GoldenCase& c = GetParam();
  const Topology topo = testsupport::to_routing(test::parse_or_fail(c.net), c.lmc).topo;
  const Routes routes = test::route_with(topo);
  std::ostringstream got;
  dump_lfts(got, topo, routes);

  const std::string path = std::string(ROUTING_GOLDEN_DIR) + "/" + c.name + ".lfts";
  if (std::getenv("IBSM_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << got.str();
    FAIL() << "rewrote " << path << " (IBSM_UPDATE_GOLDEN set); review the diff and re-run";
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " missing; run once with IBSM_UPDATE_GOLDEN=1 to create it";
  std::ostringstream want;
  want << in.rdbuf();
  EXPECT_EQ(got.str(), want.str()) << "LFTs differ from " << path;
}

INSTANTIATE_TEST_SUITE_P(Fabrics, MinhopGolden, ::testing::ValuesIn(kCases),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace ibsm::routing
