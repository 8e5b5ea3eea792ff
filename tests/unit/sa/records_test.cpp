// The topology records (PortInfo, SwitchInfo, LFT, MFT, SMInfo, Link, GUIDInfo)
// as a client sees them: requests built field by field from the record layouts,
// answers read back from the bytes the SA sent. Expected values come from the
// fabric the SM swept (the FakeFabric of the rig) and from OpenSM's rules.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "sa/record_layout.hpp"
#include "sa/records/record_util.hpp"
#include "sa/state.hpp"
#include "tests/unit/sa/sa_fixture.hpp"

namespace ibsm::sa {
namespace {

using satest::SaRig;

const Field& field_of(const RecordLayout& l, std::string_view name) {
  for (const Field& f : l.fields)
    if (f.name == name) return f;
  ADD_FAILURE() << l.name << " has no field " << name;
  static const Field none{};
  return none;
}

unsigned bit_of(const RecordLayout& l, std::string_view name) {
  for (std::size_t i = 0; i < l.fields.size(); ++i)
    if (l.fields[i].name == name) return static_cast<unsigned>(i);
  ADD_FAILURE() << l.name << " has no field " << name;
  return 63;
}

// A query record: fields set by name, each selecting its component-mask bit.
struct Query {
  explicit Query(std::uint16_t attr_id)
      : layout(*find_layout(attr_id)), bytes(layout.padded_size()) {}
  Query& set(std::string_view name, std::uint64_t v) {
    set_field(bytes, field_of(layout, name), v);
    mask |= 1ull << bit_of(layout, name);
    return *this;
  }
  // Sets a field's value without selecting it.
  Query& put(std::string_view name, std::uint64_t v) {
    set_field(bytes, field_of(layout, name), v);
    return *this;
  }
  const RecordLayout& layout;
  std::vector<std::uint8_t> bytes;
  std::uint64_t mask = 0;
};

std::uint64_t get(const RecordLayout& l, std::span<const std::uint8_t> rec, std::string_view name) {
  return get_field(rec, field_of(l, name));
}

struct Client {
  SaRig& rig;
  Lid slid;
  std::uint64_t sm_key = 0;
  std::uint32_t attr_mod = 0;

  std::optional<SaRig::Answer> send(std::uint8_t m, const Query& q) {
    return rig.request(m, q.layout.attr_id, q.bytes, q.mask, slid, sm_key, attr_mod);
  }
  // The records of a GetTable (fails the test when the SA says anything else).
  std::vector<std::vector<std::uint8_t>> table(const Query& q) {
    std::vector<std::vector<std::uint8_t>> out;
    auto a = send(method::kGetTable, q);
    EXPECT_TRUE(a) << "no answer";
    if (!a) return out;
    EXPECT_EQ(a->header.status, 0);
    EXPECT_EQ(a->header.method, method::kGetTableResp);
    if (a->record_count() != 0) {
      EXPECT_EQ(a->header.attr_offset, q.layout.words());
    }
    for (std::size_t i = 0; i < a->record_count(); ++i) {
      auto r = a->record(i);
      out.emplace_back(r.begin(), r.end());
    }
    return out;
  }
};

const sm::Node& node_named(const SaRig& rig, std::string_view name) {
  for (const auto& n : rig.sm->fabric().nodes())
    if (n.description == name) return n;
  ADD_FAILURE() << "no node " << name;
  return rig.sm->fabric().nodes().front();
}

std::uint32_t index_of(const SaRig& rig, std::string_view name) {
  const auto& nodes = rig.sm->fabric().nodes();
  for (std::uint32_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].description == name) return i;
  ADD_FAILURE() << "no node " << name;
  return 0;
}

// Publishes a changed copy of the rig's snapshot (what a later sweep would hand
// the SA), for states the FakeFabric does not produce.
void edit_snapshot(SaRig& rig, const std::function<void(Snapshot&)>& change) {
  auto copy = std::make_shared<Snapshot>(*rig.sa().snapshot());
  change(*copy);
  copy->index();
  rig.sa().publish(copy);
}

// The rig with no partitions.conf: everyone full in the default partition.
std::unique_ptr<SaRig> plain_rig(conf::Options o = {}) {
  o.partition_config_file = "/nonexistent/ibsm-test/partitions.conf";
  return std::make_unique<SaRig>(satest::kSmallNet, o);
}

// The rig whose SM reads `text` as partitions.conf. kSmallNet's port GUIDs:
// ha 0x100001 (the SM), hb 0x100003, hc 0x100005, hd 0x100007, hx 0x100009/0x10000a.
std::unique_ptr<SaRig> rig_with_partitions(const std::string& text, conf::Options o = {}) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("ibsm-records-" + std::to_string(::getpid()) + "-partitions.conf");
  std::ofstream(path) << text;
  o.partition_config_file = path.string();
  auto rig = std::make_unique<SaRig>(satest::kSmallNet, o);
  std::filesystem::remove(path);
  return rig;
}

// ---------------------------------------------------------------- layouts

