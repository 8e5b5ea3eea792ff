// The table records (P_KeyTableRecord, SLtoVLMappingTableRecord,
// VLArbitrationTableRecord) as a client sees them, and the SM's reading of the tables
// behind them (sm/tables/port_tables.hpp): once per device, not on every sweep.
//
// The small fabric (sa_fixture.cpp): s1 and s2 with ports 1-4 up (s1: ha, hb, s2, hx;
// s2: hc, hd, s1, hx) and 5-8 down. The FakeFabric's tables after reset: SL i -> VL
// i mod (data VLs), 4 VLs on CA ports and 8 on switch ports; VLArbitration low block
// entries e < 8 = (VL e mod VLs, weight 1), high block entry 0 = (VL0, weight 4).
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "mad/attr/vl_tables.hpp"
#include "sa/record_layout.hpp"
#include "tests/unit/sa/sa_fixture.hpp"

namespace ibsm::sa {
namespace {

using satest::SaRig;

constexpr std::uint64_t kCaSl2Vl = 0x0123012301230123ull;      // 4 data VLs
constexpr std::uint64_t kSwitchSl2Vl = 0x0123456701234567ull;  // 8 data VLs

std::uint16_t be16(std::span<const std::uint8_t> b, std::size_t off) {
  return static_cast<std::uint16_t>((b[off] << 8) | b[off + 1]);
}
std::uint64_t be64(std::span<const std::uint8_t> b, std::size_t off) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i)
    v = (v << 8) | b[off + i];
  return v;
}

// Without partitions.conf: OpenSM's default, everyone full member of 0x7fff.
std::unique_ptr<SaRig> default_rig(conf::Options o = {}) {
  o.partition_config_file = "/nonexistent/ibsm-test/partitions.conf";
  return std::make_unique<SaRig>(satest::kSmallNet, o);
}

// ---- SLtoVLMappingTableRecord ----

constexpr std::uint64_t kSlLid = 1u << 0;
constexpr std::uint64_t kSlIn = 1u << 1;
constexpr std::uint64_t kSlOut = 1u << 2;

std::vector<std::uint8_t> sl2vl_query(Lid lid, PortNum in = 0, PortNum out = 0) {
  std::vector<std::uint8_t> q(16, 0);
  q[0] = static_cast<std::uint8_t>(lid >> 8);
  q[1] = static_cast<std::uint8_t>(lid);
  q[2] = in;
  q[3] = out;
  return q;
}

struct Sl2Vl {
  Lid lid = 0;
  PortNum in = 0;
  PortNum out = 0;
  std::uint64_t table = 0;
};
std::vector<Sl2Vl> sl2vl_records(const SaRig::Answer& a) {
  std::vector<Sl2Vl> out;
  for (std::size_t i = 0; i < a.record_count(); ++i) {
    const auto r = a.record(i);
    out.push_back({be16(r, 0), r[2], r[3], be64(r, 8)});
  }
  return out;
}

TEST(TableLayouts, SizesAndOpenSmComponentMaskBits) {
  const RecordLayout* sl = find_layout(attr::kSlToVlTableRecord);
  const RecordLayout* pk = find_layout(attr::kPKeyTableRecord);
  const RecordLayout* va = find_layout(attr::kVlArbTableRecord);
  ASSERT_TRUE(sl && pk && va);
  EXPECT_EQ(sl->size, 16);
  EXPECT_EQ(sl->words(), 2);
  EXPECT_EQ(pk->size, 72);
  EXPECT_EQ(pk->words(), 9);
  EXPECT_EQ(va->size, 72);
  EXPECT_EQ(va->words(), 9);
  // IB_SLVL_COMPMASK_*: LID 0, IN_PORT 1, OUT_PORT 2.
  EXPECT_EQ(sl->fields[1].name, "InputPortNum");
  EXPECT_EQ(sl->fields[2].name, "OutputPortNum");
  EXPECT_EQ(sl->fields[4].bit_offset, 64);
  // IB_PKEY_COMPMASK_*: LID 0, BLOCK 1, PORT 2.
  EXPECT_EQ(pk->fields[1].name, "BlockNum");
  EXPECT_EQ(pk->fields[1].bit_width, 16);
  EXPECT_EQ(pk->fields[2].name, "PortNum");
  EXPECT_EQ(pk->fields[2].bit_offset, 32);
  // IB_VLA_COMPMASK_*: LID 0, OUT_PORT 1, BLOCK 2.
  EXPECT_EQ(va->fields[1].name, "OutputPortNum");
  EXPECT_EQ(va->fields[2].name, "BlockNum");
  EXPECT_EQ(va->fields[2].bit_offset, 24);
}

