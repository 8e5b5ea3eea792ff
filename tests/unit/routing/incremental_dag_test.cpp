// IncrementalDag: edges that keep the graph acyclic are taken, one that closes a cycle
// is refused without changing the graph, counted edges go with their last count, and on
// random edge streams the answers agree with a from-scratch cycle search.
#include "routing/incremental_dag.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <utility>
#include <vector>

namespace ibsm::routing {
namespace {

TEST(IncrementalDag, RefusesTheEdgeThatClosesACycle) {
  IncrementalDag g(4);
  EXPECT_TRUE(g.add(2, 1));  // against the initial order: reordered
  EXPECT_TRUE(g.add(1, 0));
  EXPECT_TRUE(g.add(0, 3));
  EXPECT_FALSE(g.can_add(3, 2));
  EXPECT_FALSE(g.add(3, 2));
  EXPECT_FALSE(g.has(3, 2));
  EXPECT_EQ(g.edges(), 3U);
  EXPECT_FALSE(g.add(1, 1)) << "a self-loop is a cycle";
  EXPECT_TRUE(g.can_add(2, 3));
}

TEST(IncrementalDag, CountedEdgesLeaveWithTheirLastCount) {
  IncrementalDag g(3);
  EXPECT_TRUE(g.add(0, 1));
  EXPECT_TRUE(g.add(0, 1));
  EXPECT_TRUE(g.add(1, 2));
  EXPECT_FALSE(g.can_add(2, 0));
  g.remove(0, 1);
  EXPECT_FALSE(g.can_add(2, 0)) << "one count of 0->1 remains";
  g.remove(0, 1);
  EXPECT_FALSE(g.has(0, 1));
  EXPECT_TRUE(g.add(2, 0));
}

// Reference: is there a path from `from` to `to` in `edges`?
bool reaches(const std::set<std::pair<unsigned, unsigned>>& edges, unsigned from, unsigned to,
             unsigned n) {
  std::vector<bool> seen(n, false);
  std::vector<unsigned> stack{from};
  while (!stack.empty()) {
    const unsigned v = stack.back();
    stack.pop_back();
    if (v == to) return true;
    if (seen[v]) continue;
    seen[v] = true;
    for (const auto& [a, b] : edges)
      if (a == v) stack.push_back(b);
  }
  return false;
}

TEST(IncrementalDag, KeptRefusalsStayButAddStillDecides) {
  for (bool keep : {false, true}) {
    IncrementalDag g(3);
    g.keep_refusals(keep);
    EXPECT_TRUE(g.add(0, 1));
    EXPECT_TRUE(g.add(1, 2));
    EXPECT_FALSE(g.can_add(2, 0));
    g.remove(0, 1);  // 2 -> 0 fits now
    EXPECT_EQ(g.can_add(2, 0), !keep) << "keep " << keep;
    EXPECT_TRUE(g.add(2, 0)) << "keep " << keep;
    EXPECT_FALSE(g.add(0, 1)) << "the exact check, whatever was kept";
  }
}

TEST(IncrementalDag, AgreesWithAFullSearchOnRandomStreams) {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    const unsigned n = 5 + seed % 20;
    IncrementalDag g(n);
    std::set<std::pair<unsigned, unsigned>> edges;
    for (int step = 0; step < 400; ++step) {
      const unsigned u = rng() % n, v = rng() % n;
      if (!edges.empty() && rng() % 4 == 0) {  // remove a random present edge
        auto it = edges.begin();
        std::advance(it, static_cast<long>(rng() % edges.size()));
        g.remove(it->first, it->second);
        edges.erase(it);
        continue;
      }
      if (edges.contains({u, v})) continue;  // the reference keeps no counts
      const bool cycle = u == v || reaches(edges, v, u, n);
      ASSERT_EQ(g.can_add(u, v), !cycle) << "seed " << seed << " step " << step;
      ASSERT_EQ(g.add(u, v), !cycle) << "seed " << seed << " step " << step;
      if (!cycle) edges.insert({u, v});
    }
  }
}

// Budgeted questions (nue's candidates) may answer "no" when unsure, never "yes" to an
// edge that closes a cycle, and add() stays exact; with many nodes and edges coming and
// going, so the edge tables grow, shift entries back on removal and start new refused
// generations.
TEST(IncrementalDag, BudgetedAnswersNeverAcceptACycle) {
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    std::mt19937 rng(seed);
    const unsigned n = 40 + seed * 7;
    IncrementalDag g(n);
    std::set<std::pair<unsigned, unsigned>> edges;
    for (int step = 0; step < 3000; ++step) {
      const unsigned u = rng() % n, v = rng() % n;
      if (!edges.empty() && rng() % 5 == 0) {
        auto it = edges.begin();
        std::advance(it, static_cast<long>(rng() % edges.size()));
        const auto [a, b] = *it;
        g.remove(a, b);
        edges.erase(it);
        ASSERT_FALSE(g.has(a, b));
        continue;
      }
      if (edges.contains({u, v})) continue;
      const bool cycle = u == v || reaches(edges, v, u, n);
      const std::uint32_t budget = 1 + rng() % 8;
      if (g.can_add(u, v, budget)) {
        ASSERT_FALSE(cycle) << "seed " << seed << " step " << step;
      }
      if (rng() % 2 == 0) continue;  // leave some refused ones asked again later
      ASSERT_EQ(g.add(u, v), !cycle) << "seed " << seed << " step " << step;
      if (!cycle) edges.insert({u, v});
      ASSERT_EQ(g.edges(), edges.size());
      for (const auto& [a, b] : edges)
        ASSERT_TRUE(g.has(a, b));
    }
  }
}

}  // namespace
}  // namespace ibsm::routing