TEST(TopologyLayouts, SizesAndBitsAreOpenSms) {
  struct Want {
    std::uint16_t attr;
    std::uint16_t size;
    std::uint16_t words;
    std::vector<std::pair<unsigned, std::string_view>> bits;  // IB_*_COMPMASK_* of ib_types.h
  };
  const std::vector<Want> want = {
      {attr::kPortInfoRecord,
       68,
       9,
       {{0, "EndportLID"},
        {1, "PortNum"},
        {2, "Options"},
        {3, "M_Key"},
        {5, "LID"},
        {7, "CapabilityMask"},
        {19, "Reserved19"},
        {20, "LMC"},
        {31, "MTUCap"},
        {43, "ClientReregister"},
        {45, "SubnetTimeOut"},
        {47, "RespTimeValue"},
        {52, "LinkRoundTripLatency"},
        {53, "CapabilityMask2"},
        {57, "LinkSpeedExtEnabled"}}},
      {attr::kSwitchInfoRecord, 24, 3, {{0, "LID"}, {1, "Reserved1"}, {5, "LinearFDBTop"}}},
      {attr::kLftRecord, 72, 9, {{0, "LID"}, {1, "BlockNum"}}},
      {attr::kMftRecord,
       72,
       9,
       {{0, "LID"}, {1, "Position"}, {2, "Reserved1"}, {3, "BlockNum"}, {4, "Reserved2"}}},
      {attr::kSmInfoRecord,
       25,
       4,
       {{0, "LID"}, {2, "GUID"}, {3, "SM_Key"}, {4, "ActCount"}, {5, "Priority"}, {6, "SMState"}}},
      {attr::kLinkRecord, 6, 1, {{0, "FromLID"}, {1, "FromPort"}, {2, "ToPort"}, {3, "ToLID"}}},
      {attr::kGuidInfoRecord, 72, 9, {{0, "LID"}, {1, "BlockNum"}, {4, "GUID0"}, {11, "GUID7"}}},
  };
  for (const Want& w : want) {
    const RecordLayout* l = find_layout(w.attr);
    ASSERT_NE(l, nullptr) << w.attr;
    EXPECT_EQ(l->size, w.size) << l->name;
    EXPECT_EQ(l->words(), w.words) << l->name;
    for (const auto& [bit, name] : w.bits) {
      ASSERT_LT(bit, l->fields.size()) << l->name;
      EXPECT_EQ(l->fields[bit].name, name) << l->name << " bit " << bit;
    }
  }
  // PortInfo sits at byte 4 of its record, as libibmad places its fields.
  EXPECT_EQ(field_of(*find_layout(attr::kPortInfoRecord), "CapabilityMask").bit_offset, 32 + 160);
  EXPECT_EQ(field_of(*find_layout(attr::kSwitchInfoRecord), "MulticastFDBTop").bit_offset,
            32 + 144);
}

// ---------------------------------------------------------------- PortInfoRecord

TEST(PortInfoRecord, OneEndPortByLidAndPortAsTheSmProgrammedIt) {
  auto rig = plain_rig();
  Client c{*rig, rig->lid_of("ha")};
  const RecordLayout& l = *find_layout(attr::kPortInfoRecord);
  const Lid hb = rig->lid_of("hb");
  auto recs = c.table(Query(attr::kPortInfoRecord).set("EndportLID", hb).set("PortNum", 1));
  ASSERT_EQ(recs.size(), 1u);
  const auto& r = recs[0];
  const mad::PortInfo& pi = node_named(*rig, "hb").ports[1].info;
  EXPECT_EQ(get(l, r, "EndportLID"), hb);
  EXPECT_EQ(get(l, r, "PortNum"), 1u);
  EXPECT_EQ(get(l, r, "LID"), hb);
  EXPECT_EQ(get(l, r, "MasterSMLID"), rig->lid_of("ha"));
  EXPECT_EQ(get(l, r, "PortState"), 4u);  // Active
  EXPECT_EQ(get(l, r, "CapabilityMask"), pi.capability_mask);
  EXPECT_EQ(get(l, r, "GidPrefix"), 0xfe80000000000000ull);
  EXPECT_EQ(get(l, r, "LinkWidthActive"), pi.link_width_active);
  EXPECT_EQ(get(l, r, "NeighborMTU"), pi.neighbor_mtu);
  EXPECT_EQ(get(l, r, "GUIDCap"), 1u);
  // A Get names exactly that record.
  auto a =
      c.send(method::kGet, Query(attr::kPortInfoRecord).set("EndportLID", hb).set("PortNum", 1));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetResp);
  EXPECT_EQ(a->header.status, 0);
  EXPECT_EQ(a->header.attr_offset, 9);
  EXPECT_EQ(std::vector<std::uint8_t>(a->record(0).begin(), a->record(0).end()), r);
}

TEST(PortInfoRecord, EverySwitchPortCarriesTheSwitchLid) {
  auto rig = plain_rig();
  Client c{*rig, rig->lid_of("ha")};
  const RecordLayout& l = *find_layout(attr::kPortInfoRecord);
  const Lid s1 = rig->lid_of("s1");
  auto recs = c.table(Query(attr::kPortInfoRecord).set("EndportLID", s1));
  ASSERT_EQ(recs.size(), 9u);  // ports 0..8
  for (std::size_t i = 0; i < recs.size(); ++i) {
    EXPECT_EQ(get(l, recs[i], "EndportLID"), s1);
    EXPECT_EQ(get(l, recs[i], "PortNum"), i);
  }
  // Ports 5-8 have no cable: the PortState component picks them out.
  auto down = c.table(Query(attr::kPortInfoRecord).set("EndportLID", s1).set("PortState", 1));
  ASSERT_EQ(down.size(), 4u);
  EXPECT_EQ(get(l, down[0], "PortNum"), 5u);
  // Of a Down port only the states are served (IBA C14-24-2.1, as OpenSM).
  EXPECT_EQ(get(l, down[0], "PortPhysicalState"), 2u);  // Polling
  EXPECT_EQ(get(l, down[0], "LinkWidthSupported"), 0u);
  EXPECT_EQ(get(l, down[0], "MTUCap"), 0u);
  EXPECT_EQ(get(l, down[0], "LocalPortNum"), 0u);
  // Two components at once: LinkWidthActive of the fake (4x) and PortState Active.
  auto up = c.table(Query(attr::kPortInfoRecord)
                        .set("EndportLID", s1)
                        .set("PortState", 4)
                        .set("LinkWidthActive", 2));
  EXPECT_EQ(up.size(), 5u);  // port 0 and the four cabled ports
  auto none = c.table(Query(attr::kPortInfoRecord)
                          .set("EndportLID", s1)
                          .set("PortState", 4)
                          .set("LinkWidthActive", 1));
  EXPECT_TRUE(none.empty());
}