TEST(Sl2VlRecord, EndPortHasOneTableWithPortNumbersZero) {
  auto rig = default_rig();
  const Lid hc = rig->lid_of("hc");
  // saquery SL2VL <lid>/<in>/<out> puts the ports in the mask: an end port ignores them.
  for (const std::uint64_t mask : {kSlLid, kSlLid | kSlIn | kSlOut}) {
    auto a = rig->request(method::kGetTable, attr::kSlToVlTableRecord, sl2vl_query(hc, 5, 7), mask,
                          rig->lid_of("ha"));
    ASSERT_TRUE(a);
    EXPECT_EQ(a->header.method, method::kGetTableResp);
    EXPECT_EQ(a->header.attr_offset, 2);
    const auto recs = sl2vl_records(*a);
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].lid, hc);
    EXPECT_EQ(recs[0].in, 0);
    EXPECT_EQ(recs[0].out, 0);
    EXPECT_EQ(recs[0].table, kCaSl2Vl);
  }
}

TEST(Sl2VlRecord, SwitchListsEveryPairOutputPortFirstZeroUntilTheSmProgramsThem) {
  auto rig = default_rig();
  const Lid s1 = rig->lid_of("s1", 0);
  auto a = rig->request(method::kGetTable, attr::kSlToVlTableRecord, sl2vl_query(s1), kSlLid,
                        rig->lid_of("hb"));
  ASSERT_TRUE(a);
  const auto recs = sl2vl_records(*a);
  ASSERT_EQ(recs.size(), 81u);  // ports 0..8 as output, 0..8 as input
  for (std::size_t k = 0; k < recs.size(); ++k) {
    EXPECT_EQ(recs[k].lid, s1);
    EXPECT_EQ(recs[k].out, k / 9);
    EXPECT_EQ(recs[k].in, k % 9);
  }
  const auto table = [&](unsigned in, unsigned out) { return recs[out * 9 + in].table; };
  // A base switch's pair tables are not read (sm/tables/port_tables.cpp: (N+1)^2 Gets per
  // switch); like OpenSM's, they read 0 until the SM programs them.
  EXPECT_EQ(table(1, 2), 0u);
  EXPECT_EQ(table(0, 4), 0u);
  EXPECT_EQ(table(3, 3), 0u);
  EXPECT_EQ(table(5, 2), 0u);  // input port down
  EXPECT_EQ(table(1, 6), 0u);  // output port down
  EXPECT_EQ(table(2, 0), 0u);  // base port 0 has no tables
}

TEST(Sl2VlRecord, InputAndOutputPortNarrowASwitchToOnePair) {
  auto rig = default_rig();
  const Lid s2 = rig->lid_of("s2", 0);
  const Lid from = rig->lid_of("hd");
  auto one = rig->request(method::kGet, attr::kSlToVlTableRecord, sl2vl_query(s2, 3, 1),
                          kSlLid | kSlIn | kSlOut, from);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->header.method, method::kGetResp);
  EXPECT_EQ(one->header.status, 0);
  const auto recs = sl2vl_records(*one);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].in, 3);
  EXPECT_EQ(recs[0].out, 1);
  EXPECT_EQ(recs[0].table, 0u);  // not read from a base switch

  auto all_in = rig->request(method::kGetTable, attr::kSlToVlTableRecord, sl2vl_query(s2, 0, 1),
                             kSlLid | kSlOut, from);
  ASSERT_TRUE(all_in);
  EXPECT_EQ(all_in->record_count(), 9u);
  auto get_many = rig->request(method::kGet, attr::kSlToVlTableRecord, sl2vl_query(s2, 0, 1),
                               kSlLid | kSlOut, from);
  ASSERT_TRUE(get_many);
  EXPECT_EQ(get_many->header.status, status::kTooManyRecords);
  auto beyond = rig->request(method::kGetTable, attr::kSlToVlTableRecord, sl2vl_query(s2, 0, 9),
                             kSlLid | kSlOut, from);
  ASSERT_TRUE(beyond);
  EXPECT_EQ(beyond->header.status, 0);
  EXPECT_EQ(beyond->record_count(), 0u);
}

