// Alias GUIDs end to end on a FakeFabric: a GUIDInfoRecord Set/Delete at the SA
// (IBA 15.2.5.18) ends up in the port's GUIDInfo table (IBA 14.2.5.5) after the SM's
// next loop step or heavy sweep; only blocks the port lacks are sent, so a second sweep
// sends nothing; a reset port is written again; ports with GUIDCap 1 never get a Set;
// a port that refuses a block is not asked again for the same contents.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sa/sa_mad.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/net_file.hpp"

namespace ibsm::sm::alias_guid_test {
namespace {

using fake::FakeFabric;
using mad::AttrId;
using mad::Method;

// ha (SM), hb and the two ports of hx on one switch.
constexpr std::string_view kNet = R"(Switch 6 "s1"
[1] "ha"[1]
[2] "hb"[1]
[3] "hx"[1]
[4] "hx"[2]

Hca 1 "ha"
[1] "s1"[1]

Hca 1 "hb"
[1] "s1"[2]

Hca 2 "hx"
[1] "s1"[3]
[2] "s1"[4]
)";

// GUIDInfoRecord (IBA 15.2.5.18): LID at byte 0, BlockNum at 2, GUIDs from byte 8;
// component mask bit 0 LID, bit 1 BlockNum, bits 4-11 GUID0-7.
constexpr std::size_t kRecordSize = 72;
constexpr std::uint64_t kMaskLid = 1u << 0;
constexpr std::uint64_t kMaskBlock = 1u << 1;
constexpr std::uint64_t mask_guid(unsigned i) {
  return 1ull << (4 + i);
}

struct SaAnswer {
  std::uint16_t status = 0;
  std::array<Guid, 8> guids{};
};

class Rig {
 public:
  explicit Rig(std::uint8_t guid_cap) {
    auto d = testsupport::parse_net(kNet);
    if (!d.ok()) std::abort();
    desc = *d;
    fake::FakeOptions fo;
    fo.guid_cap = guid_cap;
    fabric = std::make_unique<FakeFabric>(desc, clock, fo);
    std::string tmpl = (std::filesystem::temp_directory_path() / "ibsm-alias-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    dir = tmpl;
    options.cache_dir = dir + "/cache";
    options.partition_config_file = dir + "/partitions.conf";
    sm = std::make_unique<SubnetManager>(*fabric, clock, null_logger(), options);
  }
  ~Rig() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  SweepResult sweep(bool heavy = true) {
    fabric->reset_stats();
    if (heavy) sm->request_heavy_sweep(HeavyReason::kForced);
    return sm->sweep(stop);
  }
  // One step of run()'s loop between sweeps: the hook queues, polls deliver.
  std::size_t loop_step() {
    fabric->reset_stats();
    const std::size_t queued = sm->program_alias_changes();
    // A light sweep drains the SMP client, as run()'s polls do.
    static_cast<void>(sm->sweep(stop));
    return queued;
  }
  std::uint32_t node(const char* id) const { return fabric->index(id); }
  Guid guid(const char* id, mad::PortNum port = 1) const {
    return desc.nodes[node(id)].port_guid(port);
  }
  Lid lid(const char* id, mad::PortNum port = 1) const {
    for (const auto& n : sm->fabric().nodes())
      if (n.guid() == desc.nodes[node(id)].node_guid) return n.ports[port].lid;
    ADD_FAILURE() << "no node " << id;
    return 0;
  }
  // The fake port's GUIDInfo table.
  const std::vector<Guid>& table(const char* id, mad::PortNum port = 1) const {
    return fabric->node(node(id)).ports[port].guids;
  }
  std::uint64_t guid_sets() const { return fabric->stats().count(Method::kSet, AttrId::kGuidInfo); }

  // GUIDInfoRecord Set or Delete of `block` of the port with `lid`, from ha; `guids`
  // selects entries (index, GUID) for the component mask.
  SaAnswer request(std::uint8_t method, Lid lid, std::uint8_t block,
                   const std::vector<std::pair<unsigned, Guid>>& guids) {
    sa::SaMad req;
    req.header.method = method;
    req.header.tid = ++tid_;
    req.header.attr_id = sa::attr::kGuidInfoRecord;
    req.header.comp_mask = kMaskLid | kMaskBlock;
    req.data.assign(sa::kDataSize, 0);
    req.data[0] = static_cast<std::uint8_t>(lid >> 8);
    req.data[1] = static_cast<std::uint8_t>(lid);
    req.data[2] = block;
    for (const auto& [i, g] : guids) {
      req.header.comp_mask |= mask_guid(i);
      for (std::size_t b = 0; b < 8; ++b)
        req.data[8 + 8 * i + b] = static_cast<std::uint8_t>(g >> (8 * (7 - b)));
    }
    mad::MadAddress from;
    from.lid = this->lid("ha");
    const sa::SaResponse r = sm->sa().answer(req, from);
    SaAnswer a;
    if (r.bytes.size() < sa::kHeaderSize) {
      ADD_FAILURE() << "the SA did not answer";
      return a;
    }
    const sa::SaHeader h = sa::decode_header(r.bytes);
    a.status = h.status;
    if (r.bytes.size() >= sa::kHeaderSize + kRecordSize && h.attr_offset != 0) {
      for (std::size_t i = 0; i < 8; ++i) {
        Guid g = 0;
        for (std::size_t b = 0; b < 8; ++b)
          g = (g << 8) | r.bytes[sa::kHeaderSize + 8 + 8 * i + b];
        a.guids[i] = g;
      }
    }
    return a;
  }
  SaAnswer set(Lid lid, std::uint8_t block, const std::vector<std::pair<unsigned, Guid>>& g) {
    return request(sa::method::kSet, lid, block, g);
  }
  SaAnswer del(Lid lid, std::uint8_t block, const std::vector<std::pair<unsigned, Guid>>& g) {
    return request(sa::method::kDelete, lid, block, g);
  }

  FakeClock clock;
  std::string dir;
  testsupport::Fabric desc;
  std::unique_ptr<FakeFabric> fabric;
  conf::Options options;
  std::atomic<bool> stop{false};
  std::unique_ptr<SubnetManager> sm;

 private:
  std::uint64_t tid_ = 0x500;
};

constexpr Guid kAliasA = 0x0002c90300a1a1a1;
constexpr Guid kAliasB = 0x0002c90300b2b2b2;
constexpr Guid kAliasC = 0x0002c90300c3c3c3;

TEST(AliasGuids, FakePortsAnswerGuidInfoWithTheirGuidCap) {
  Rig rig(16);
  ASSERT_TRUE(rig.sweep().subnet_up);
  // Index 0 is the port GUID; a switch's table is port 0's, its external ports have none.
  ASSERT_EQ(rig.table("hb").size(), 16u);
  EXPECT_EQ(rig.table("hb")[0], rig.guid("hb"));
  EXPECT_EQ(rig.table("hx", 2)[0], rig.guid("hx", 2));
  EXPECT_EQ(rig.table("s1", 0).size(), 16u);
  EXPECT_TRUE(rig.table("s1", 1).empty());
  EXPECT_EQ(rig.fabric->node(rig.node("s1")).ports[1].info.guid_cap, 1u);
  // Nothing assigned, nothing sent.
  EXPECT_EQ(rig.guid_sets(), 0u);
  EXPECT_EQ(rig.sm->alias_guids().counters().sets, 0u);
}

TEST(AliasGuids, SetReachesThePortInTheNextLoopStepAndASweepSendsNothingMore) {
  Rig rig(16);
  ASSERT_TRUE(rig.sweep().subnet_up);
  const Lid hb = rig.lid("hb");
  auto a = rig.set(hb, 0, {{1, kAliasA}, {2, 0}});  // GUID2 0: the SA chooses
  ASSERT_EQ(a.status, 0);
  EXPECT_EQ(a.guids[1], kAliasA);
  const Guid chosen = a.guids[2];
  EXPECT_EQ(chosen >> 40, 0x001405u);  // OpenIB OUI, as OpenSM assigns
  EXPECT_EQ(rig.sm->sa().state().aliases.port_of(kAliasA), rig.guid("hb"));

  // run()'s hook: one block queued, written in the polls that follow.
  EXPECT_EQ(rig.loop_step(), 1u);
  EXPECT_EQ(rig.guid_sets(), 1u);
  EXPECT_EQ(rig.table("hb")[1], kAliasA);
  EXPECT_EQ(rig.table("hb")[2], chosen);
  EXPECT_EQ(rig.table("hb")[0], rig.guid("hb"));
  auto held = rig.sm->alias_guids().held(rig.guid("hb"), 0);
  ASSERT_TRUE(held);
  EXPECT_EQ(held->guids[1], kAliasA);
  EXPECT_EQ(rig.sm->alias_guids().counters().confirmed, 1u);

  // Nothing more queued; a heavy sweep finds every block in place and sends nothing.
  EXPECT_EQ(rig.loop_step(), 0u);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.guid_sets(), 0u);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.guid_sets(), 0u);
  EXPECT_EQ(rig.table("hb")[1], kAliasA);
}