TEST(PortInfoRecord, LidMatchesAnyLidOfTheLmcRange) {
  conf::Options o;
  o.lmc = 2;
  auto rig = plain_rig(o);
  Client c{*rig, rig->lid_of("ha")};
  const RecordLayout& l = *find_layout(attr::kPortInfoRecord);
  const Lid hb = rig->lid_of("hb");
  ASSERT_EQ(hb % 4, 0u);
  for (Lid lid = hb; lid < hb + 4; ++lid) {
    auto recs = c.table(Query(attr::kPortInfoRecord).set("EndportLID", lid).set("PortNum", 1));
    ASSERT_EQ(recs.size(), 1u) << lid;
    EXPECT_EQ(get(l, recs[0], "EndportLID"), hb);
    EXPECT_EQ(get(l, recs[0], "LMC"), 2u);
  }
  // The PortInfo LID component is the base LID itself.
  EXPECT_EQ(c.table(Query(attr::kPortInfoRecord).set("EndportLID", hb + 1).set("LID", hb)).size(),
            1u);
  EXPECT_TRUE(
      c.table(Query(attr::kPortInfoRecord).set("EndportLID", hb + 1).set("LID", hb + 1)).empty());
}

TEST(PortInfoRecord, CapabilityMaskMatchModeFindsTheSmPort) {
  auto rig = plain_rig();
  const RecordLayout& l = *find_layout(attr::kPortInfoRecord);
  // saquery -s: CapabilityMask = IsSM with AttributeModifier bit 31.
  Client c{*rig, rig->lid_of("hb"), 0, 1u << 31};
  auto sms = c.table(Query(attr::kPortInfoRecord).set("CapabilityMask", mad::kCapIsSm));
  ASSERT_EQ(sms.size(), 1u);
  EXPECT_EQ(get(l, sms[0], "EndportLID"), rig->lid_of("ha"));
  EXPECT_EQ(get(l, sms[0], "PortNum"), 1u);
  // IsSMdisabled (bit 10): nobody.
  EXPECT_TRUE(c.table(Query(attr::kPortInfoRecord).set("CapabilityMask", 1u << 10)).empty());
  // Without bit 31 the mask must be equal: IsSM alone matches no port...
  Client exact{*rig, rig->lid_of("hb")};
  EXPECT_TRUE(
      exact.table(Query(attr::kPortInfoRecord).set("CapabilityMask", mad::kCapIsSm)).empty());
  // ...and the SM port's whole mask matches it.
  const std::uint32_t ha_cap = node_named(*rig, "ha").ports[1].info.capability_mask;
  ASSERT_NE(ha_cap, mad::kCapIsSm);
  auto eq = exact.table(Query(attr::kPortInfoRecord).set("CapabilityMask", ha_cap));
  ASSERT_EQ(eq.size(), 1u);
  EXPECT_EQ(get(l, eq[0], "EndportLID"), rig->lid_of("ha"));
}

TEST(PortInfoRecord, CapabilityMask2MatchesBitwiseOnlyInMatchMode) {
  auto rig = plain_rig();
  const RecordLayout& l = *find_layout(attr::kPortInfoRecord);
  const std::uint32_t hc = index_of(*rig, "hc");
  edit_snapshot(*rig, [&](Snapshot& s) { s.nodes[hc].ports[1].info.capability_mask2 = 0x0012; });
  Client subset{*rig, rig->lid_of("ha"), 0, 1u << 31};
  auto recs = subset.table(Query(attr::kPortInfoRecord).set("CapabilityMask2", 0x0002));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(get(l, recs[0], "EndportLID"), rig->lid_of("hc"));
  Client exact{*rig, rig->lid_of("ha")};
  EXPECT_TRUE(exact.table(Query(attr::kPortInfoRecord).set("CapabilityMask2", 0x0002)).empty());
  EXPECT_EQ(exact.table(Query(attr::kPortInfoRecord).set("CapabilityMask2", 0x0012)).size(), 1u);
}

TEST(PortInfoRecord, MKeyOnlyForTrustedRequests) {
  auto rig = plain_rig();
  const RecordLayout& l = *find_layout(attr::kPortInfoRecord);
  const std::uint32_t hb = index_of(*rig, "hb");
  edit_snapshot(*rig, [&](Snapshot& s) { s.nodes[hb].ports[1].info.m_key = 0x1122334455667788; });
  const Query q = Query(attr::kPortInfoRecord).set("EndportLID", rig->lid_of("hb"));
  Client untrusted{*rig, rig->lid_of("ha")};
  auto u = untrusted.table(q);
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(get(l, u[0], "M_Key"), 0u);
  Client trusted{*rig, rig->lid_of("ha"), /*sm_key=*/1};
  auto t = trusted.table(q);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(get(l, t[0], "M_Key"), 0x1122334455667788u);
}

TEST(PortInfoRecord, ExtendedSpeedsFoldIntoTheLegacyFieldsUnlessOptionsSayRaw) {
  auto rig = plain_rig();
  const RecordLayout& l = *find_layout(attr::kPortInfoRecord);
  const std::uint32_t hb = index_of(*rig, "hb");
  edit_snapshot(*rig, [&](Snapshot& s) {
    mad::PortInfo& pi = s.nodes[hb].ports[1].info;
    pi.capability_mask |= 1u << 14;  // IsExtendedSpeedsSupported
    pi.link_speed_ext_active = 1;    // FDR
    pi.link_speed_ext_supported = 3;
  });
  Client c{*rig, rig->lid_of("ha")};
  auto folded = c.table(Query(attr::kPortInfoRecord).set("EndportLID", rig->lid_of("hb")));
  ASSERT_EQ(folded.size(), 1u);
  EXPECT_EQ(get(l, folded[0], "LinkSpeedActive"), 1u | 4u);
  EXPECT_EQ(get(l, folded[0], "LinkSpeedSupported"), 1u | 4u);
  EXPECT_EQ(get(l, folded[0], "LinkSpeedEnabled"), 1u | 4u);
  EXPECT_EQ(get(l, folded[0], "LinkSpeedExtActive"), 1u);
  auto raw = c.table(
      Query(attr::kPortInfoRecord).set("EndportLID", rig->lid_of("hb")).set("Options", 0x80));
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_EQ(get(l, raw[0], "LinkSpeedActive"), 1u);
  EXPECT_EQ(get(l, raw[0], "Options"), 0x80u);
  // Extended-speed components compare only on ports that have them (OpenSM).
  EXPECT_TRUE(c.table(Query(attr::kPortInfoRecord)
                          .set("EndportLID", rig->lid_of("hb"))
                          .set("LinkSpeedExtActive", 2))
                  .empty());
  EXPECT_EQ(c.table(Query(attr::kPortInfoRecord)
                        .set("EndportLID", rig->lid_of("hc"))
                        .set("LinkSpeedExtActive", 2))
                .size(),
            1u);
}