TEST(Sl2VlRecord, WithoutLidPortsComeInOpenSmsPortGuidOrder) {
  auto rig = default_rig();
  auto a = rig->request(method::kGetTable, attr::kSlToVlTableRecord, sl2vl_query(0), 0,
                        rig->lid_of("ha"));
  ASSERT_TRUE(a);
  const auto recs = sl2vl_records(*a);
  ASSERT_EQ(recs.size(), 81u + 81u + 6u);
  // OpenSM's port_guid_tbl order on x86 is that of the byte-reversed GUID:
  // s1 0x200000, ha 0x100001, s2 0x200001, hb 0x100003, hc, hd, hx port 1, hx port 2.
  std::vector<Lid> order;
  for (const auto& r : recs)
    if (order.empty() || order.back() != r.lid) order.push_back(r.lid);
  const std::vector<Lid> want = {rig->lid_of("s1", 0), rig->lid_of("ha"),   rig->lid_of("s2", 0),
                                 rig->lid_of("hb"),    rig->lid_of("hc"),   rig->lid_of("hd"),
                                 rig->lid_of("hx", 1), rig->lid_of("hx", 2)};
  EXPECT_EQ(order, want);
}

TEST(Sl2VlRecord, AnyLidOfTheLmcRangeFindsThePortAndTheRecordCarriesTheBase) {
  conf::Options o;
  o.lmc = 2;
  auto rig = default_rig(o);
  const Lid hc = rig->lid_of("hc");
  auto a = rig->request(method::kGetTable, attr::kSlToVlTableRecord, sl2vl_query(hc + 3), kSlLid,
                        rig->lid_of("ha"));
  ASSERT_TRUE(a);
  const auto recs = sl2vl_records(*a);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].lid, hc);
}

TEST(Sl2VlRecord, UnknownLidIsAnEmptyTableAndUnknownRequesterNoAnswer) {
  auto rig = default_rig();
  auto a = rig->request(method::kGetTable, attr::kSlToVlTableRecord, sl2vl_query(0x0777), kSlLid,
                        rig->lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, 0);
  EXPECT_EQ(a->record_count(), 0u);
  auto g = rig->request(method::kGet, attr::kSlToVlTableRecord, sl2vl_query(0x0777), kSlLid,
                        rig->lid_of("ha"));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->header.status, status::kNoRecords);
  // OpenSM (ERR 2603) does not answer a LID it cannot place.
  EXPECT_FALSE(rig->request(method::kGetTable, attr::kSlToVlTableRecord,
                            sl2vl_query(rig->lid_of("hc")), kSlLid, 0x0777));
}

// ---- VLArbitrationTableRecord ----

constexpr std::uint64_t kVaLid = 1u << 0;
constexpr std::uint64_t kVaPort = 1u << 1;
constexpr std::uint64_t kVaBlock = 1u << 2;

std::vector<std::uint8_t> vlarb_query(Lid lid, PortNum port = 0, std::uint8_t block = 0) {
  std::vector<std::uint8_t> q(72, 0);
  q[0] = static_cast<std::uint8_t>(lid >> 8);
  q[1] = static_cast<std::uint8_t>(lid);
  q[2] = port;
  q[3] = block;
  return q;
}

