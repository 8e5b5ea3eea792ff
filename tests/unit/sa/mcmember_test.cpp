// MCMemberRecord queries (Get/GetTable) as OpenSM answers them: the groups that
// partitions.conf pre-creates, partition hiding, trusted and untrusted answers,
// component-mask matching with MTU/rate selectors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>

#include "sa/record_layout.hpp"
#include "tests/unit/sa/sa_fixture.hpp"

namespace ibsm::sa {
namespace {

using satest::SaRig;

// ComponentMask bits (IBA 15.2.5.17, OpenSM's IB_MCR_COMPMASK_*).
constexpr std::uint64_t kMgid = 1ull << 0;
constexpr std::uint64_t kPortGid = 1ull << 1;
constexpr std::uint64_t kQKey = 1ull << 2;
constexpr std::uint64_t kMlid = 1ull << 3;
constexpr std::uint64_t kMtuSel = 1ull << 4;
constexpr std::uint64_t kMtu = 1ull << 5;
constexpr std::uint64_t kPKey = 1ull << 7;
constexpr std::uint64_t kRateSel = 1ull << 8;
constexpr std::uint64_t kRate = 1ull << 9;
constexpr std::uint64_t kLifeSel = 1ull << 10;
constexpr std::uint64_t kLife = 1ull << 11;
constexpr std::uint64_t kSl = 1ull << 12;
constexpr std::uint64_t kHop = 1ull << 14;
constexpr std::uint64_t kScope = 1ull << 15;
constexpr std::uint64_t kJoinState = 1ull << 16;
constexpr std::uint64_t kProxy = 1ull << 17;

using Gid16 = std::array<std::uint8_t, 16>;

// ff12:401b:<pkey>::ffff:ffff with the scope nibble set.
Gid16 broadcast_mgid(std::uint16_t pkey, std::uint8_t scope = 2) {
  Gid16 g{0xff, static_cast<std::uint8_t>(0x10 | scope), 0x40,
          0x1b, static_cast<std::uint8_t>(pkey >> 8),    static_cast<std::uint8_t>(pkey)};
  for (std::size_t i = 12; i < 16; ++i)
    g[i] = 0xff;
  return g;
}

Gid16 port_gid(Guid guid) {
  Gid16 g{0xfe, 0x80};
  for (int i = 0; i < 8; ++i)
    g[static_cast<std::size_t>(8 + i)] = static_cast<std::uint8_t>(guid >> (56 - 8 * i));
  return g;
}

// A query record (56 bytes) and setters for the fields the tests use.
struct Query {
  std::vector<std::uint8_t> b = std::vector<std::uint8_t>(56, 0);
  Query& mgid(const Gid16& g) {
    std::copy(g.begin(), g.end(), b.begin());
    return *this;
  }
  Query& port(const Gid16& g) {
    std::copy(g.begin(), g.end(), b.begin() + 16);
    return *this;
  }
  Query& qkey(std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
      b[static_cast<std::size_t>(32 + i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
    return *this;
  }
  Query& mlid(std::uint16_t v) {
    b[36] = static_cast<std::uint8_t>(v >> 8);
    b[37] = static_cast<std::uint8_t>(v);
    return *this;
  }
  Query& mtu(std::uint8_t sel, std::uint8_t v) {
    b[38] = static_cast<std::uint8_t>(sel << 6 | v);
    return *this;
  }
  Query& pkey(std::uint16_t v) {
    b[40] = static_cast<std::uint8_t>(v >> 8);
    b[41] = static_cast<std::uint8_t>(v);
    return *this;
  }
  Query& rate(std::uint8_t sel, std::uint8_t v) {
    b[42] = static_cast<std::uint8_t>(sel << 6 | v);
    return *this;
  }
  Query& life(std::uint8_t sel, std::uint8_t v) {
    b[43] = static_cast<std::uint8_t>(sel << 6 | v);
    return *this;
  }
  Query& sl(std::uint8_t v) {
    b[44] = static_cast<std::uint8_t>((b[44] & 0x0f) | v << 4);
    return *this;
  }
  Query& hop(std::uint8_t v) {
    b[47] = v;
    return *this;
  }
  Query& scope_state(std::uint8_t v) {
    b[48] = v;
    return *this;
  }
  Query& proxy(bool v) {
    b[49] = v ? 0x01 : 0;  // where saquery -X puts it
    return *this;
  }
};

struct McRec {
  Gid16 mgid{};
  Gid16 port{};
  std::uint32_t qkey = 0;
  std::uint16_t mlid = 0;
  std::uint8_t mtu = 0;
  std::uint8_t tclass = 0;
  std::uint16_t pkey = 0;
  std::uint8_t rate = 0;
  std::uint8_t life = 0;
  std::uint32_t sl_flow_hop = 0;
  std::uint8_t scope_state = 0;
  std::uint8_t proxy = 0;
};

McRec decode(std::span<const std::uint8_t> r) {
  McRec m;
  std::copy_n(r.begin(), 16, m.mgid.begin());
  std::copy_n(r.begin() + 16, 16, m.port.begin());
  m.qkey = (std::uint32_t{r[32]} << 24) | (std::uint32_t{r[33]} << 16) |
           (std::uint32_t{r[34]} << 8) | r[35];
  m.mlid = static_cast<std::uint16_t>(r[36] << 8 | r[37]);
  m.mtu = r[38];
  m.tclass = r[39];
  m.pkey = static_cast<std::uint16_t>(r[40] << 8 | r[41]);
  m.rate = r[42];
  m.life = r[43];
  m.sl_flow_hop = (std::uint32_t{r[44]} << 24) | (std::uint32_t{r[45]} << 16) |
                  (std::uint32_t{r[46]} << 8) | r[47];
  m.scope_state = r[48];
  m.proxy = r[49];
  return m;
}

std::vector<McRec> records(const SaRig::Answer& a) {
  std::vector<McRec> out;
  for (std::size_t i = 0; i < a.record_count(); ++i)
    out.push_back(decode(a.record(i)));
  return out;
}

// An SA rig whose SM reads `conf` as partitions.conf. The kSmallNet GUIDs follow
// ibsim's numbering: ha port 0x100001, hb 0x100003, hc 0x100005, hd 0x100007.
std::unique_ptr<SaRig> rig_with_partitions(const std::string& conf) {
  const auto dir = std::filesystem::temp_directory_path();
  char name[64];
  std::snprintf(name, sizeof name, "ibsm-mcmr-%d-partitions.conf", static_cast<int>(::getpid()));
  const auto path = dir / name;
  {
    std::ofstream out(path);
    out << conf;
  }
  conf::Options o;
  o.partition_config_file = path.string();
  auto rig = std::make_unique<SaRig>(satest::kSmallNet, o);
  std::filesystem::remove(path);
  return rig;
}

// No partitions.conf: OpenSM's default, everyone full in 0x7fff with IPoIB.
std::unique_ptr<SaRig> default_rig(std::size_t gsi_max = 1u << 20) {
  conf::Options o;
  o.partition_config_file = "/nonexistent/ibsm-test/partitions.conf";
  return std::make_unique<SaRig>(satest::kSmallNet, o, gsi_max);
}

constexpr const char* kThreePartitions =
    "Default=0x7fff, ipoib : ALL=full;\n"
    "Storage=0x0010, ipoib, mtu=5, rate=7, sl=2 : 0x100001=full, 0x100003=limited;\n"
    "Site=0x0020, ipoib, scope=5 : 0x100001=full;\n";

TEST(McMemberLayout, FiftyTwoBytesInSevenWordsWithOpenSmBitNumbering) {
  const RecordLayout* l = find_layout(attr::kMcMemberRecord);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->size, 52);
  EXPECT_EQ(l->words(), 7);
  ASSERT_EQ(l->fields.size(), 19u);
  EXPECT_EQ(l->fields[1].name, "PortGID");
  EXPECT_EQ(l->fields[4].name, "MTUSelector");
  EXPECT_EQ(l->fields[4].bit_offset, 38 * 8);
  EXPECT_EQ(l->fields[10].name, "PacketLifeTimeSelector");
  EXPECT_EQ(l->fields[15].name, "Scope");
  EXPECT_EQ(l->fields[16].name, "JoinState");
  EXPECT_EQ(l->fields[16].bit_offset, 48 * 8 + 4);
  EXPECT_EQ(l->fields[17].name, "ProxyJoin");
  EXPECT_EQ(l->fields[17].bit_offset, 49 * 8 + 7);  // OpenSM's bit, see the layout
}

// saquery MCMR / saquery -g on OpenSM's default partition (ibsim, 64 hosts):
// MGID ff12:401b:ffff::ffff:ffff, PortGid ::, qkey 0xb1b, mlid 0xc000, mtu 0x84,
// TClass 0, pkey 0xffff, rate 0x83, pkt_life 0x92, SL 0, FlowLabel 0, HopLimit 0,
// Scope 0x2, JoinState 0, ProxyJoin 0.
TEST(McMemberRecord, BroadcastGroupIsByteForByteOpenSms) {
  auto rig = default_rig();
  auto a = rig->request(method::kGetTable, attr::kMcMemberRecord, Query{}.b, 0, rig->lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetTableResp);
  EXPECT_EQ(a->header.status, 0);
  EXPECT_EQ(a->header.attr_offset, 7);
  ASSERT_EQ(a->bytes.size(), 56u + 56u);
  const std::vector<std::uint8_t> want = {
      0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,  // MGID
      0,    0,    0,    0,    0,    0,    0, 0, 0, 0, 0, 0, 0,    0,    0,    0,     // PortGID
      0x00, 0x00, 0x0b, 0x1b,                                                        // Q_Key
      0xc0, 0x00,                                                                    // MLID
      0x84,                 // MTU 2048, selector 2
      0x00,                 // TClass
      0xff, 0xff,           // P_Key
      0x83,                 // rate 10 Gb/s, selector 2
      0x92,                 // PacketLifeTime 18 (subnet_timeout), selector 2
      0,    0,    0,    0,  // SL, FlowLabel, HopLimit
      0x20,                 // Scope 2, JoinState zeroed (untrusted)
      0x00, 0x00, 0x00,     // ProxyJoin, reserved
      0,    0,    0,    0,  // padding to 56
  };
  EXPECT_EQ(a->data, want);
}

TEST(McMemberRecord, GetByMgidAsSaqueryMcmrMgidSends) {
  auto rig = default_rig();
  auto a = rig->request(method::kGet, attr::kMcMemberRecord, Query{}.mgid(broadcast_mgid(0xffff)).b,
                        kMgid, rig->lid_of("hc"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetResp);
  EXPECT_EQ(a->header.status, 0);
  EXPECT_EQ(a->bytes.size(), 56u + 56u);
  ASSERT_EQ(a->record_count(), 1u);
  const McRec r = decode(a->record(0));
  EXPECT_EQ(r.mlid, 0xc000);
  EXPECT_EQ(r.qkey, 0x0b1bu);

  auto none = rig->request(method::kGet, attr::kMcMemberRecord,
                           Query{}.mgid(broadcast_mgid(0x1234)).b, kMgid, rig->lid_of("hc"));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->header.status, status::kNoRecords);
  EXPECT_EQ(none->bytes.size(), 256u);
}

TEST(McMemberRecord, PartitionsHideGroupsWhoseKeyTheRequesterLacks) {
  auto rig = rig_with_partitions(kThreePartitions);
  ASSERT_EQ(rig->port_guid_of("ha"), 0x100001u);
  ASSERT_EQ(rig->port_guid_of("hb"), 0x100003u);
  const auto table = [&](const char* node) {
    auto a =
        rig->request(method::kGetTable, attr::kMcMemberRecord, Query{}.b, 0, rig->lid_of(node));
    std::set<std::uint16_t> pkeys;
    if (a) {
      for (const McRec& r : records(*a))
        pkeys.insert(r.pkey);
    }
    return pkeys;
  };
  // ha is full member of all three; hb holds Storage as a limited member, which is
  // enough to see the group (OpenSM tests the base only); hc only Default.
  EXPECT_EQ(table("ha"), (std::set<std::uint16_t>{0xffff, 0x8010, 0x8020}));
  EXPECT_EQ(table("hb"), (std::set<std::uint16_t>{0xffff, 0x8010}));
  EXPECT_EQ(table("hc"), (std::set<std::uint16_t>{0xffff}));
  // A trusted key does not lift the partition rule for groups either.
  auto trusted = rig->request(method::kGetTable, attr::kMcMemberRecord,
                              Query{}.mgid(broadcast_mgid(0x8010)).b, kMgid, rig->lid_of("hc"),
                              /*sm_key=*/1);
  ASSERT_TRUE(trusted);
  EXPECT_EQ(trusted->record_count(), 0u);
}

TEST(McMemberRecord, ConfiguredGroupParametersAndMgidOrder) {
  auto rig = rig_with_partitions(kThreePartitions);
  auto a = rig->request(method::kGetTable, attr::kMcMemberRecord, Query{}.b, 0, rig->lid_of("ha"));
  ASSERT_TRUE(a);
  const auto recs = records(*a);
  ASSERT_EQ(recs.size(), 3u);
  // MGID order, as OpenSM walks its group map: ff12:401b:8010, ff12:401b:ffff, ff15:...
  // (the MGID carries the P_Key with the full-member bit, as OpenSM builds it).
  EXPECT_EQ(recs[0].mgid, broadcast_mgid(0x8010));
  EXPECT_EQ(recs[1].mgid, broadcast_mgid(0xffff));
  EXPECT_EQ(recs[2].mgid, broadcast_mgid(0x8020, 5));
  EXPECT_EQ(recs[0].mtu, 0x85);
  EXPECT_EQ(recs[0].rate, 0x87);
  // sl=2 is overridden to 0 without QoS (OpenSM's partition rule).
  EXPECT_EQ(recs[0].sl_flow_hop >> 28, 0u);
  EXPECT_EQ(recs[0].sl_flow_hop & 0xff, 0u);  // link-local: HopLimit 0
  EXPECT_EQ(recs[0].scope_state, 0x20);
  EXPECT_EQ(recs[2].sl_flow_hop & 0xff, 0xffu);  // site-local: HopLimit 0xFF
  EXPECT_EQ(recs[2].scope_state, 0x50);
  // Distinct MLIDs from 0xC000 in creation order.
  std::set<std::uint16_t> mlids;
  for (const McRec& r : recs) {
    EXPECT_GE(r.mlid, 0xc000);
    mlids.insert(r.mlid);
  }
  EXPECT_EQ(mlids.size(), 3u);
  EXPECT_EQ(recs[1].mlid, 0xc000);
}

TEST(McMemberRecord, GetWithEmptyMaskOverSeveralGroupsIsTooMany) {
  auto rig = rig_with_partitions(kThreePartitions);
  auto a = rig->request(method::kGet, attr::kMcMemberRecord, Query{}.b, 0, rig->lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kTooManyRecords);
  EXPECT_EQ(a->bytes.size(), 256u);
}

TEST(McMemberRecord, GroupFieldsMatchWhenMasked) {
  auto rig = rig_with_partitions(kThreePartitions);
  const Lid ha = rig->lid_of("ha");
  const auto count = [&](const Query& q, std::uint64_t mask) -> std::size_t {
    auto a = rig->request(method::kGetTable, attr::kMcMemberRecord, q.b, mask, ha);
    return a ? a->record_count() : 99;
  };
  EXPECT_EQ(count(Query{}.mlid(0xc000), kMlid), 1u);
  EXPECT_EQ(count(Query{}.mlid(0xc123), kMlid), 0u);
  EXPECT_EQ(count(Query{}.qkey(0x0b1b), kQKey), 3u);
  EXPECT_EQ(count(Query{}.qkey(0x1234), kQKey), 0u);
  // P_Key: base compared, one side full is enough.
  EXPECT_EQ(count(Query{}.pkey(0x0010), kPKey), 1u);
  EXPECT_EQ(count(Query{}.pkey(0x8010), kPKey), 1u);
  EXPECT_EQ(count(Query{}.pkey(0x8011), kPKey), 0u);
  EXPECT_EQ(count(Query{}.sl(0), kSl), 3u);
  EXPECT_EQ(count(Query{}.sl(2), kSl), 0u);
  EXPECT_EQ(count(Query{}.hop(0xff), kHop), 1u);
  // Scope alone, JoinState of the group (created full).
  EXPECT_EQ(count(Query{}.scope_state(0x50), kScope), 1u);
  EXPECT_EQ(count(Query{}.scope_state(0x21), kScope | kJoinState), 2u);
  EXPECT_EQ(count(Query{}.scope_state(0x22), kScope | kJoinState), 0u);
  EXPECT_EQ(count(Query{}.proxy(true), kProxy), 0u);
  EXPECT_EQ(count(Query{}.proxy(false), kProxy), 3u);
  // PacketLifeTime is never compared (OpenSM ignores it).
  EXPECT_EQ(count(Query{}.life(2, 3), kLifeSel | kLife), 3u);
}

TEST(McMemberRecord, MtuAndRateMatchBySelector) {
  auto rig = rig_with_partitions(kThreePartitions);
  const Lid ha = rig->lid_of("ha");
  const auto pkeys = [&](const Query& q, std::uint64_t mask) {
    std::set<std::uint16_t> out;
    auto a = rig->request(method::kGetTable, attr::kMcMemberRecord, q.b, mask, ha);
    if (a) {
      for (const McRec& r : records(*a))
        out.insert(r.pkey);
    }
    return out;
  };
  // Storage has MTU 4096 (5), the others 2048 (4).
  EXPECT_EQ(pkeys(Query{}.mtu(0, 4), kMtuSel | kMtu), (std::set<std::uint16_t>{0x8010}));
  EXPECT_EQ(pkeys(Query{}.mtu(1, 5), kMtuSel | kMtu), (std::set<std::uint16_t>{0xffff, 0x8020}));
  EXPECT_EQ(pkeys(Query{}.mtu(2, 5), kMtuSel | kMtu), (std::set<std::uint16_t>{0x8010}));
  EXPECT_EQ(pkeys(Query{}.mtu(3, 1), kMtuSel | kMtu).size(), 3u);
  // The value without its selector bit selects nothing (OpenSM tests the selector).
  EXPECT_EQ(pkeys(Query{}.mtu(2, 1), kMtu).size(), 3u);
  // Rates rank by bandwidth, not by enum: 10 Gb/s (3) is more than 5 Gb/s (5).
  EXPECT_EQ(pkeys(Query{}.rate(0, 5), kRateSel | kRate).size(), 3u);
  EXPECT_EQ(pkeys(Query{}.rate(1, 5), kRateSel | kRate).size(), 0u);
  // 40 Gb/s (7) is more than 14 Gb/s (11), which is more than 10 Gb/s (3).
  EXPECT_EQ(pkeys(Query{}.rate(0, 11), kRateSel | kRate), (std::set<std::uint16_t>{0x8010}));
  EXPECT_EQ(pkeys(Query{}.rate(2, 3), kRateSel | kRate), (std::set<std::uint16_t>{0xffff, 0x8020}));
}

TEST(McMemberRecord, InvalidMtuOrRateEnumIsReqInvalid) {
  auto rig = default_rig();
  const Lid ha = rig->lid_of("ha");
  for (const auto& [q, mask] :
       {std::pair{Query{}.mtu(2, 6), kMtuSel | kMtu}, std::pair{Query{}.mtu(2, 0), kMtuSel | kMtu},
        std::pair{Query{}.rate(2, 1), kRateSel | kRate},
        std::pair{Query{}.rate(2, 26), kRateSel | kRate}}) {  // 25: XDR 1600 Gb/s
    for (std::uint8_t m : {method::kGet, method::kGetTable}) {
      auto a = rig->request(m, attr::kMcMemberRecord, q.b, mask, ha);
      ASSERT_TRUE(a);
      EXPECT_EQ(a->header.status, status::kReqInvalid);
      EXPECT_EQ(a->header.attr_offset, 0);
      EXPECT_EQ(a->bytes.size(), 256u);
    }
  }
  // Only checked when both selector and value are given.
  auto a = rig->request(method::kGetTable, attr::kMcMemberRecord, Query{}.mtu(2, 7).b, kMtu, ha);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, 0);
  EXPECT_EQ(a->record_count(), 1u);
}

// Members come from joins (tests/unit/sa/mcast_join_test.cpp); here the group store
// is given members directly to pin how the query reports them.
class McMemberWithMembers : public ::testing::Test {
 protected:
  void SetUp() override {
    rig = default_rig();
    const auto& groups = rig->sa().state().mcast.groups();
    ASSERT_EQ(groups.size(), 1u);
    auto& members = rig->sa().state().mcast.find(groups.begin()->first)->members;
    members.push_back({port_gid(rig->port_guid_of("ha")), rig->port_guid_of("ha"), 0x1, false});
    members.push_back({port_gid(rig->port_guid_of("hb")), rig->port_guid_of("hb"), 0x1, false});
    members.push_back(
        {port_gid(rig->port_guid_of("hx", 2)), rig->port_guid_of("hx", 2), 0x8, true});
  }
  std::optional<SaRig::Answer> ask(std::uint8_t m, const Query& q, std::uint64_t mask,
                                   std::uint64_t key) {
    return rig->request(m, attr::kMcMemberRecord, q.b, mask, rig->lid_of("hc"), key);
  }
  std::unique_ptr<SaRig> rig;
};

TEST_F(McMemberWithMembers, TrustedTableWithoutPortGidListsEveryMember) {
  auto a = ask(method::kGetTable, Query{}, 0, /*key=*/1);
  ASSERT_TRUE(a);
  const auto recs = records(*a);
  ASSERT_EQ(recs.size(), 3u);
  std::set<std::pair<Gid16, std::uint8_t>> got;
  for (const McRec& r : recs) {
    EXPECT_EQ(r.mlid, 0xc000);
    EXPECT_EQ(r.mtu, 0x84);
    got.insert({r.port, r.scope_state});
    EXPECT_EQ(r.proxy, r.port == port_gid(rig->port_guid_of("hx", 2)) ? 0x01 : 0x00);
  }
  EXPECT_EQ(got, (std::set<std::pair<Gid16, std::uint8_t>>{
                     {port_gid(rig->port_guid_of("ha")), 0x21},
                     {port_gid(rig->port_guid_of("hb")), 0x21},
                     {port_gid(rig->port_guid_of("hx", 2)), 0x28}}));
  // JoinState in the mask picks members by their state.
  auto send_only = ask(method::kGetTable, Query{}.scope_state(0x08), kJoinState, 1);
  ASSERT_TRUE(send_only);
  ASSERT_EQ(send_only->record_count(), 1u);
  EXPECT_EQ(decode(send_only->record(0)).port, port_gid(rig->port_guid_of("hx", 2)));
}

TEST_F(McMemberWithMembers, UntrustedGetsOneZeroedRecordPerGroup) {
  auto a = ask(method::kGetTable, Query{}, 0, /*key=*/0);
  ASSERT_TRUE(a);
  const auto recs = records(*a);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].port, Gid16{});
  EXPECT_EQ(recs[0].scope_state, 0x20);
  EXPECT_EQ(recs[0].proxy, 0);
}