TEST(AliasGuids, HeavySweepWritesQueuedBlocksAndOnlyThoseThatDiffer) {
  Rig rig(16);
  ASSERT_TRUE(rig.sweep().subnet_up);
  // hb block 1 and hx port 2 block 0, before any loop step: the sweep writes them.
  ASSERT_EQ(rig.set(rig.lid("hb"), 1, {{3, kAliasA}}).status, 0);
  ASSERT_EQ(rig.set(rig.lid("hx", 2), 0, {{7, kAliasB}}).status, 0);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.guid_sets(), 2u);
  EXPECT_EQ(rig.table("hb")[8 + 3], kAliasA);
  EXPECT_EQ(rig.table("hx", 2)[7], kAliasB);
  EXPECT_EQ(rig.table("hx", 1)[7], 0u);  // the other port of hx is another port
  // The sweep took the SA's queue: the loop step has nothing left to send.
  EXPECT_EQ(rig.loop_step(), 0u);
  EXPECT_EQ(rig.guid_sets(), 0u);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.guid_sets(), 0u);
}

TEST(AliasGuids, DeleteRemovesTheAliasFromThePort) {
  Rig rig(16);
  ASSERT_TRUE(rig.sweep().subnet_up);
  const Lid hb = rig.lid("hb");
  ASSERT_EQ(rig.set(hb, 0, {{1, kAliasA}, {4, kAliasC}}).status, 0);
  EXPECT_EQ(rig.loop_step(), 1u);
  EXPECT_EQ(rig.table("hb")[1], kAliasA);
  EXPECT_EQ(rig.table("hb")[4], kAliasC);

  auto d = rig.del(hb, 0, {{1, 0}});
  ASSERT_EQ(d.status, 0);
  EXPECT_EQ(d.guids[1], 0u);
  EXPECT_EQ(d.guids[4], kAliasC);
  EXPECT_EQ(rig.loop_step(), 1u);
  EXPECT_EQ(rig.guid_sets(), 1u);
  EXPECT_EQ(rig.table("hb")[1], 0u);
  EXPECT_EQ(rig.table("hb")[4], kAliasC);
  EXPECT_EQ(rig.sm->sa().state().aliases.port_of(kAliasA), 0u);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.guid_sets(), 0u);
}