// The fake's low-priority block 1 for a port with `vls` data VLs.
std::vector<std::uint8_t> low_block(unsigned vls) {
  std::vector<std::uint8_t> b(64, 0);
  for (unsigned e = 0; e < 8; ++e) {
    b[2 * e] = static_cast<std::uint8_t>(e % vls);
    b[2 * e + 1] = 1;
  }
  return b;
}
std::vector<std::uint8_t> table_bytes(std::span<const std::uint8_t> rec) {
  return {rec.begin() + 8, rec.begin() + 72};
}

TEST(VlArbRecord, EndPortListsBlocksOneToFourWithWhatThePortHolds) {
  auto rig = default_rig();
  const Lid hc = rig->lid_of("hc");
  // An end port is always its own port, whatever OutputPortNum says.
  auto a = rig->request(method::kGetTable, attr::kVlArbTableRecord, vlarb_query(hc, 7),
                        kVaLid | kVaPort, rig->lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.attr_offset, 9);
  ASSERT_EQ(a->record_count(), 4u);
  for (std::size_t b = 0; b < 4; ++b) {
    const auto r = a->record(b);
    EXPECT_EQ(be16(r, 0), hc);
    EXPECT_EQ(r[2], 1);      // the CA's port
    EXPECT_EQ(r[3], b + 1);  // block
  }
  EXPECT_EQ(table_bytes(a->record(0)), low_block(4));
  std::vector<std::uint8_t> high(64, 0);
  high[1] = 4;
  EXPECT_EQ(table_bytes(a->record(2)), high);
  EXPECT_EQ(table_bytes(a->record(1)), std::vector<std::uint8_t>(64, 0));  // caps 8: no block 2
  EXPECT_EQ(table_bytes(a->record(3)), std::vector<std::uint8_t>(64, 0));
}

TEST(VlArbRecord, BlockNumPicksOneBlockAndOnlyOneToFourExist) {
  auto rig = default_rig();
  const Lid hd = rig->lid_of("hd");
  auto one = rig->request(method::kGet, attr::kVlArbTableRecord, vlarb_query(hd, 0, 1),
                          kVaLid | kVaBlock, rig->lid_of("hd"));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->header.status, 0);
  ASSERT_EQ(one->record_count(), 1u);
  EXPECT_EQ(one->record(0)[3], 1);
  EXPECT_EQ(table_bytes(one->record(0)), low_block(4));
  for (const std::uint8_t block : {0, 5}) {
    auto none = rig->request(method::kGetTable, attr::kVlArbTableRecord, vlarb_query(hd, 0, block),
                             kVaLid | kVaBlock, rig->lid_of("hd"));
    ASSERT_TRUE(none);
    EXPECT_EQ(none->record_count(), 0u) << "block " << int{block};
  }
}

TEST(VlArbRecord, SwitchListsPortsZeroToNOrTheOneNamed) {
  auto rig = default_rig();
  const Lid s1 = rig->lid_of("s1", 0);
  const Lid from = rig->lid_of("hb");
  auto all =
      rig->request(method::kGetTable, attr::kVlArbTableRecord, vlarb_query(s1), kVaLid, from);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->record_count(), 36u);
  for (std::size_t k = 0; k < 36; ++k) {
    EXPECT_EQ(all->record(k)[2], k / 4);
    EXPECT_EQ(all->record(k)[3], k % 4 + 1);
  }
  EXPECT_EQ(table_bytes(all->record(0)), std::vector<std::uint8_t>(64, 0));      // base port 0
  EXPECT_EQ(table_bytes(all->record(4 * 2)), std::vector<std::uint8_t>(64, 0));  // not read
  EXPECT_EQ(table_bytes(all->record(4 * 6)), std::vector<std::uint8_t>(64, 0));  // port 6 down

  auto port3 = rig->request(method::kGetTable, attr::kVlArbTableRecord, vlarb_query(s1, 3),
                            kVaLid | kVaPort, from);
  ASSERT_TRUE(port3);
  ASSERT_EQ(port3->record_count(), 4u);
  EXPECT_EQ(port3->record(0)[2], 3);
  EXPECT_EQ(table_bytes(port3->record(0)), std::vector<std::uint8_t>(64, 0));
  auto beyond = rig->request(method::kGetTable, attr::kVlArbTableRecord, vlarb_query(s1, 9),
                             kVaLid | kVaPort, from);
  ASSERT_TRUE(beyond);
  EXPECT_EQ(beyond->record_count(), 0u);
}

