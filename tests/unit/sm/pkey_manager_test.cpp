// Partitions end to end on a FakeFabric: P_Key tables exactly as partitions.conf says,
// switch ports facing end ports with the peer's P_Keys and enforcement bits, only
// differing blocks sent, reloads that change only the ports concerned, a broken file
// that changes nothing, and what a restart keeps (indexes, MLIDs, snapshot).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "partitions/fabric_snapshot.hpp"
#include "partitions/gid.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/net_file.hpp"

namespace ibsm::sm::pkey_manager_test {
namespace {

using fake::FakeFabric;
using mad::AttrId;
using mad::Method;

// ha (SM) -- a -- b -- c -- hc, and hb on b.
constexpr std::string_view kNet = R"(Switch 3 "a"
[1] "ha"[1]
[2] "b"[1]

Switch 3 "b"
[1] "a"[2]
[2] "c"[1]
[3] "hb"[1]

Switch 2 "c"
[1] "b"[2]
[2] "hc"[1]

Hca 1 "ha"
[1] "a"[1]

Hca 1 "hb"
[1] "b"[3]

Hca 1 "hc"
[1] "c"[2]
)";

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(v));
  return b;
}

class Rig {
 public:
  Rig() {
    auto d = testsupport::parse_net(kNet);
    if (!d.ok()) std::abort();
    desc = *d;
    fabric = std::make_unique<FakeFabric>(desc, clock);
    std::string tmpl = (std::filesystem::temp_directory_path() / "ibsm-pk-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    dir = tmpl;
    options.cache_dir = dir + "/cache";
    options.partition_config_file = dir + "/partitions.conf";
  }
  ~Rig() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  void start() { sm = std::make_unique<SubnetManager>(*fabric, clock, null_logger(), options); }
  void write(const std::string& text) const {
    std::ofstream(options.partition_config_file, std::ios::trunc) << text;
  }
  SweepResult sweep(bool heavy = true) {
    fabric->reset_stats();
    if (heavy) sm->request_heavy_sweep(HeavyReason::kForced);
    return sm->sweep(stop);
  }
  std::uint32_t node(const char* id) const { return fabric->index(id); }
  std::uint64_t guid(const char* id) const { return desc.nodes[node(id)].port_guid(1); }
  // Non-zero prefix of a port's table.
  std::vector<std::uint16_t> table(const char* id, mad::PortNum port) const {
    auto t = fabric->node(node(id)).ports[port].pkeys;
    while (!t.empty() && t.back() == 0)
      t.pop_back();
    return t;
  }
  std::pair<bool, bool> enforce(const char* id, mad::PortNum port) const {
    const auto& pi = fabric->node(node(id)).ports[port].info;
    return {pi.partition_enforcement_inbound, pi.partition_enforcement_outbound};
  }
  std::string file_v1() const {
    return "Default=0x7fff, ipoib: ALL=full, ALL_SWITCHES=full;\n"
           "Storage=0x0010, ipoib: " +
           hex(guid("hb")) + "=full, " + hex(guid("hc")) + ";\n";
  }

  FakeClock clock;
  std::string dir;
  testsupport::Fabric desc;
  std::unique_ptr<FakeFabric> fabric;
  conf::Options options;
  std::atomic<bool> stop{false};
  std::unique_ptr<SubnetManager> sm;
};

using Table = std::vector<std::uint16_t>;
const std::pair<bool, bool> kBoth{true, true};
const std::pair<bool, bool> kNone{false, false};

void expect_v1_tables(const Rig& rig) {
  EXPECT_EQ(rig.table("ha", 1), (Table{0xffff}));
  EXPECT_EQ(rig.table("hb", 1), (Table{0xffff, 0x8010}));
  EXPECT_EQ(rig.table("hc", 1), (Table{0xffff, 0x0010}));
  for (const char* sw : {"a", "b", "c"})
    EXPECT_EQ(rig.table(sw, 0), (Table{0xffff})) << sw;
  // Switch ports facing end ports carry the peer's P_Keys and enforce.
  EXPECT_EQ(rig.table("a", 1), (Table{0xffff}));
  EXPECT_EQ(rig.table("b", 3), (Table{0xffff, 0x8010}));
  EXPECT_EQ(rig.table("c", 2), (Table{0xffff, 0x0010}));
  EXPECT_EQ(rig.enforce("a", 1), kBoth);
  EXPECT_EQ(rig.enforce("b", 3), kBoth);
  EXPECT_EQ(rig.enforce("c", 2), kBoth);
  // Inter-switch ports never enforce.
  EXPECT_EQ(rig.enforce("a", 2), kNone);
  EXPECT_EQ(rig.enforce("b", 1), kNone);
  EXPECT_EQ(rig.enforce("b", 2), kNone);
  EXPECT_EQ(rig.enforce("c", 1), kNone);
}

TEST(Partitions, TablesExactlyAsTheFileSays) {
  Rig rig;
  rig.write(rig.file_v1());
  rig.start();
  const auto r = rig.sweep();
  ASSERT_TRUE(r.subnet_up);
  expect_v1_tables(rig);
  // Only the blocks that differ from the cold tables (0xffff at index 0): hb, hc and
  // the two switch ports facing them; enforcement rides on the PortInfo Sets.
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kPKeyTable), 4u);
  // Discovery reads every block: 64 entries = 2 blocks, for 3 CAs, 3 switch port 0s
  // and 3 switch ports facing CAs; plus, once per device, the 4 inter-switch ports
  // (sm/tables/port_tables.hpp, for P_KeyTableRecord).
  EXPECT_EQ(rig.fabric->stats().count(Method::kGet, AttrId::kPKeyTable), 2u * 9u + 2u * 4u);
  // Both broadcast groups, MLIDs from 0xC000 in file order.
  const auto groups = rig.sm->partitions().groups().by_mlid();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].mlid, 0xC000);
  EXPECT_EQ(groups[0].params.pkey, 0xffff);
  EXPECT_EQ(groups[1].mlid, 0xC001);
  EXPECT_EQ(groups[1].params.pkey, 0x8010);
}