TEST(AliasGuids, AResetPortIsWrittenAgain) {
  Rig rig(16);
  ASSERT_TRUE(rig.sweep().subnet_up);
  ASSERT_EQ(rig.set(rig.lid("hb"), 0, {{1, kAliasA}}).status, 0);
  ASSERT_EQ(rig.set(rig.lid("s1", 0), 0, {{2, kAliasB}}).status, 0);  // switch port 0
  EXPECT_EQ(rig.loop_step(), 2u);
  EXPECT_EQ(rig.table("hb")[1], kAliasA);
  EXPECT_EQ(rig.table("s1", 0)[2], kAliasB);

  // A power cycle loses the aliases (and the LIDs, which is how the SM tells).
  rig.fabric->reset_cold();
  EXPECT_EQ(rig.table("hb")[1], 0u);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.guid_sets(), 2u);
  EXPECT_EQ(rig.table("hb")[1], kAliasA);
  EXPECT_EQ(rig.table("s1", 0)[2], kAliasB);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.guid_sets(), 0u);
}

TEST(AliasGuids, PortsWithGuidCapOneNeverGetASet) {
  Rig rig(1);
  ASSERT_TRUE(rig.sweep().subnet_up);
  // The SA answers as OpenSM does: no error, but the block holds only the port GUID.
  auto a = rig.set(rig.lid("hb"), 0, {{1, kAliasA}});
  EXPECT_EQ(a.status, 0);
  EXPECT_EQ(a.guids[0], rig.guid("hb"));
  EXPECT_EQ(a.guids[1], 0u);
  EXPECT_EQ(rig.sm->sa().state().aliases.port_of(kAliasA), 0u);
  // Block 1 does not exist.
  EXPECT_EQ(rig.set(rig.lid("hb"), 1, {{1, kAliasA}}).status, sa::status::kNoRecords);
  EXPECT_EQ(rig.loop_step(), 0u);
  EXPECT_EQ(rig.guid_sets(), 0u);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.guid_sets(), 0u);
  EXPECT_EQ(rig.sm->alias_guids().counters().sets, 0u);
}