// ---- P_KeyTableRecord ----

constexpr std::uint64_t kPkLid = 1u << 0;
constexpr std::uint64_t kPkBlock = 1u << 1;
constexpr std::uint64_t kPkPort = 1u << 2;
constexpr std::uint64_t kSaKey = 1;  // opensm.conf's default sa_key

// A record's BlockNum as OpenSM writes it (little-endian, see pkey_table_record.cpp).
std::uint16_t block_of(std::span<const std::uint8_t> rec) {
  return static_cast<std::uint16_t>(rec[2] | (rec[3] << 8));
}

std::vector<std::uint8_t> pkey_query(Lid lid, std::uint16_t block = 0, PortNum port = 0) {
  std::vector<std::uint8_t> q(72, 0);
  q[0] = static_cast<std::uint8_t>(lid >> 8);
  q[1] = static_cast<std::uint8_t>(lid);
  q[2] = static_cast<std::uint8_t>(block >> 8);
  q[3] = static_cast<std::uint8_t>(block);
  q[4] = port;
  return q;
}

TEST(PKeyTableRecord, UntrustedRequestsGetReqInvalidEvenFromUnknownLids) {
  auto rig = default_rig();
  const Lid hc = rig->lid_of("hc");
  for (const std::uint8_t m : {method::kGet, method::kGetTable}) {
    for (const Lid from : {rig->lid_of("ha"), Lid{0x0777}}) {
      auto a = rig->request(m, attr::kPKeyTableRecord, pkey_query(hc), kPkLid, from, /*sm_key=*/0);
      ASSERT_TRUE(a);
      EXPECT_EQ(a->header.status, status::kReqInvalid);
      EXPECT_EQ(a->record_count(), 0u);
    }
  }
  // Trusted, but from a LID nobody holds: no answer, as OpenSM (ERR 4604).
  EXPECT_FALSE(rig->request(method::kGetTable, attr::kPKeyTableRecord, pkey_query(hc), kPkLid,
                            0x0777, kSaKey));
}

TEST(PKeyTableRecord, EndPortBlocksAreItsPartitionCapAndThePortIsItsOwn) {
  auto rig = default_rig();
  const Lid hc = rig->lid_of("hc");
  // PortNum 5 in the mask: an end port is always its own port (OpenSM).
  auto a = rig->request(method::kGetTable, attr::kPKeyTableRecord, pkey_query(hc, 0, 5),
                        kPkLid | kPkPort, rig->lid_of("ha"), kSaKey);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, 0);
  EXPECT_EQ(a->header.attr_offset, 9);
  ASSERT_EQ(a->record_count(), 2u);  // PartitionCap 64
  for (std::size_t b = 0; b < 2; ++b) {
    const auto r = a->record(b);
    EXPECT_EQ(be16(r, 0), hc);
    EXPECT_EQ(block_of(r), b);
    EXPECT_EQ(r[4], 1);
  }
  EXPECT_EQ(be16(a->record(0), 8), 0xffff);  // the default partition, full member
  EXPECT_EQ(be16(a->record(1), 8), 0x0000);

  auto block1 = rig->request(method::kGet, attr::kPKeyTableRecord, pkey_query(hc, 1),
                             kPkLid | kPkBlock, rig->lid_of("ha"), kSaKey);
  ASSERT_TRUE(block1);
  EXPECT_EQ(block1->header.status, 0);
  ASSERT_EQ(block1->record_count(), 1u);
  EXPECT_EQ(block1->record(0)[2], 1);  // little-endian, as OpenSM's
  EXPECT_EQ(block1->record(0)[3], 0);
  // IBA: a block the port does not have has no record (OpenSM returns zeros there).
  auto block2 = rig->request(method::kGet, attr::kPKeyTableRecord, pkey_query(hc, 2),
                             kPkLid | kPkBlock, rig->lid_of("ha"), kSaKey);
  ASSERT_TRUE(block2);
  EXPECT_EQ(block2->header.status, status::kNoRecords);
}