// Ports the file does not name in Default are limited members of it, so hd and
// hx are limited in 0x7fff only, hb is limited there and full in Storage (0x10),
// hc is full in both, the SM (ha) and the switches full in 0x7fff.
constexpr const char* kStorage =
    "Default=0x7fff : 0x100001=full, 0x100005=full, ALL_SWITCHES=full;\n"
    "Storage=0x0010 : 0x100003=full, 0x100005=full;\n";

TEST(PortInfoRecord, HiddenOutsideTheRequestersPartitionsUnlessTrusted) {
  auto rig = rig_with_partitions(kStorage);
  const RecordLayout& l = *find_layout(attr::kPortInfoRecord);
  const Query hb = Query(attr::kPortInfoRecord).set("EndportLID", rig->lid_of("hb"));
  // hd and hb share no P_Key with a full member on either side.
  Client hd{*rig, rig->lid_of("hd")};
  EXPECT_TRUE(hd.table(hb).empty());
  auto none = hd.send(method::kGet, hb);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->header.status, status::kNoRecords);
  Client hc{*rig, rig->lid_of("hc")};
  EXPECT_EQ(hc.table(hb).size(), 1u);
  Client trusted{*rig, rig->lid_of("hd"), 1};
  EXPECT_EQ(trusted.table(hb).size(), 1u);
  // A switch port is judged by its own P_Key table (OpenSM): s1 port 2 faces hb
  // and holds hb's keys under partition enforcement; port 1 faces the SM.
  const Lid s1 = rig->lid_of("s1");
  EXPECT_TRUE(
      hd.table(Query(attr::kPortInfoRecord).set("EndportLID", s1).set("PortNum", 2)).empty());
  EXPECT_EQ(hd.table(Query(attr::kPortInfoRecord).set("EndportLID", s1).set("PortNum", 1)).size(),
            1u);
  // The whole table from hd: what hd shares a partition with.
  std::set<Lid> lids;
  for (const auto& r : hd.table(Query(attr::kPortInfoRecord)))
    lids.insert(static_cast<Lid>(get(l, r, "EndportLID")));
  EXPECT_EQ(lids, (std::set<Lid>{rig->lid_of("ha"), rig->lid_of("hc"), rig->lid_of("hd"),
                                 rig->lid_of("s1"), rig->lid_of("s2")}));
}

TEST(PortInfoRecord, UnknownRequesterGetsNoAnswer) {
  auto rig = plain_rig();
  Client stranger{*rig, 0x0999};
  for (std::uint16_t a :
       {attr::kPortInfoRecord, attr::kSwitchInfoRecord, attr::kLftRecord, attr::kMftRecord,
        attr::kSmInfoRecord, attr::kLinkRecord, attr::kGuidInfoRecord})
    EXPECT_FALSE(stranger.send(method::kGetTable, Query(a))) << a;
}

// ---------------------------------------------------------------- SwitchInfoRecord

TEST(SwitchInfoRecord, ByLidAndWholeTableInOpenSmOrder) {
  auto rig = plain_rig();
  const RecordLayout& l = *find_layout(attr::kSwitchInfoRecord);
  Client c{*rig, rig->lid_of("ha")};
  const Lid s2 = rig->lid_of("s2");
  auto one = c.table(Query(attr::kSwitchInfoRecord).set("LID", s2));
  ASSERT_EQ(one.size(), 1u);
  const mad::SwitchInfo& si = *node_named(*rig, "s2").switch_info;
  EXPECT_EQ(get(l, one[0], "LID"), s2);
  EXPECT_EQ(get(l, one[0], "LinearFDBCap"), si.linear_fdb_cap);
  EXPECT_EQ(get(l, one[0], "MulticastFDBCap"), 256u);
  // LinearFDBTop as programmed: the highest LID routed.
  Lid max_lid = 0;
  for (const auto& n : rig->sm->fabric().nodes())
    for (const auto& p : n.ports)
      max_lid = std::max(max_lid, p.lid);
  EXPECT_EQ(get(l, one[0], "LinearFDBTop"), max_lid);
  auto all = c.table(Query(attr::kSwitchInfoRecord));
  ASSERT_EQ(all.size(), 2u);
  // OpenSM's switch table order: GUIDs compared in network byte order as host
  // integers; 0x200000 (s1) and its successor differ in the low byte, which leads.
  const Guid g1 = node_named(*rig, "s1").guid();
  const Guid g2 = node_named(*rig, "s2").guid();
  const bool s1_first = (g1 & 0xff) < (g2 & 0xff);
  EXPECT_EQ(get(l, all[0], "LID"), rig->lid_of(s1_first ? "s1" : "s2"));
  // A LID component of 0 matches no switch; other components compare.
  EXPECT_TRUE(c.table(Query(attr::kSwitchInfoRecord).set("LID", 0)).empty());
  EXPECT_EQ(c.table(Query(attr::kSwitchInfoRecord).set("MulticastFDBCap", 256)).size(), 2u);
  EXPECT_TRUE(c.table(Query(attr::kSwitchInfoRecord).set("MulticastFDBCap", 255)).empty());
  auto many = c.send(method::kGet, Query(attr::kSwitchInfoRecord));
  ASSERT_TRUE(many);
  EXPECT_EQ(many->header.status, status::kTooManyRecords);
}

