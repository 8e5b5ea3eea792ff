// slurm/hostlist.hpp: names compressed as Slurm's hostlist_ranged_string writes them, and
// expanded back (by the rules of Slurm's hostlist parser: a bracket's ranges, each
// printed at the width of its low end) to exactly the names given.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "slurm/hostlist.hpp"

namespace ibsm::slurm {
namespace {

// Slurm's expansion of a hostlist: tokens split at ',' outside brackets; a token
// prefix[a-b,c] gives prefix + each number printed at the width of the range's low end.
std::vector<std::string> expand(const std::string& list) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < list.size()) {
    std::size_t j = i;
    while (j < list.size() && list[j] != ',' && list[j] != '[')
      ++j;
    const std::string prefix = list.substr(i, j - i);
    if (j >= list.size() || list[j] == ',') {
      out.push_back(prefix);
      i = j + 1;
      continue;
    }
    const std::size_t close = list.find(']', j);
    EXPECT_NE(close, std::string::npos) << list;
    std::string inside = list.substr(j + 1, close - j - 1);
    std::size_t k = 0;
    while (k <= inside.size()) {
      std::size_t e = inside.find(',', k);
      if (e == std::string::npos) e = inside.size();
      const std::string r = inside.substr(k, e - k);
      const std::size_t dash = r.find('-');
      const std::string lo = r.substr(0, dash);
      const std::string hi = dash == std::string::npos ? lo : r.substr(dash + 1);
      for (unsigned long n = std::stoul(lo); n <= std::stoul(hi); ++n)
        out.push_back(prefix + fmt::format("{:0{}}", n, lo.size()));
      k = e + 1;
    }
    i = close + 2;  // past "]" and ","
  }
  return out;
}

std::set<std::string> as_set(const std::vector<std::string>& v) {
  return {v.begin(), v.end()};
}

TEST(Hostlist, PaddedRunsBecomeOneRangeAndKeepTheirZeros) {
  std::vector<std::string> names;
  for (int i = 1; i <= 32; ++i)
    names.push_back(fmt::format("node{:03}", i));
  EXPECT_EQ(compress_hostlist(names), "node[001-032]");
}

TEST(Hostlist, GapsMixedPrefixesAndLoneNames) {
  EXPECT_EQ(compress_hostlist({"node3", "gpu1", "node1", "node2", "login", "gpu2", "node7"}),
            "gpu[1-2],login,node[1-3,7]");
  EXPECT_EQ(compress_hostlist({"a1"}), "a1");
  EXPECT_EQ(compress_hostlist({"a1", "a3"}), "a[1,3]");
  EXPECT_EQ(compress_hostlist({}), "");
}

TEST(Hostlist, DuplicatesAreDropped) {
  EXPECT_EQ(compress_hostlist({"n1", "n2", "n1", "n2", "n3"}), "n[1-3]");
  EXPECT_EQ(compress_hostlist({"login", "login"}), "login");
}

TEST(Hostlist, WidthsCombineOnlyWhereNoPaddingChanges) {
  // 9 and 10 written unpadded are one range (Slurm prints node[9-10]).
  EXPECT_EQ(compress_hostlist({"node9", "node10", "node11"}), "node[9-11]");
  EXPECT_EQ(compress_hostlist({"node98", "node99", "node100"}), "node[98-100]");
  // node7 and node07 are two hosts; 009 and 10 do not combine.
  EXPECT_EQ(compress_hostlist({"node7", "node07"}), "node[7,07]");
  EXPECT_EQ(compress_hostlist({"node009", "node10"}), "node[10,009]");
  EXPECT_EQ(compress_hostlist({"node09", "node10"}), "node[09-10]");
}

TEST(Hostlist, DigitsInsideTheNameStayInThePrefix) {
  // Only the trailing digits count: h0_0 .. h0_17 (ibsim's names).
  std::vector<std::string> names;
  for (int i = 0; i < 18; ++i)
    names.push_back(fmt::format("h0_{}", i));
  names.push_back("h1_0");
  EXPECT_EQ(compress_hostlist(names), "h0_[0-17],h1_0");
  EXPECT_EQ(compress_hostlist({"rack1-n1", "rack1-n2", "rack2-n1"}), "rack1-n[1-2],rack2-n1");
}

TEST(Hostlist, AllDigitNamesAndHugeSuffixes) {
  EXPECT_EQ(compress_hostlist({"101", "102"}), "[101-102]");
  // 19 digits: Slurm's strtoul would change them, so the name stays whole.
  EXPECT_EQ(compress_hostlist({"n1234567890123456789"}), "n1234567890123456789");
}

TEST(Hostlist, ExpandsBackToExactlyTheNamesGiven) {
  std::mt19937 rng(36);
  const std::vector<std::string> prefixes = {"node", "gpu", "cn-", "r1n", ""};
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> names;
    const int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      const std::string& p = prefixes[rng() % prefixes.size()];
      const unsigned num = rng() % 130;
      const unsigned width = rng() % 4;  // 0: unpadded
      if (p.empty() && width == 0 && rng() % 2) {
        names.push_back("login" + std::string(1, static_cast<char>('a' + rng() % 3)));
        continue;
      }
      names.push_back(p + (width == 0 ? std::to_string(num) : fmt::format("{:0{}}", num, width)));
    }
    const std::string list = compress_hostlist(names);
    EXPECT_EQ(as_set(expand(list)), as_set(names)) << list;
    EXPECT_EQ(expand(list).size(), as_set(names).size()) << list;
  }
}

}  // namespace
}  // namespace ibsm::slurm