TEST(PKeyTableRecord, SwitchListsThePortsWhoseTablesWereRead) {
  auto rig = default_rig();
  const Lid s1 = rig->lid_of("s1", 0);
  const Lid from = rig->lid_of("hb");
  auto all =
      rig->request(method::kGetTable, attr::kPKeyTableRecord, pkey_query(s1), kPkLid, from, kSaKey);
  ASSERT_TRUE(all);
  // Port 0 (PartitionCap 64) and the up ports 1-4 (PartitionEnforcementCap 64): two
  // blocks each; down ports 5-8 were never read, as in OpenSM.
  ASSERT_EQ(all->record_count(), 10u);
  for (std::size_t k = 0; k < 10; ++k) {
    EXPECT_EQ(be16(all->record(k), 0), s1);
    EXPECT_EQ(all->record(k)[4], k / 2);
    EXPECT_EQ(block_of(all->record(k)), k % 2);
  }
  // Port 3 faces s2: the partition manager does not read it; the port tables do.
  auto isl = rig->request(method::kGetTable, attr::kPKeyTableRecord, pkey_query(s1, 0, 3),
                          kPkLid | kPkPort, from, kSaKey);
  ASSERT_TRUE(isl);
  ASSERT_EQ(isl->record_count(), 2u);
  EXPECT_EQ(be16(isl->record(0), 8), 0xffff);
  auto down = rig->request(method::kGetTable, attr::kPKeyTableRecord, pkey_query(s1, 0, 6),
                           kPkLid | kPkPort, from, kSaKey);
  ASSERT_TRUE(down);
  EXPECT_EQ(down->record_count(), 0u);
}

// ---- Partition filtering (sa.md 3.2; OpenSM's osm_physp_share_pkey) ----

// The switches full and hb limited in the default partition; hc and hd in 0x0002
// (and, as every port, limited in the default one): hb shares nothing with them.
std::unique_ptr<SaRig> split_rig() {
  const auto path = std::filesystem::temp_directory_path() /
                    ("ibsm-tables-" + std::to_string(::getpid()) + "-partitions.conf");
  {
    std::ofstream out(path);
    out << "Default=0x7fff : ALL_SWITCHES=full, 0x100001=full, 0x100003=limited;\n"
           "Lab=0x0002 : 0x100005=full, 0x100007=full;\n";
  }
  conf::Options o;
  o.partition_config_file = path.string();
  auto rig = std::make_unique<SaRig>(satest::kSmallNet, o);
  std::filesystem::remove(path);
  return rig;
}

TEST(TableRecordPartitions, PortsInAnotherPartitionAreHiddenFromEveryRecord) {
  auto rig = split_rig();
  const Lid hb = rig->lid_of("hb");
  const Lid hc = rig->lid_of("hc");
  auto sl = rig->request(method::kGetTable, attr::kSlToVlTableRecord, sl2vl_query(hc), kSlLid, hb);
  auto va = rig->request(method::kGetTable, attr::kVlArbTableRecord, vlarb_query(hc), kVaLid, hb);
  // Trusted requests are filtered too (OpenSM checks the partition regardless of SM_Key).
  auto pk =
      rig->request(method::kGetTable, attr::kPKeyTableRecord, pkey_query(hc), kPkLid, hb, kSaKey);
  ASSERT_TRUE(sl && va && pk);
  EXPECT_EQ(sl->record_count(), 0u);
  EXPECT_EQ(va->record_count(), 0u);
  EXPECT_EQ(pk->record_count(), 0u);
  // hd shares 0x0002 with hc: it sees it.
  auto seen = rig->request(method::kGetTable, attr::kSlToVlTableRecord, sl2vl_query(hc), kSlLid,
                           rig->lid_of("hd"));
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->record_count(), 1u);
}