// ---------------------------------------------------------------- LFTRecord

TEST(LftRecord, BlocksUpToLinearFdbTopAsRouted) {
  auto rig = plain_rig();
  const RecordLayout& l = *find_layout(attr::kLftRecord);
  Client c{*rig, rig->lid_of("hd")};
  const Lid s1 = rig->lid_of("s1");
  auto recs = c.table(Query(attr::kLftRecord).set("LID", s1).set("BlockNum", 0));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(get(l, recs[0], "LID"), s1);
  EXPECT_EQ(get(l, recs[0], "BlockNum"), 0u);
  auto port_for = [&](Lid lid) { return recs[0][8 + lid]; };
  EXPECT_EQ(port_for(rig->lid_of("ha")), 1u);
  EXPECT_EQ(port_for(rig->lid_of("hb")), 2u);
  EXPECT_EQ(port_for(rig->lid_of("hc")), 3u);
  EXPECT_EQ(port_for(rig->lid_of("hx", 1)), 4u);
  EXPECT_EQ(port_for(s1), 0u);
  EXPECT_EQ(port_for(0), 0xFFu);  // LID 0 has no route
  EXPECT_EQ(port_for(63), 0xFFu);
  // The small fabric fits block 0: there is no block 1, and the LID alone
  // lists block 0 only.
  EXPECT_TRUE(c.table(Query(attr::kLftRecord).set("LID", s1).set("BlockNum", 1)).empty());
  EXPECT_EQ(c.table(Query(attr::kLftRecord).set("LID", s1)).size(), 1u);
  EXPECT_EQ(c.table(Query(attr::kLftRecord)).size(), 2u);
}

TEST(LftRecord, LargerTopListsMoreBlocks) {
  auto rig = plain_rig();
  const std::uint32_t s1 = index_of(*rig, "s1");
  edit_snapshot(*rig, [&](Snapshot& s) {
    s.nodes[s1].switch_info->linear_fdb_top = 130;
    s.nodes[s1].lft.resize(131, 0xFF);
    s.nodes[s1].lft[130] = 7;
  });
  const RecordLayout& l = *find_layout(attr::kLftRecord);
  Client c{*rig, rig->lid_of("ha")};
  auto recs = c.table(Query(attr::kLftRecord).set("LID", rig->lid_of("s1")));
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(get(l, recs[2], "BlockNum"), 2u);
  EXPECT_EQ(recs[2][8 + 2], 7u);  // LID 130 = block 2, entry 2
  EXPECT_EQ(recs[2][8 + 3], 0xFFu);
}

// ---------------------------------------------------------------- MFTRecord

TEST(MftRecord, NoneUntilAMulticastTreeIsProgrammed) {
  auto rig = plain_rig();
  Client c{*rig, rig->lid_of("ha")};
  EXPECT_TRUE(c.table(Query(attr::kMftRecord)).empty());
}

TEST(MftRecord, BlocksAndPositionsOfTheSwitchTable) {
  auto rig = plain_rig();
  const std::uint32_t s1 = index_of(*rig, "s1");
  // s1 has 8 ports: one position (ports 0-15). MLIDs 0xC000 and 0xC021: blocks 0 and 1.
  edit_snapshot(*rig, [&](Snapshot& s) {
    SnapNode& n = s.nodes[s1];
    ASSERT_EQ(n.mft_positions(), 1u);
    n.mft.assign(64, 0);
    n.mft[0x00] = 0x0006;  // ports 1, 2
    n.mft[0x21] = 0x0011;  // ports 0, 4
  });
  const RecordLayout& l = *find_layout(attr::kMftRecord);
  Client c{*rig, rig->lid_of("hb")};
  const Lid lid = rig->lid_of("s1");
  auto recs = c.table(Query(attr::kMftRecord).set("LID", lid));
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(get(l, recs[0], "BlockNum"), 0u);
  EXPECT_EQ(get(l, recs[0], "Position"), 0u);
  EXPECT_EQ(get_be(recs[0], 8, 2), 0x0006u);
  EXPECT_EQ(get(l, recs[1], "BlockNum"), 1u);
  EXPECT_EQ(get_be(recs[1], 8 + 2 * 1, 2), 0x0011u);
  auto block1 = c.table(Query(attr::kMftRecord).set("LID", lid).set("BlockNum", 1));
  ASSERT_EQ(block1.size(), 1u);
  EXPECT_EQ(block1[0], recs[1]);
  EXPECT_TRUE(c.table(Query(attr::kMftRecord).set("LID", lid).set("BlockNum", 2)).empty());
  EXPECT_TRUE(c.table(Query(attr::kMftRecord).set("LID", lid).set("Position", 1)).empty());
  // s2 forwards nothing: no records for it.
  EXPECT_TRUE(c.table(Query(attr::kMftRecord).set("LID", rig->lid_of("s2"))).empty());
}

// ---------------------------------------------------------------- SMInfoRecord