TEST(AliasGuids, APortThatShrankToGuidCapOneIsNotWritten) {
  Rig rig(16);
  ASSERT_TRUE(rig.sweep().subnet_up);
  ASSERT_EQ(rig.set(rig.lid("hb"), 1, {{1, kAliasA}}).status, 0);
  // Before the SM writes it, hb's adapter turns out to have GUIDCap 1 (firmware
  // change): the SA's table still holds the alias, the port has no room for it.
  auto& hb = rig.fabric->node(rig.node("hb")).ports[1];
  hb.info.guid_cap = 1;
  hb.guids.resize(1);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.guid_sets(), 0u);
  EXPECT_EQ(rig.loop_step(), 0u);
  EXPECT_EQ(rig.guid_sets(), 0u);
}

TEST(AliasGuids, ARefusedBlockIsNotAskedForAgain) {
  Rig rig(16);
  ASSERT_TRUE(rig.sweep().subnet_up);
  // hb's SMA knows only 8 entries though PortInfo says 16: block 1 is refused (0x1C).
  rig.fabric->node(rig.node("hb")).ports[1].guids.resize(8);
  ASSERT_EQ(rig.set(rig.lid("hb"), 1, {{2, kAliasA}}).status, 0);
  EXPECT_EQ(rig.loop_step(), 1u);
  EXPECT_EQ(rig.guid_sets(), 1u);
  EXPECT_EQ(rig.sm->alias_guids().counters().refused, 1u);
  // Not a sweep error, and not asked again for the same contents.
  const auto r = rig.sweep();
  EXPECT_TRUE(r.subnet_up);
  EXPECT_EQ(rig.guid_sets(), 0u);
  // New contents are tried.
  ASSERT_EQ(rig.set(rig.lid("hb"), 1, {{3, kAliasB}}).status, 0);
  EXPECT_EQ(rig.loop_step(), 1u);
  EXPECT_EQ(rig.sm->alias_guids().counters().refused, 2u);
}

}  // namespace
}  // namespace ibsm::sm::alias_guid_test