TEST(TableRecordPartitions, SwitchPortsAreJudgedByTheirOwnTable) {
  auto rig = split_rig();
  // s2's ports 1 and 2 face hc and hd and hold their P_Keys (0x7fff, 0x8002) under
  // partition enforcement: hidden from hb; port 0 and the inter-switch port 3 hold
  // 0xffff. (Judged by port 0's table, as other records are, all would be visible.)
  auto a = rig->request(method::kGetTable, attr::kVlArbTableRecord,
                        vlarb_query(rig->lid_of("s2", 0)), kVaLid, rig->lid_of("hb"));
  ASSERT_TRUE(a);
  std::vector<int> ports;
  for (std::size_t k = 0; k < a->record_count(); ++k)
    if (ports.empty() || ports.back() != a->record(k)[2]) ports.push_back(a->record(k)[2]);
  EXPECT_EQ(std::count(ports.begin(), ports.end(), 1), 0);
  EXPECT_EQ(std::count(ports.begin(), ports.end(), 2), 0);
  EXPECT_EQ(std::count(ports.begin(), ports.end(), 0), 1);
  EXPECT_EQ(std::count(ports.begin(), ports.end(), 3), 1);
}

// ---- The SMP attributes behind them ----

TEST(VlTables, SlToVlTableCodecAndTheRecordsPackedForm) {
  std::array<std::uint8_t, mad::kSmpDataSize> wire{};
  const std::array<std::uint8_t, 8> bytes = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  std::copy(bytes.begin(), bytes.end(), wire.begin());
  const auto t = mad::SlToVlTable::decode_payload(mad::ConstPayload(wire));
  EXPECT_EQ(t.vl[0], 0);  // SL0 in the high nibble of byte 0
  EXPECT_EQ(t.vl[1], 1);
  EXPECT_EQ(t.vl[15], 15);
  EXPECT_EQ(t.packed(), 0x0123456789abcdefull);
  EXPECT_EQ(mad::SlToVlTable::from_packed(t.packed()).vl, t.vl);
  std::array<std::uint8_t, mad::kSmpDataSize> out{};
  mad::encode(t, mad::Payload(out));
  EXPECT_EQ(out, wire);
}

TEST(VlTables, VlArbitrationBlocksExistAsVlCapAndTheArbitrationCapsSay) {
  // IBA 14.2.5.9: no table with a single data VL; block 1/3 with any low/high entry,
  // block 2/4 only beyond 32 entries; blocks are numbered 1-4.
  EXPECT_FALSE(mad::vlarb_block_exists(1, 8, 8, 1));
  EXPECT_TRUE(mad::vlarb_block_exists(4, 8, 8, 1));
  EXPECT_FALSE(mad::vlarb_block_exists(4, 8, 8, 2));
  EXPECT_TRUE(mad::vlarb_block_exists(4, 8, 8, 3));
  EXPECT_FALSE(mad::vlarb_block_exists(4, 8, 8, 4));
  EXPECT_TRUE(mad::vlarb_block_exists(4, 64, 0, 2));
  EXPECT_FALSE(mad::vlarb_block_exists(4, 64, 0, 3));
  EXPECT_FALSE(mad::vlarb_block_exists(4, 64, 64, 0));
  EXPECT_FALSE(mad::vlarb_block_exists(4, 64, 64, 5));
}

// ---- The SM reads the tables once per device ----

TEST(PortTables, ABaseSwitchCostsOnlyTheP_KeysOfItsUpPortsTheRestDoNot) {
  auto rig = default_rig();
  sm::Fabric f = rig->sm->fabric();
  const sm::NodeIndex s1 = f.find(0x200000);
  ASSERT_NE(s1, sm::kNoNode);
  const auto count = [&](sm::TableWant::Kind k) {
    std::size_t n = 0;
    for (const auto& w : sm::tables_of(f, s1))
      n += w.kind == k ? 1 : 0;
    return n;
  };
  EXPECT_EQ(count(sm::TableWant::Kind::kSl2Vl), 0u);
  EXPECT_EQ(count(sm::TableWant::Kind::kVlArb), 0u);
  const std::size_t pkeys = count(sm::TableWant::Kind::kPKey);
  f.node(s1).ports[3].info.port_state = mad::PortState::kDown;
  EXPECT_LE(count(sm::TableWant::Kind::kPKey), pkeys);
}