TEST(SmInfoRecord, TheMasterItselfWithItsKeyOnlyForTrustedRequests) {
  conf::Options o;
  o.sm_key = 0xabcdef;
  o.sm_priority = 5;
  auto rig = plain_rig(o);
  const RecordLayout& l = *find_layout(attr::kSmInfoRecord);
  Client c{*rig, rig->lid_of("hc")};
  auto recs = c.table(Query(attr::kSmInfoRecord));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(get(l, recs[0], "LID"), rig->lid_of("ha"));
  EXPECT_EQ(get(l, recs[0], "GUID"), rig->port_guid_of("ha"));
  EXPECT_EQ(get(l, recs[0], "SM_Key"), 0u);
  EXPECT_EQ(get(l, recs[0], "Priority"), 5u);
  EXPECT_EQ(get(l, recs[0], "SMState"), 3u);  // MASTER
  Client trusted{*rig, rig->lid_of("hc"), 1};
  auto t = trusted.table(Query(attr::kSmInfoRecord));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(get(l, t[0], "SM_Key"), 0xabcdefu);
  // By LID: the SM's port, not another one.
  EXPECT_EQ(c.table(Query(attr::kSmInfoRecord).set("LID", rig->lid_of("ha"))).size(), 1u);
  EXPECT_TRUE(c.table(Query(attr::kSmInfoRecord).set("LID", rig->lid_of("hb"))).empty());
  EXPECT_TRUE(c.table(Query(attr::kSmInfoRecord).set("LID", 0x0999)).empty());
  EXPECT_TRUE(c.table(Query(attr::kSmInfoRecord).set("SMState", 2)).empty());
  EXPECT_EQ(c.table(Query(attr::kSmInfoRecord).set("Priority", 5).set("SMState", 3)).size(), 1u);
}

TEST(SmInfoRecord, OtherKnownSmsFollowTheMaster) {
  auto rig = plain_rig();
  const RecordLayout& l = *find_layout(attr::kSmInfoRecord);
  const std::uint32_t hd = index_of(*rig, "hd");
  edit_snapshot(*rig, [&](Snapshot& s) {
    SnapSm standby;
    standby.port = PortRef{hd, 1};
    standby.lid = s.nodes[hd].ports[1].lid;
    standby.guid = s.nodes[hd].ports[1].guid;
    standby.priority = 3;
    standby.state = mad::SmState::kStandby;
    s.sms.push_back(standby);
  });
  Client c{*rig, rig->lid_of("hb")};
  auto all = c.table(Query(attr::kSmInfoRecord));
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(get(l, all[0], "GUID"), rig->port_guid_of("ha"));
  EXPECT_EQ(get(l, all[1], "GUID"), rig->port_guid_of("hd"));
  EXPECT_EQ(get(l, all[1], "SMState"), 2u);
  auto by_lid = c.table(Query(attr::kSmInfoRecord).set("LID", rig->lid_of("hd")));
  ASSERT_EQ(by_lid.size(), 1u);
  EXPECT_EQ(get(l, by_lid[0], "LID"), rig->lid_of("hd"));
  auto standby = c.table(Query(attr::kSmInfoRecord).set("SMState", 2));
  ASSERT_EQ(standby.size(), 1u);
  EXPECT_EQ(get(l, standby[0], "Priority"), 3u);
}

TEST(SmInfoRecord, RequesterOutsideTheMastersPartitionsGetsNoAnswer) {
  auto rig = rig_with_partitions(kStorage);
  // A port in Storage only (every port the SM programs keeps Default, so the
  // snapshot is changed the way a port of a foreign SM's subnet could look).
  const std::uint32_t hb = index_of(*rig, "hb");
  edit_snapshot(*rig, [&](Snapshot& s) { s.nodes[hb].ports[1].pkeys = {0x8010}; });
  Client c{*rig, rig->lid_of("hb")};
  EXPECT_FALSE(c.send(method::kGetTable, Query(attr::kSmInfoRecord)));
  Client trusted{*rig, rig->lid_of("hb"), 1};
  EXPECT_EQ(trusted.table(Query(attr::kSmInfoRecord)).size(), 1u);
  Client hc{*rig, rig->lid_of("hc")};
  EXPECT_EQ(hc.table(Query(attr::kSmInfoRecord)).size(), 1u);
}

// ---------------------------------------------------------------- LinkRecord

TEST(LinkRecord, FromAPortToAPortAndWholeFabric) {
  auto rig = plain_rig();
  const RecordLayout& l = *find_layout(attr::kLinkRecord);
  Client c{*rig, rig->lid_of("ha")};
  const Lid hb = rig->lid_of("hb");
  const Lid s1 = rig->lid_of("s1");
  auto one = c.table(Query(attr::kLinkRecord).set("FromLID", hb).set("FromPort", 1));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(get(l, one[0], "FromLID"), hb);
  EXPECT_EQ(get(l, one[0], "FromPort"), 1u);
  EXPECT_EQ(get(l, one[0], "ToPort"), 2u);
  EXPECT_EQ(get(l, one[0], "ToLID"), s1);
  // Into hb: the other direction.
  auto into = c.table(Query(attr::kLinkRecord).set("ToLID", hb));
  ASSERT_EQ(into.size(), 1u);
  EXPECT_EQ(get(l, into[0], "FromLID"), s1);
  EXPECT_EQ(get(l, into[0], "FromPort"), 2u);
  // From s1: its four cabled ports.
  auto from_s1 = c.table(Query(attr::kLinkRecord).set("FromLID", s1));
  ASSERT_EQ(from_s1.size(), 4u);
  std::set<std::uint64_t> to_lids;
  for (const auto& r : from_s1)
    to_lids.insert(get(l, r, "ToLID"));
  EXPECT_EQ(to_lids, (std::set<std::uint64_t>{rig->lid_of("ha"), hb, rig->lid_of("s2"),
                                              rig->lid_of("hx", 1)}));
  // Both ends: the inter-switch link, once per direction asked.
  auto isl = c.table(Query(attr::kLinkRecord).set("FromLID", s1).set("ToLID", rig->lid_of("s2")));
  ASSERT_EQ(isl.size(), 1u);
  EXPECT_EQ(get(l, isl[0], "FromPort"), 3u);
  EXPECT_EQ(get(l, isl[0], "ToPort"), 3u);
  // Seven cables, two directions each.
  EXPECT_EQ(c.table(Query(attr::kLinkRecord)).size(), 14u);
  // An unknown LID: an empty table, NO_RECORDS for a Get.
  EXPECT_TRUE(c.table(Query(attr::kLinkRecord).set("FromLID", 0x0999)).empty());
  auto get_none = c.send(method::kGet, Query(attr::kLinkRecord).set("FromLID", 0x0999));
  ASSERT_TRUE(get_none);
  EXPECT_EQ(get_none->header.status, status::kNoRecords);
  EXPECT_EQ(get_none->header.method, method::kGetResp);
}