TEST_F(McMemberWithMembers, PortGidSelectsTheMember) {
  const Gid16 hx = port_gid(rig->port_guid_of("hx", 2));
  auto trusted = ask(method::kGet, Query{}.port(hx), kPortGid, 1);
  ASSERT_TRUE(trusted);
  EXPECT_EQ(trusted->header.status, 0);
  ASSERT_EQ(trusted->record_count(), 1u);
  const McRec t = decode(trusted->record(0));
  EXPECT_EQ(t.port, hx);
  EXPECT_EQ(t.scope_state, 0x28);
  EXPECT_EQ(t.proxy, 0x01);
  // Untrusted: found the same way, reported zeroed.
  auto untrusted = ask(method::kGet, Query{}.port(hx), kPortGid, 0);
  ASSERT_TRUE(untrusted);
  ASSERT_EQ(untrusted->record_count(), 1u);
  const McRec u = decode(untrusted->record(0));
  EXPECT_EQ(u.port, Gid16{});
  EXPECT_EQ(u.scope_state, 0x20);
  EXPECT_EQ(u.proxy, 0);
  // Members are found by GUID: the subnet prefix of the query does not matter.
  Gid16 other_prefix = hx;
  other_prefix[7] = 0x42;
  auto by_guid = ask(method::kGet, Query{}.port(other_prefix), kPortGid, 1);
  ASSERT_TRUE(by_guid);
  EXPECT_EQ(by_guid->header.status, 0);
  // A port that is no member: nothing.
  auto hc = ask(method::kGet, Query{}.port(port_gid(rig->port_guid_of("hc"))), kPortGid, 1);
  ASSERT_TRUE(hc);
  EXPECT_EQ(hc->header.status, status::kNoRecords);
  // The member's state must match a masked JoinState.
  auto wrong_state =
      ask(method::kGet, Query{}.port(hx).scope_state(0x01), kPortGid | kJoinState, 1);
  ASSERT_TRUE(wrong_state);
  EXPECT_EQ(wrong_state->header.status, status::kNoRecords);
}

TEST(McMemberRecord, SwitchRequesterUsesPortZeroKeys) {
  auto rig = rig_with_partitions(kThreePartitions);
  auto a = rig->request(method::kGetTable, attr::kMcMemberRecord, Query{}.b, 0, rig->lid_of("s1"));
  ASSERT_TRUE(a);
  // Switch port 0 is a full member of the default partition only.
  const auto recs = records(*a);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].pkey, 0xffff);
}

TEST(McMemberRecord, GetMultiIsNoMcMemberRecordMethod) {
  // Set and Delete (joins, leaves) are tested in mcast_join_test.cpp.
  auto rig = default_rig();
  const Query join = Query{}
                         .mgid(broadcast_mgid(0xffff))
                         .port(port_gid(rig->port_guid_of("ha")))
                         .pkey(0xffff)
                         .scope_state(0x01);
  const std::uint64_t mask = kMgid | kPortGid | kPKey | kJoinState;
  auto multi =
      rig->request(method::kGetMulti, attr::kMcMemberRecord, join.b, mask, rig->lid_of("ha"));
  ASSERT_TRUE(multi);
  EXPECT_EQ(multi->header.status, status::kMethodAttrUnsupported);
}

}  // namespace
}  // namespace ibsm::sa