std::uint64_t gets(const SaRig& rig, mad::AttrId a) {
  return rig.fabric->stats().count(mad::Method::kGet, a);
}

void heavy_sweep(SaRig& rig) {
  std::atomic<bool> stop{false};
  rig.sm->request_heavy_sweep(sm::HeavyReason::kForced);
  EXPECT_TRUE(rig.sm->sweep(stop).subnet_up);
}

TEST(PortTables, FirstSweepReadsEachTableOnceTheNextReadsNone) {
  auto rig = default_rig();
  // SL2VL: one per CA port (6); base switches' pair tables are never read.
  EXPECT_EQ(gets(*rig, mad::AttrId::kSlToVlTable), 6u);
  // VLArbitration: blocks 1 and 3 (caps 8/8) of the 6 CA ports.
  EXPECT_EQ(gets(*rig, mad::AttrId::kVlArbitration), 2u * 6u);
  const std::uint64_t pkeys_first = gets(*rig, mad::AttrId::kPKeyTable);

  rig->fabric->reset_stats();
  heavy_sweep(*rig);
  EXPECT_EQ(gets(*rig, mad::AttrId::kSlToVlTable), 0u);
  EXPECT_EQ(gets(*rig, mad::AttrId::kVlArbitration), 0u);
  // Only the partition manager's reads remain: the two inter-switch ports' two blocks
  // each are not read again.
  EXPECT_EQ(gets(*rig, mad::AttrId::kPKeyTable), pkeys_first - 4u);
  // And the SA still serves what it read.
  auto a = rig->request(method::kGetTable, attr::kSlToVlTableRecord, sl2vl_query(rig->lid_of("hc")),
                        kSlLid, rig->lid_of("ha"));
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(sl2vl_records(*a)[0].table, kCaSl2Vl);
}

TEST(PortTables, PowerCycledFabricIsReadAgain) {
  auto rig = default_rig();
  rig->fabric->reset_cold();
  rig->fabric->reset_stats();
  heavy_sweep(*rig);
  EXPECT_EQ(gets(*rig, mad::AttrId::kSlToVlTable), 6u);
  EXPECT_EQ(gets(*rig, mad::AttrId::kVlArbitration), 2u * 6u);
}

TEST(PortTables, ANodeThatLeftAndCameBackIsReadAgainAndNothingElse) {
  auto rig = default_rig();
  const std::uint32_t s2 = rig->fabric->index("s2");
  rig->fabric->set_link(s2, 1, false);  // hc unplugged
  heavy_sweep(*rig);
  rig->fabric->set_link(s2, 1, true);
  rig->fabric->reset_stats();
  heavy_sweep(*rig);
  EXPECT_EQ(gets(*rig, mad::AttrId::kSlToVlTable), 1u);    // hc's table
  EXPECT_EQ(gets(*rig, mad::AttrId::kVlArbitration), 2u);  // hc's blocks 1 and 3
}

TEST(PortTables, AResetPortShowsWhatItHoldsNow) {
  auto rig = default_rig();
  const std::uint32_t hc = rig->fabric->index("hc");
  const Lid lid = rig->lid_of("hc");
  // hc's adapter restarts with another SL2VL table: its port reads LID 0 again.
  auto& port = rig->fabric->node(hc).ports[1];
  port.sl2vl[0] = {0x76, 0x54, 0x32, 0x10, 0x76, 0x54, 0x32, 0x10};
  port.info.lid = 0;
  heavy_sweep(*rig);
  auto a = rig->request(method::kGetTable, attr::kSlToVlTableRecord, sl2vl_query(lid), kSlLid,
                        rig->lid_of("ha"));
  ASSERT_TRUE(a);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(sl2vl_records(*a)[0].table, 0x7654321076543210ull);
}

}  // namespace
}  // namespace ibsm::sa