TEST(LinkRecord, LidsOfAnLmcRangeNameTheirPort) {
  conf::Options o;
  o.lmc = 1;
  auto rig = plain_rig(o);
  const RecordLayout& l = *find_layout(attr::kLinkRecord);
  Client c{*rig, rig->lid_of("ha")};
  const Lid hb = rig->lid_of("hb");
  auto recs = c.table(Query(attr::kLinkRecord).set("FromLID", hb + 1));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(get(l, recs[0], "FromLID"), hb);
  EXPECT_EQ(c.table(Query(attr::kLinkRecord).set("ToLID", hb + 1)).size(), 1u);
}

TEST(LinkRecord, LinksToPortsOutsideThePartitionAreHidden) {
  auto rig = rig_with_partitions(kStorage);
  const RecordLayout& l = *find_layout(attr::kLinkRecord);
  Client hd{*rig, rig->lid_of("hd")};
  // hd shares nothing with hb: neither direction of hb's cable.
  EXPECT_TRUE(hd.table(Query(attr::kLinkRecord).set("FromLID", rig->lid_of("hb"))).empty());
  EXPECT_TRUE(hd.table(Query(attr::kLinkRecord).set("ToLID", rig->lid_of("hb"))).empty());
  // Of s1's four cables hd sees those to ha and s2 (hb and hx are limited like hd).
  std::set<std::uint64_t> to;
  for (const auto& r : hd.table(Query(attr::kLinkRecord).set("FromLID", rig->lid_of("s1"))))
    to.insert(get(l, r, "ToLID"));
  EXPECT_EQ(to, (std::set<std::uint64_t>{rig->lid_of("ha"), rig->lid_of("s2")}));
  Client trusted{*rig, rig->lid_of("hd"), 1};
  EXPECT_EQ(trusted.table(Query(attr::kLinkRecord).set("FromLID", rig->lid_of("s1"))).size(), 4u);
  Client hc{*rig, rig->lid_of("hc")};
  EXPECT_EQ(hc.table(Query(attr::kLinkRecord).set("FromLID", rig->lid_of("hb"))).size(), 1u);
}

// ---------------------------------------------------------------- GUIDInfoRecord

TEST(GuidInfoRecord, BlockZeroHoldsThePortGuid) {
  auto rig = plain_rig();
  const RecordLayout& l = *find_layout(attr::kGuidInfoRecord);
  Client c{*rig, rig->lid_of("ha")};
  const Lid hb = rig->lid_of("hb");
  auto recs = c.table(Query(attr::kGuidInfoRecord).set("LID", hb).set("BlockNum", 0));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(get(l, recs[0], "LID"), hb);
  EXPECT_EQ(get(l, recs[0], "BlockNum"), 0u);
  EXPECT_EQ(get(l, recs[0], "GUID0"), rig->port_guid_of("hb"));
  EXPECT_EQ(get(l, recs[0], "GUID1"), 0u);
  // GUIDCap 1: one block only.
  EXPECT_TRUE(c.table(Query(attr::kGuidInfoRecord).set("LID", hb).set("BlockNum", 1)).empty());
  // Every end port and every switch's port 0.
  EXPECT_EQ(c.table(Query(attr::kGuidInfoRecord)).size(), 8u);
  // GUID0 of block 0 must be the requester's own GUID and then selects its port.
  auto mine = c.table(Query(attr::kGuidInfoRecord).set("GUID0", rig->port_guid_of("ha")));
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(get(l, mine[0], "LID"), rig->lid_of("ha"));
  EXPECT_TRUE(c.table(Query(attr::kGuidInfoRecord).set("GUID0", rig->port_guid_of("hb"))).empty());
}

// hb's port with room for 16 GUIDs (two blocks), as an SR-IOV HCA has.
std::unique_ptr<SaRig> alias_rig(conf::Options o = {}) {
  auto rig = plain_rig(o);
  const std::uint32_t hb = index_of(*rig, "hb");
  edit_snapshot(*rig, [&](Snapshot& s) { s.nodes[hb].ports[1].info.guid_cap = 16; });
  return rig;
}

GuidBlock guids_of(const RecordLayout& l, std::span<const std::uint8_t> rec) {
  GuidBlock b{};
  for (std::size_t i = 0; i < kGuidsPerBlock; ++i)
    b[i] = get(l, rec, "GUID" + std::to_string(i));
  return b;
}

TEST(GuidInfoRecord, SetAssignsAliasesAndGetShowsThem) {
  conf::Options o;
  o.sm_assigned_guid = 0x5a;
  auto rig = alias_rig(o);
  const RecordLayout& l = *find_layout(attr::kGuidInfoRecord);
  Client c{*rig, rig->lid_of("hb")};
  const Lid hb = rig->lid_of("hb");
  const Guid base = rig->port_guid_of("hb");
  auto a = c.send(method::kSet, Query(attr::kGuidInfoRecord)
                                    .set("LID", hb)
                                    .set("BlockNum", 0)
                                    .set("GUID1", 0x0002c90300001111)
                                    .set("GUID2", 0));  // the SA chooses
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetResp);
  EXPECT_EQ(a->header.status, 0);
  ASSERT_EQ(a->record_count(), 1u);
  const GuidBlock want{base, 0x0002c90300001111, 0x0014055a00000001, 0, 0, 0, 0, 0};
  EXPECT_EQ(guids_of(l, a->record(0)), want);
  EXPECT_EQ(get(l, a->record(0), "LID"), hb);
  // Get shows the table; block 1 exists now that GUIDCap is 16.
  Client other{*rig, rig->lid_of("hc")};
  auto b0 = other.table(Query(attr::kGuidInfoRecord).set("LID", hb).set("BlockNum", 0));
  ASSERT_EQ(b0.size(), 1u);
  EXPECT_EQ(guids_of(l, b0[0]), want);
  EXPECT_EQ(other.table(Query(attr::kGuidInfoRecord).set("LID", hb)).size(), 2u);
  // What the SM must program into the port.
  auto pending = rig->sa().state().aliases.take_pending();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].port_guid, base);
  EXPECT_EQ(pending[0].block, 0u);
  EXPECT_EQ(pending[0].guids, want);
  EXPECT_EQ(rig->sa().state().aliases.port_of(0x0002c90300001111), base);
  EXPECT_TRUE(rig->sa().state().aliases.take_pending().empty());
}

