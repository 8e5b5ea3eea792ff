// The cabling check on the acceptance case (ibsim: two cables swapped, one moved
// to another node, one removed, one at 1x) in all three file forms, and each kind alone.
#include <gtest/gtest.h>

#include <algorithm>

#include "cabling/compare.hpp"
#include "cabling/topo_config_reader.hpp"
#include "found_fabric.hpp"

namespace ibsm::cabling {
namespace {

using test::as_found;
using test::find_node;
using test::load;

std::vector<Deviation> acceptance_list() {
  const DeviationEnd h1{0x100000, 1, "h1"}, h2{0x100002, 1, "h2"}, h3{0x100004, 1, "h3"};
  return {
      {DeviationKind::kWrongNode, h3, {0x200002, 5, "leaf1"}, "\"leaf2\"[1]", "\"leaf1\"[5]"},
      {DeviationKind::kWidthMismatch, {0x200000, 1, "spine1"}, {0x200002, 3, "leaf1"}, "4x", "1x"},
      {DeviationKind::kMissingLink,
       {0x200001, 2, "spine2"},
       {0x200003, 4, "leaf2"},
       "\"leaf2\"[4]",
       "no link"},
      {DeviationKind::kWrongPort, {0x200002, 1, "leaf1"}, h2, "\"leaf1\"[2]", "\"leaf1\"[1]"},
      {DeviationKind::kWrongPort, {0x200002, 2, "leaf1"}, h1, "\"leaf1\"[1]", "\"leaf1\"[2]"},
  };
}

std::string show(const std::vector<Deviation>& list) {
  return deviations_json(list);
}

TEST(CablingCompare, SameFileGivesNothing) {
  for (const char* f : {"healthy.ibnetdiscover", "healthy.csv"}) {
    const auto found = as_found(load("healthy.ibnetdiscover"));
    const auto list = compare_topology(load(f), found);
    EXPECT_TRUE(list.empty()) << f << ": " << show(list);
  }
}

TEST(CablingCompare, AcceptanceCaseFromIbnetdiscoverOutput) {
  const auto found = as_found(load("faulty.ibnetdiscover"));
  const auto list = compare_topology(load("healthy.ibnetdiscover"), found);
  EXPECT_EQ(list, acceptance_list()) << show(list);
}

TEST(CablingCompare, AcceptanceCaseFromCsvIsTheSame) {
  const auto found = as_found(load("faulty.ibnetdiscover"));
  const auto list = compare_topology(load("healthy.csv"), found);
  EXPECT_EQ(list, acceptance_list()) << show(list);
}

TEST(CablingCompare, AcceptanceCaseFromNetFileMatchesByName) {
  const auto found = as_found(load("faulty.ibnetdiscover"));
  const auto list = compare_topology(load("healthy.net"), found);
  EXPECT_EQ(list, acceptance_list()) << show(list);
}

TEST(CablingCompare, LargerFileGivesOnlyMissing) {
  auto found = as_found(load("healthy.ibnetdiscover"));
  // The fabric without leaf2 and its hosts, and without the cable spine2 - leaf1.
  std::erase_if(found.nodes, [](const DiscoveredNode& n) {
    return n.name == "leaf2" || n.name == "h3" || n.name == "h4";
  });
  for (auto& n : found.nodes)
    std::erase_if(n.ports, [](const DiscoveredPort& p) {
      return p.peer_guid == 0x200003 || (p.peer_guid == 0x200002 && p.peer_port == 4) ||
             (p.peer_guid == 0x200001 && p.peer_port == 1);
    });
  const auto list = compare_topology(load("healthy.ibnetdiscover"), found);
  ASSERT_EQ(list.size(), 4u) << show(list);
  for (const auto& d : list)
    EXPECT_TRUE(d.kind == DeviationKind::kMissingNode || d.kind == DeviationKind::kMissingLink)
        << show(list);
  EXPECT_EQ(list[0].kind, DeviationKind::kMissingNode);  // h3 0x100004
  EXPECT_EQ(list[0].local, (DeviationEnd{0x100004, 0, "h3"}));
  EXPECT_EQ(list[0].remote, (DeviationEnd{0x200003, 1, "leaf2"}));  // also missing: the file's
  EXPECT_EQ(list[0].expected, "ca");
  EXPECT_EQ(list[2].kind, DeviationKind::kMissingLink);  // spine2[1] - leaf1[4]
  EXPECT_EQ(list[2].local, (DeviationEnd{0x200001, 1, "spine2"}));
  EXPECT_EQ(list[3].kind, DeviationKind::kMissingNode);  // leaf2
}

TEST(CablingCompare, ExtraNodeAndExtraLink) {
  const auto intended = load("healthy.ibnetdiscover");
  auto found = as_found(intended);
  // A new host on leaf2[5], and a new cable leaf1[6] - leaf2[6].
  DiscoveredNode h5{0x100008, NodeType::kCa, "h5", {}};
  DiscoveredPort p;
  p.num = 1;
  p.peer_guid = 0x200003;
  p.peer_port = 5;
  h5.ports.push_back(p);
  found.nodes.push_back(h5);
  p.num = 5;
  p.peer_guid = 0x100008;
  p.peer_port = 1;
  find_node(found, "leaf2")->ports.push_back(p);
  p.num = 6;
  p.peer_guid = 0x200002;
  p.peer_port = 6;
  find_node(found, "leaf2")->ports.push_back(p);
  p.peer_guid = 0x200003;
  find_node(found, "leaf1")->ports.push_back(p);
  const auto list = compare_topology(intended, found);
  ASSERT_EQ(list.size(), 2u) << show(list);
  EXPECT_EQ(list[0].kind, DeviationKind::kExtraNode);
  EXPECT_EQ(list[0].local, (DeviationEnd{0x100008, 0, "h5"}));
  EXPECT_EQ(list[0].remote, (DeviationEnd{0x200003, 5, "leaf2"}));
  EXPECT_EQ(list[0].found, "ca");
  EXPECT_EQ(list[1].kind, DeviationKind::kExtraLink);
  EXPECT_EQ(list[1].local, (DeviationEnd{0x200002, 6, "leaf1"}));
  EXPECT_EQ(list[1].remote, (DeviationEnd{0x200003, 6, "leaf2"}));
  EXPECT_EQ(list[1].expected, "no link");
  EXPECT_EQ(list[1].found, "\"leaf2\"[6]");
}

TEST(CablingCompare, CableBetweenTheRightSwitchesOnTwoOtherPorts) {
  const auto intended = read_topo_config("0x10,1,0x20,1\n0x10,2,0x30,1\n", "t.csv");
  ASSERT_TRUE(intended.ok());
  auto found = as_found(*read_topo_config("0x10,5,0x20,6\n0x10,2,0x30,1\n", "f.csv"));
  const auto list = compare_topology(*intended, found);
  ASSERT_EQ(list.size(), 1u) << show(list);
  EXPECT_EQ(list[0].kind, DeviationKind::kWrongPort);
  EXPECT_EQ(list[0].local.port, 5);
  EXPECT_EQ(list[0].remote.port, 6);
  EXPECT_EQ(list[0].expected, "\"0x0000000000000010\"[1] - \"0x0000000000000020\"[1]");
  EXPECT_EQ(list[0].found, "\"0x0000000000000010\"[5] - \"0x0000000000000020\"[6]");
}

TEST(CablingCompare, CablesCrossedBetweenTwoSwitches) {
  const auto intended = *read_topo_config("0x10,1,0x20,1\n0x10,2,0x20,2\n", "t.csv");
  const auto found = as_found(*read_topo_config("0x10,1,0x20,2\n0x10,2,0x20,1\n", "f.csv"));
  const auto list = compare_topology(intended, found);
  ASSERT_EQ(list.size(), 2u) << show(list);
  for (const auto& d : list)
    EXPECT_EQ(d.kind, DeviationKind::kWrongPort) << show(list);
}

TEST(CablingCompare, SpeedMismatchAgainstFileAndAgainstBest) {
  auto intended = load("healthy.ibnetdiscover");
  auto found =
      as_found(intended, test::widths_up_to_4x(), speed_bit(Speed::kSdr) | speed_bit(Speed::kQdr));
  // The file says SDR everywhere and the links run SDR: nothing, though QDR could be.
  EXPECT_TRUE(compare_topology(intended, found).empty());
  // Without a file speed, the best both ends support (QDR) is the reference.
  for (auto& l : intended.links)
    l.speed = Speed::kUnknown;
  const auto list = compare_topology(intended, found);
  ASSERT_EQ(list.size(), 8u) << show(list);
  for (const auto& d : list) {
    EXPECT_EQ(d.kind, DeviationKind::kSpeedMismatch);
    EXPECT_EQ(d.expected, "QDR");
    EXPECT_EQ(d.found, "SDR");
  }
  CompareOptions no_rates;
  no_rates.check_rates = false;
  EXPECT_TRUE(compare_topology(intended, found, no_rates).empty());
  CompareOptions stated_only;
  stated_only.best_when_unstated = false;
  EXPECT_TRUE(compare_topology(intended, found, stated_only).empty());
  intended.links[0].speed = Speed::kQdr;  // stated: judged still
  EXPECT_EQ(compare_topology(intended, found, stated_only).size(), 1u);
}

TEST(CablingCompare, PortGuidInFileMatchesTheCa) {
  const auto intended = *read_topo_config("0x20,1,0x101,1,CA\n", "t.csv");
  DiscoveredFabric found;
  DiscoveredPort sw_port, ca_port;
  sw_port.num = 1;
  sw_port.peer_guid = 0x100;
  sw_port.peer_port = 1;
  ca_port.num = 1;
  ca_port.port_guid = 0x101;
  ca_port.peer_guid = 0x20;
  ca_port.peer_port = 1;
  found.nodes.push_back({0x20, NodeType::kSwitch, "sw", {sw_port}});
  found.nodes.push_back({0x100, NodeType::kCa, "host", {ca_port}});
  EXPECT_TRUE(compare_topology(intended, found).empty());
}

TEST(CablingCompare, NoDiscoverCablesAreNeitherExpectedNorExtra) {
  const auto intended = *read_topo_config(
      "0x10,1,0x20,1\n0x10,2,0x20,2,SW,NO_DISCOVER\n"
      "0x10,3,0x20,3,SW,DISABLED\n",
      "t.csv");
  const auto found = as_found(*read_topo_config("0x10,1,0x20,1\n0x10,2,0x20,2\n", "f.csv"));
  const auto list = compare_topology(intended, found);
  EXPECT_TRUE(list.empty()) << show(list);
}

TEST(CablingCompare, ResultIsDeterministic) {
  const auto intended = load("healthy.ibnetdiscover");
  auto found = as_found(load("faulty.ibnetdiscover"));
  const auto first = compare_topology(intended, found);
  std::reverse(found.nodes.begin(), found.nodes.end());
  for (auto& n : found.nodes)
    std::reverse(n.ports.begin(), n.ports.end());
  EXPECT_EQ(compare_topology(intended, found), first);
}

}  // namespace
}  // namespace ibsm::cabling