TEST(Partitions, SecondHeavySweepSendsNothing) {
  Rig rig;
  rig.write(rig.file_v1());
  rig.start();
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto r = rig.sweep();
  ASSERT_TRUE(r.subnet_up);
  EXPECT_TRUE(r.heavy);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet), 0u);
  expect_v1_tables(rig);
}

TEST(Partitions, ReloadChangesOnlyThePortsConcerned) {
  Rig rig;
  rig.write(rig.file_v1());
  rig.start();
  ASSERT_TRUE(rig.sweep().subnet_up);
  // hb leaves Storage, hc becomes a full member.
  rig.write(
      "Default=0x7fff, ipoib: ALL=full, ALL_SWITCHES=full;\n"
      "Storage=0x0010, ipoib: " +
      hex(rig.guid("hc")) + "=full;\n");
  ASSERT_TRUE(rig.sm->reload_partitions());
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto& st = rig.fabric->stats();
  EXPECT_EQ(st.count(Method::kSet, AttrId::kPKeyTable), 4u);  // hb, b[3], hc, c[2]
  EXPECT_EQ(st.count(Method::kSet, AttrId::kPortInfo), 0u);
  EXPECT_EQ(st.count(Method::kSet), 4u);
  EXPECT_EQ(rig.table("hb", 1), (Table{0xffff}));
  EXPECT_EQ(rig.table("b", 3), (Table{0xffff}));
  EXPECT_EQ(rig.table("hc", 1), (Table{0xffff, 0x8010}));
  EXPECT_EQ(rig.table("c", 2), (Table{0xffff, 0x8010}));
  EXPECT_EQ(rig.table("ha", 1), (Table{0xffff}));
  // Adding hb back as limited puts 0x0010 at the index it had (1).
  rig.write(rig.file_v1());
  ASSERT_TRUE(rig.sm->reload_partitions());
  ASSERT_TRUE(rig.sweep().subnet_up);
  expect_v1_tables(rig);
}