TEST(GuidInfoRecord, SetRules) {
  auto rig = alias_rig();
  const RecordLayout& l = *find_layout(attr::kGuidInfoRecord);
  Client c{*rig, rig->lid_of("hb")};
  const Lid hb = rig->lid_of("hb");
  // Index 0 is the port GUID: read-only.
  auto ro =
      c.send(method::kSet,
             Query(attr::kGuidInfoRecord).set("LID", hb).set("BlockNum", 0).set("GUID0", 0x1234));
  ASSERT_TRUE(ro);
  EXPECT_EQ(ro->header.status, status::kReqInvalid);
  // LID and BlockNum are required.
  auto insufficient =
      c.send(method::kSet, Query(attr::kGuidInfoRecord).set("LID", hb).set("GUID1", 5));
  ASSERT_TRUE(insufficient);
  EXPECT_EQ(insufficient->header.status, status::kInsufficientComponents);
  // Beyond GUIDCap, or an unknown LID: no record.
  auto far = c.send(method::kSet,
                    Query(attr::kGuidInfoRecord).set("LID", hb).set("BlockNum", 2).set("GUID1", 5));
  ASSERT_TRUE(far);
  EXPECT_EQ(far->header.status, status::kNoRecords);
  auto nobody =
      c.send(method::kSet,
             Query(attr::kGuidInfoRecord).set("LID", 0x0999).set("BlockNum", 0).set("GUID1", 5));
  ASSERT_TRUE(nobody);
  EXPECT_EQ(nobody->header.status, status::kNoRecords);
  // A GUID some port already has is not taken.
  auto dup = c.send(method::kSet, Query(attr::kGuidInfoRecord)
                                      .set("LID", hb)
                                      .set("BlockNum", 1)
                                      .set("GUID0", rig->port_guid_of("hc"))
                                      .set("GUID3", 0x77));
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->header.status, 0);
  EXPECT_EQ(get(l, dup->record(0), "BlockNum"), 1u);
  EXPECT_EQ(get(l, dup->record(0), "GUID0"), 0u);
  EXPECT_EQ(get(l, dup->record(0), "GUID3"), 0x77u);
  // ... nor one that is already an alias elsewhere.
  auto twice =
      c.send(method::kSet,
             Query(attr::kGuidInfoRecord).set("LID", hb).set("BlockNum", 1).set("GUID4", 0x77));
  ASSERT_TRUE(twice);
  EXPECT_EQ(get(l, twice->record(0), "GUID4"), 0u);
  EXPECT_EQ(get(l, twice->record(0), "GUID3"), 0x77u);
}

TEST(GuidInfoRecord, DeleteClearsAndTheSaKeepsItsChoiceForTheIndex) {
  auto rig = alias_rig();
  const RecordLayout& l = *find_layout(attr::kGuidInfoRecord);
  Client c{*rig, rig->lid_of("hb")};
  const Lid hb = rig->lid_of("hb");
  auto q = [&] { return Query(attr::kGuidInfoRecord).set("LID", hb).set("BlockNum", 0); };
  auto set = c.send(method::kSet, q().set("GUID5", 0));
  ASSERT_TRUE(set);
  const Guid chosen = get(l, set->record(0), "GUID5");
  EXPECT_EQ(chosen >> 40, 0x001405u);
  auto del = c.send(method::kDelete, q().set("GUID5", 0));
  ASSERT_TRUE(del);
  EXPECT_EQ(del->header.method, method::kDeleteResp);
  EXPECT_EQ(del->header.status, 0);
  EXPECT_EQ(get(l, del->record(0), "GUID5"), 0u);
  EXPECT_EQ(rig->sa().state().aliases.port_of(chosen), 0u);
  auto again = c.send(method::kSet, q().set("GUID5", 0));
  ASSERT_TRUE(again);
  EXPECT_EQ(get(l, again->record(0), "GUID5"), chosen);
  // Deleting the port GUID is refused.
  auto ro = c.send(method::kDelete, q().set("GUID0", 0));
  ASSERT_TRUE(ro);
  EXPECT_EQ(ro->header.status, status::kReqInvalid);
}

TEST(GuidInfoRecord, AnAliasAGroupHoldsCannotBeDeleted) {
  auto rig = alias_rig();
  const RecordLayout& l = *find_layout(attr::kGuidInfoRecord);
  Client c{*rig, rig->lid_of("hb")};
  const Lid hb = rig->lid_of("hb");
  auto q = [&] { return Query(attr::kGuidInfoRecord).set("LID", hb).set("BlockNum", 0); };
  ASSERT_TRUE(c.send(method::kSet, q().set("GUID1", 0xa1a1)));
  {
    // A group (in the SA's group store, where joins put members) holding the alias.
    McGroupRec g;
    g.mgid = Gid{0xff, 0x15, 0x40, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x42};
    McMember m;
    m.port_gid = make_gid(rig->sa().snapshot()->subnet_prefix, 0xa1a1);
    m.port_guid = rig->port_guid_of("hb");
    m.join_state = 1;
    g.members.push_back(m);
    ASSERT_NE(rig->sa().state().mcast.create(g), nullptr);
  }
  auto denied = c.send(method::kDelete, q().set("GUID1", 0));
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->header.status, status::kReqDenied);
  auto b = c.table(q());
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(get(l, b[0], "GUID1"), 0xa1a1u);
}

}  // namespace
}  // namespace ibsm::sa
