// The three readers on real files (ibnetdiscover against ibsim, the net file it ran,
// the CSV of the same cabling) and on bad input: every refusal names file:line and an ID.
#include <gtest/gtest.h>

#include "cabling/errors.hpp"
#include "cabling/ibnetdiscover_reader.hpp"
#include "cabling/topo_config_reader.hpp"
#include "cabling/topology_file.hpp"
#include "found_fabric.hpp"

namespace ibsm::cabling {
namespace {

using test::load;

const IntendedNode* named(const IntendedTopology& t, std::string_view name) {
  for (const auto& n : t.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(CablingReaders, IbnetdiscoverOutputOfIbsim) {
  const auto t = load("healthy.ibnetdiscover");
  ASSERT_EQ(t.nodes.size(), 8u);
  ASSERT_EQ(t.links.size(), 8u);  // each cable listed from both ends, kept once
  const auto* leaf2 = named(t, "leaf2");
  ASSERT_NE(leaf2, nullptr);
  EXPECT_EQ(leaf2->guid, 0x200003u);
  EXPECT_EQ(leaf2->type, NodeType::kSwitch);
  EXPECT_EQ(leaf2->num_ports, 8);
  const auto* h1 = named(t, "h1");
  ASSERT_NE(h1, nullptr);
  EXPECT_EQ(h1->guid, 0x100000u);
  EXPECT_EQ(h1->type, NodeType::kCa);
  for (const auto& l : t.links) {
    EXPECT_EQ(l.width, 4);
    EXPECT_EQ(l.speed, Speed::kSdr);
  }
}

TEST(CablingReaders, FaultyOutputCarriesTheOneXLink) {
  const auto t = load("faulty.ibnetdiscover");
  EXPECT_EQ(t.links.size(), 7u);
  int one_x = 0;
  for (const auto& l : t.links)
    one_x += l.width == 1;
  EXPECT_EQ(one_x, 1);
}

TEST(CablingReaders, IbsimNetFileNamesNodes) {
  const auto t = load("healthy.net");
  ASSERT_EQ(t.nodes.size(), 8u);
  EXPECT_EQ(t.links.size(), 8u);
  for (const auto& n : t.nodes)
    EXPECT_EQ(n.guid, 0u) << n.name;
  const auto* spine1 = named(t, "spine1");
  ASSERT_NE(spine1, nullptr);
  EXPECT_EQ(spine1->type, NodeType::kSwitch);
  for (const auto& l : t.links)
    EXPECT_EQ(l.width, 0);  // w=1 is ibsim's, not intended
}

TEST(CablingReaders, TopoConfigCsv) {
  const auto t = load("healthy.csv");
  EXPECT_EQ(t.nodes.size(), 8u);
  EXPECT_EQ(t.links.size(), 8u);
  for (const auto& l : t.links) {
    EXPECT_EQ(l.width, 0);
    EXPECT_EQ(l.state, LinkState::kActive);
  }
  EXPECT_EQ(detect_topology_format("# c\n\nSrcGUID,SrcPort\n"), TopologyFormat::kTopoConfigCsv);
  EXPECT_EQ(detect_topology_format("#\nSwitch 8 \"x\"\n"), TopologyFormat::kIbnetdiscover);
}

TEST(CablingReaders, CsvOptionalColumnsAndStates) {
  const auto t = read_topo_config(
      "0x1,1,0x2,1\n0x1,2,0x3,1,,\n0x1,3,0x4,1,HCA,no_discover\n  # "
      "note\n0x1,4,0x5,2,sw,Disabled\n",
      "t.csv");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->links.size(), 4u);
  EXPECT_EQ(t->links[2].state, LinkState::kNoDiscover);
  EXPECT_EQ(t->links[3].state, LinkState::kDisabled);
  EXPECT_EQ(t->nodes[t->links[2].b.node].type, NodeType::kCa);
}

TEST(CablingReaders, UnreadableFile) {
  const auto t = load_intended_topology("/nonexistent/topo.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().id, kErrTopoFileUnreadable);
  EXPECT_NE(t.error().message.find("/nonexistent/topo.csv"), std::string::npos);
}

struct BadCase {
  const char* text;
  ErrorId id;
  int line;
};

void expect_refused(const Result<IntendedTopology>& r, const BadCase& c, const char* file) {
  ASSERT_FALSE(r.ok()) << c.text;
  EXPECT_EQ(r.error().id, c.id) << c.text << ": " << r.error().message;
  EXPECT_TRUE(r.error().message.starts_with(std::string(file) + ":" + std::to_string(c.line) + ":"))
      << c.text << ": " << r.error().message;
}

TEST(CablingReaders, IbnetdiscoverBadInput) {
  const BadCase cases[] = {
      {"Switch 8 \"a\"\nBogus line\n", kErrTopoSyntax, 2},
      {"Switch 8 \"a\"\n[0] \"b\"[1]\nCa 1 \"b\"\n", kErrTopoBadPort, 2},
      {"Switch 8 \"a\"\n[1] \"b\"[255]\nCa 1 \"b\"\n", kErrTopoBadPort, 2},
      {"Switch 8 \"a\"\n[9] \"b\"[1]\nCa 1 \"b\"\n", kErrTopoBadPort, 2},
      {"Switch 8 \"a\"\n[1] \"b\"[2]\nCa 1 \"b\"\n", kErrTopoBadPort, 2},  // b has 1 port
      {"Switch 8 \"a\"\n[x] \"b\"[1]\n", kErrTopoSyntax, 2},
      {"Switch 8 \"a\"\n[1] \"b\"[1]\n[1] \"c\"[1]\nCa 1 \"b\"\nCa 1 \"c\"\n",
       kErrTopoContradiction, 3},
      {"Switch 8 \"a\"\n[1] \"a\"[1]\n", kErrTopoContradiction, 2},
      {"Switch 8 \"S-00000000002000zz\"\n[1] \"nowhere\"[1]\n", kErrTopoUnknownNode, 2},
      {"Switch 8 \"S-0000000000200000\"\n[1] \"S-0000000000200001\"[1] # lid 1 4xSDR\n"
       "Switch 8 \"S-0000000000200001\"\n[1] \"S-0000000000200000\"[1] # lid 2 1xSDR\n",
       kErrTopoContradiction, 4},
      {"Switch 8 \"S-0000000000200000\"\n[1] \"S-0000000000200001\"[1] # lid 1 4xZDR\n",
       kErrTopoSyntax, 2},
      {"switchguid=0xnothex\nSwitch 8 \"a\"\n", kErrTopoSyntax, 1},
      {"colour=blue\n", kErrTopoSyntax, 1},
      {"[1] \"a\"[1]\n", kErrTopoSyntax, 1},
      {"Switch \"a\"\n", kErrTopoSyntax, 1},
      {"Switch 8 \"a\"\n[1] \"b\"[1] trailing\nCa 1 \"b\"\n", kErrTopoSyntax, 2},
      {"Switch 8 \"a\"\nCa 8 \"a\"\n", kErrTopoContradiction, 2},
  };
  for (const auto& c : cases)
    expect_refused(read_ibnetdiscover(c.text, "topo.txt"), c, "topo.txt");
}

TEST(CablingReaders, CsvBadInput) {
  const BadCase cases[] = {
      {"0x1,1,0x2\n", kErrTopoSyntax, 1},
      {"0x1,1,0x2,1,SW,ACTIVE,extra\n", kErrTopoSyntax, 1},
      {"# c\n0xZZ,1,0x2,1\n", kErrTopoSyntax, 2},
      {"12,1,0x2,1\n", kErrTopoSyntax, 1},
      {"0x11111111111111111,1,0x2,1\n", kErrTopoSyntax, 1},
      {"0x1,0,0x2,1\n", kErrTopoBadPort, 1},
      {"0x1,1,0x2,300\n", kErrTopoBadPort, 1},
      {"0x1,one,0x2,1\n", kErrTopoSyntax, 1},
      {"0x1,1,0x2,1,XX\n", kErrTopoSyntax, 1},
      {"0x1,1,0x2,1,SW,UP\n", kErrTopoSyntax, 1},
      {"0x1,1,0x2,1\n0x1,1,0x3,1\n", kErrTopoContradiction, 2},
      {"0x1,1,0x2,1,SW\n0x2,1,0x1,1,SW,NO_DISCOVER\n", kErrTopoContradiction, 2},
      {"0x1,1,0x1,1\n", kErrTopoContradiction, 1},
  };
  for (const auto& c : cases)
    expect_refused(read_topo_config(c.text, "topo.csv"), c, "topo.csv");
}

TEST(CablingReaders, ConsistentDuplicatesMerge) {
  const auto t = read_topo_config("0x1,1,0x2,1\n0x2,1,0x1,1\n", "t.csv");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->links.size(), 1u);
}

TEST(CablingReaders, GarbageNeverCrashes) {
  const std::string junk[] = {"",
                              "\n\n",
                              "[",
                              "[1",
                              "[1] \"",
                              "Switch 8 \"",
                              "\"\"\"",
                              ",,,,,",
                              "0x,0x,0x,0x",
                              std::string(5000, '['),
                              "Switch 255 \"a\"\n[254] \"a\"[253]\n"};
  for (const auto& j : junk) {
    (void)read_ibnetdiscover(j, "j");
    (void)read_topo_config(j, "j");
  }
  SUCCEED();
}

}  // namespace
}  // namespace ibsm::cabling