TEST(Partitions, EnforcementOnlyWhereTheSwitchCanEnforce) {
  Rig rig;
  rig.write(rig.file_v1());
  auto& si = *rig.fabric->node(rig.node("b")).switch_info;
  si.inbound_enforcement_cap = false;
  si.outbound_enforcement_cap = false;
  rig.start();
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.table("b", 3), (Table{0xffff, 0x8010}));
  EXPECT_EQ(rig.enforce("b", 3), kNone);
  EXPECT_EQ(rig.enforce("c", 2), kBoth);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet), 0u);
}

TEST(Partitions, BrokenFileOnReloadChangesNothing) {
  Rig rig;
  rig.write(rig.file_v1());
  rig.start();
  ASSERT_TRUE(rig.sweep().subnet_up);
  rig.write("Default=0x7fff: ALL=full;\nbroken line without colon\n");
  EXPECT_FALSE(rig.sm->reload_partitions());
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet), 0u);
  expect_v1_tables(rig);
}

TEST(Partitions, BrokenFileIsReportedWithItsPosition) {
  Rig rig;
  rig.write("Default=0x7fff: ALL=full;\nStorage=0x10: 0xzz;\n");
  std::vector<std::string> errors;
  EXPECT_FALSE(read_partitions_config(rig.options.partition_config_file, errors, nullptr));
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].rfind(rig.options.partition_config_file + ":2:", 0), 0u) << errors[0];
}

TEST(Partitions, MissingFileMakesEveryoneFullInTheDefaultPartition) {
  Rig rig;
  rig.start();
  ASSERT_TRUE(rig.sweep().subnet_up);
  // The cold tables already hold 0xffff: nothing to send.
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kPKeyTable), 0u);
  for (const char* ca : {"ha", "hb", "hc"})
    EXPECT_EQ(rig.table(ca, 1), (Table{0xffff})) << ca;
  ASSERT_EQ(rig.sm->partitions().groups().size(), 1u);
}

TEST(Partitions, SmPortStaysAFullMember) {
  Rig rig;
  rig.write("Default=0x7fff: ALL=limited;\n");
  rig.start();
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.table("ha", 1), (Table{0xffff}));
  EXPECT_EQ(rig.table("hb", 1), (Table{0x7fff}));
  EXPECT_EQ(rig.table("b", 3), (Table{0x7fff}));
}

TEST(Partitions, RestartKeepsIndexesAndMlidsAndWritesTheSnapshot) {
  Rig rig;
  rig.write(
      "Default=0x7fff, ipoib: ALL=full;\n"
      "A=0x0001, ipoib: " +
      hex(rig.guid("hb")) +
      "=full;\n"
      "B=0x0002, ipoib: " +
      hex(rig.guid("hb")) + "=full;\n");
  rig.start();
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto t1 = rig.table("hb", 1);
  ASSERT_EQ(t1.size(), 3u);
  const auto mlids = rig.sm->partitions().groups().assignment();
  // Drop A, restart: B keeps its index and its MLID.
  rig.write(
      "Default=0x7fff, ipoib: ALL=full;\n"
      "B=0x0002, ipoib: " +
      hex(rig.guid("hb")) + "=full;\n");
  rig.start();
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto t2 = rig.table("hb", 1);
  ASSERT_EQ(t2.size(), 3u);
  EXPECT_EQ(t2[1], 0);
  EXPECT_EQ(t2[2], t1[2]);
  const auto groups = rig.sm->partitions().groups().by_mlid();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[1].mlid, mlids.at(groups[1].params.mgid));
  EXPECT_NE(groups[1].mlid, 0xC001);
  // The snapshot describes the fabric as programmed.
  std::ifstream in(rig.options.cache_dir + "/fabric.snapshot");
  std::stringstream text;
  text << in.rdbuf();
  auto snap = partitions::read_fabric_snapshot(text.str());
  ASSERT_TRUE(snap.ok());
  std::size_t hb_ports = 0;
  for (const auto& p : snap->fabric.ports) {
    if (p.port_guid != rig.guid("hb")) continue;
    ++hb_ports;
    auto pk = p.pkeys;
    while (!pk.empty() && pk.back() == 0)
      pk.pop_back();
    EXPECT_EQ(pk, t2);
  }
  EXPECT_EQ(hb_ports, 1u);
}

}  // namespace
}  // namespace ibsm::sm::pkey_manager_test
