// Attribute codecs: golden bytes written by hand from the IBA layouts (vol. 1,
// 14.2.5.x; byte offsets in the comments), decode of short or garbage input, and a
// round-trip fuzz per attribute (random bytes -> decode -> encode -> decode is stable).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "mad/attr/forwarding_table.hpp"
#include "mad/attr/guid_info.hpp"
#include "mad/attr/mft_block.hpp"
#include "mad/attr/node_description.hpp"
#include "mad/attr/node_info.hpp"
#include "mad/attr/notice.hpp"
#include "mad/attr/pkey_table.hpp"
#include "mad/attr/port_info.hpp"
#include "mad/attr/sm_info.hpp"
#include "mad/attr/switch_info.hpp"

namespace ibsm::mad {
namespace {

using Bytes = std::array<std::uint8_t, kSmpDataSize>;

template <class A>
Bytes encoded(const A& a) {
  Bytes b{};
  b.fill(0xEE);  // encode must clear what it does not write
  encode(a, Payload(b));
  return b;
}

// Writes `v` at [off, off + n) big-endian.
void put(Bytes& b, std::size_t off, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    b[off + i] = static_cast<std::uint8_t>(v >> (8 * (n - 1 - i)));
}

std::string hex(const Bytes& b) {
  std::string s;
  char buf[4];
  for (std::size_t i = 0; i < b.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    s += buf;
    s += (i % 16 == 15) ? '\n' : ' ';
  }
  return s;
}

// ---------------------------------------------------------------- NodeInfo

NodeInfo sample_node_info() {
  NodeInfo n;
  n.base_version = 1;
  n.class_version = 1;
  n.node_type = NodeType::kSwitch;
  n.num_ports = 36;
  n.system_image_guid = 0x0002c90300001111ULL;
  n.node_guid = 0x0002c90300002222ULL;
  n.port_guid = 0x0002c90300003333ULL;
  n.partition_cap = 8;
  n.device_id = 0xb924;
  n.revision = 0xa0;
  n.local_port_num = 5;
  n.vendor_id = 0x0002c9;
  return n;
}

Bytes node_info_golden() {
  Bytes b{};
  b[0] = 1;                              // BaseVersion
  b[1] = 1;                              // ClassVersion
  b[2] = 2;                              // NodeType: switch
  b[3] = 36;                             // NumPorts
  put(b, 4, 0x0002c90300001111ULL, 8);   // SystemImageGUID
  put(b, 12, 0x0002c90300002222ULL, 8);  // NodeGUID
  put(b, 20, 0x0002c90300003333ULL, 8);  // PortGUID
  put(b, 28, 8, 2);                      // PartitionCap
  put(b, 30, 0xb924, 2);                 // DeviceID
  put(b, 32, 0xa0, 4);                   // Revision
  b[36] = 5;                             // LocalPortNum
  put(b, 37, 0x0002c9, 3);               // VendorID
  return b;
}

TEST(NodeInfoCodec, EncodesIbaLayout) {
  EXPECT_EQ(hex(encoded(sample_node_info())), hex(node_info_golden()));
}

TEST(NodeInfoCodec, DecodesIbaLayout) {
  const Bytes b = node_info_golden();
  auto n = decode<NodeInfo>(b);
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(n->node_type, NodeType::kSwitch);
  EXPECT_EQ(n->num_ports, 36);
  EXPECT_EQ(n->system_image_guid, 0x0002c90300001111ULL);
  EXPECT_EQ(n->node_guid, 0x0002c90300002222ULL);
  EXPECT_EQ(n->port_guid, 0x0002c90300003333ULL);
  EXPECT_EQ(n->partition_cap, 8);
  EXPECT_EQ(n->device_id, 0xb924);
  EXPECT_EQ(n->revision, 0xa0u);
  EXPECT_EQ(n->local_port_num, 5);
  EXPECT_EQ(n->vendor_id, 0x0002c9u);
}

TEST(NodeInfoCodec, RejectsValuesIbaForbids) {
  auto with = [](auto edit) {
    Bytes b = node_info_golden();
    edit(b);
    return decode<NodeInfo>(b);
  };
  auto bad_type = with([](Bytes& b) { b[2] = 7; });
  ASSERT_FALSE(bad_type.ok());
  EXPECT_EQ(bad_type.error().id, kErrInvalidAttribute);
  EXPECT_FALSE(with([](Bytes& b) { b[3] = 0; }).ok());                      // NumPorts 0
  EXPECT_FALSE(with([](Bytes& b) { put(b, 12, 0, 8); }).ok());              // NodeGUID 0
  EXPECT_FALSE(with([](Bytes& b) { put(b, 20, 0, 8); }).ok());              // PortGUID 0
  EXPECT_FALSE(with([](Bytes& b) { b[36] = 37; }).ok());                    // switch port > N
  EXPECT_FALSE(with([](Bytes& b) { b[2] = 1, b[36] = 0; }).ok());           // CA port 0
  EXPECT_TRUE(with([](Bytes& b) { b[2] = 1, b[3] = 2, b[36] = 2; }).ok());  // CA port 2 of 2
}

// ---------------------------------------------------------------- PortInfo

PortInfo sample_port_info() {
  PortInfo p;
  p.m_key = 0x0102030405060708ULL;
  p.gid_prefix = 0xfe80000000000000ULL;
  p.lid = 0x0012;
  p.master_sm_lid = 0x0001;
  p.capability_mask = 0x02010048;
  p.m_key_lease_period = 0x003c;
  p.local_port_num = 3;
  p.link_width_enabled = 3;
  p.link_width_supported = 3;
  p.link_width_active = 2;
  p.link_speed_supported = 1;
  p.port_state = PortState::kActive;
  p.phys_state = PhysState::kLinkUp;
  p.link_down_default_state = 2;
  p.m_key_protect_bits = 1;
  p.lmc = 2;
  p.link_speed_active = 1;
  p.link_speed_enabled = 1;
  p.neighbor_mtu = 4;
  p.vl_cap = 3;
  p.vl_arbitration_high_cap = 8;
  p.vl_arbitration_low_cap = 8;
  p.mtu_cap = 5;
  p.vl_stall_count = 7;
  p.hoq_life = 0x12;
  p.operational_vls = 3;
  p.partition_enforcement_inbound = true;
  p.partition_enforcement_outbound = true;
  p.m_key_violations = 1;
  p.p_key_violations = 2;
  p.q_key_violations = 3;
  p.guid_cap = 0x20;
  p.client_reregister = true;
  p.subnet_timeout = 18;
  p.resp_time_value = 0x10;
  p.local_phy_errors = 8;
  p.overrun_errors = 8;
  p.max_credit_hint = 0x0100;
  p.link_round_trip_latency = 0x123456;
  p.capability_mask2 = 0x0034;
  p.link_speed_ext_supported = 1;
  p.link_speed_ext_enabled = 0x1e;
  return p;
}

Bytes port_info_golden() {
  Bytes b{};
  put(b, 0, 0x0102030405060708ULL, 8);  // M_Key
  put(b, 8, 0xfe80000000000000ULL, 8);  // GidPrefix
  put(b, 16, 0x0012, 2);                // LID
  put(b, 18, 0x0001, 2);                // MasterSMLID
  put(b, 20, 0x02010048, 4);            // CapabilityMask
  put(b, 26, 0x003c, 2);                // M_KeyLeasePeriod (DiagCode 24-25 = 0)
  b[28] = 3;                            // LocalPortNum
  b[29] = 3;                            // LinkWidthEnabled
  b[30] = 3;                            // LinkWidthSupported
  b[31] = 2;                            // LinkWidthActive
  b[32] = 0x14;                         // LinkSpeedSupported 1 | PortState 4
  b[33] = 0x52;                         // PortPhysicalState 5 | LinkDownDefaultState 2
  b[34] = 0x42;                         // M_KeyProtectBits 1 | (3 reserved) | LMC 2
  b[35] = 0x11;                         // LinkSpeedActive 1 | LinkSpeedEnabled 1
  b[36] = 0x40;                         // NeighborMTU 4 | MasterSMSL 0
  b[37] = 0x30;                         // VLCap 3 | InitType 0
  b[38] = 0;                            // VLHighLimit
  b[39] = 8;                            // VLArbitrationHighCap
  b[40] = 8;                            // VLArbitrationLowCap
  b[41] = 0x05;                         // InitTypeReply 0 | MTUCap 5
  b[42] = 0xf2;                         // VLStallCount 7 (3 bits) | HOQLife 0x12 (5 bits)
  b[43] = 0x3c;      // OperationalVLs 3 | PartEnfInb 1 | PartEnfOutb 1 | FilterRawInb 0 | Outb 0
  put(b, 44, 1, 2);  // M_KeyViolations
  put(b, 46, 2, 2);  // P_KeyViolations
  put(b, 48, 3, 2);  // Q_KeyViolations
  b[50] = 0x20;      // GUIDCap
  b[51] = 0x92;      // ClientReregister 1 | MulticastPKeyTrapSuppression 0 | SubnetTimeOut 18
  b[52] = 0x10;      // (3 reserved) | RespTimeValue 0x10
  b[53] = 0x88;      // LocalPhyErrors 8 | OverrunErrors 8
  put(b, 54, 0x0100, 2);    // MaxCreditHint
  put(b, 57, 0x123456, 3);  // LinkRoundTripLatency (byte 56 reserved)
  put(b, 60, 0x0034, 2);    // CapabilityMask2
  b[62] = 0x01;             // LinkSpeedExtActive 0 | LinkSpeedExtSupported 1
  b[63] = 0x1e;             // (3 reserved) | LinkSpeedExtEnabled 0x1e
  return b;
}

TEST(PortInfoCodec, EncodesIbaLayout) {
  EXPECT_EQ(hex(encoded(sample_port_info())), hex(port_info_golden()));
}

TEST(PortInfoCodec, DecodesIbaLayout) {
  auto p = decode<PortInfo>(port_info_golden());
  ASSERT_TRUE(p.ok()) << p.error().message;
  const PortInfo want = sample_port_info();
  EXPECT_EQ(hex(encoded(*p)), hex(encoded(want)));
  EXPECT_EQ(p->lid, 0x12);
  EXPECT_EQ(p->port_state, PortState::kActive);
  EXPECT_EQ(p->phys_state, PhysState::kLinkUp);
  EXPECT_EQ(p->lmc, 2);
  EXPECT_EQ(p->neighbor_mtu, 4);
  EXPECT_EQ(p->mtu_cap, 5);
  EXPECT_EQ(p->vl_cap, 3);
  EXPECT_EQ(p->operational_vls, 3);
  EXPECT_EQ(p->hoq_life, 0x12);
  EXPECT_EQ(p->vl_stall_count, 7);
  EXPECT_TRUE(p->client_reregister);
  EXPECT_EQ(p->subnet_timeout, 18);
  EXPECT_EQ(p->link_round_trip_latency, 0x123456u);
  EXPECT_EQ(p->capability_mask, 0x02010048u);
}

TEST(PortInfoCodec, RejectsInvalidPortState) {
  Bytes b = port_info_golden();
  b[32] = 0x10;  // PortState 0 is only meaningful in a Set
  EXPECT_FALSE(decode<PortInfo>(b).ok());
  b[32] = 0x17;  // 7: reserved
  auto r = decode<PortInfo>(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kErrInvalidAttribute);
}

// The XDR fields (IBA 1.7) share byte 56 with nothing but a reserved bit:
// bit 7 reserved, 6-5 LinkSpeedExtActive2, 4-3 LinkSpeedExtSupported2,
// 2-0 LinkSpeedExtEnabled2 (bits 449-455, as rdma-core's libibmad places them).
TEST(PortInfoCodec, XdrFieldsSitInByte56) {
  PortInfo p = sample_port_info();
  p.link_speed_ext_active2 = 1;
  p.link_speed_ext_supported2 = 1;
  p.link_speed_ext_enabled2 = 1;
  Bytes want = port_info_golden();
  want[56] = 0x29;
  EXPECT_EQ(hex(encoded(p)), hex(want));
  auto back = decode<PortInfo>(want);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->link_speed_ext_active2, 1);
  EXPECT_EQ(back->link_speed_ext_supported2, 1);
  EXPECT_EQ(back->link_speed_ext_enabled2, 1);
  EXPECT_EQ(back->link_round_trip_latency, 0x123456u);  // its neighbour is untouched
  want[56] = 0x80;                                      // the reserved bit alone: no XDR field set
  back = decode<PortInfo>(want);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->link_speed_ext_active2 | back->link_speed_ext_supported2 |
                back->link_speed_ext_enabled2,
            0);
}

TEST(PortInfoCodec, DumpNamesTheXdrFieldsAsLibibmad) {
  PortInfo p = sample_port_info();
  p.link_speed_ext_active2 = 1;
  const std::string d = dump(p);
  EXPECT_NE(d.find("LinkSpeedExtActive2:.............212.5 Gbps\n"), std::string::npos) << d;
  EXPECT_NE(d.find("LinkSpeedExtSupported2:..........0\n"), std::string::npos) << d;
}

// ---------------------------------------------------------------- SwitchInfo

TEST(SwitchInfoCodec, GoldenBytes) {
  SwitchInfo s;
  s.linear_fdb_cap = 0xc000;
  s.multicast_fdb_cap = 0x0100;
  s.linear_fdb_top = 0x0123;
  s.default_port = 1;
  s.default_mcast_primary_port = 0xff;
  s.default_mcast_not_primary_port = 0xff;
  s.life_time_value = 0x12;
  s.port_state_change = true;
  s.optimized_sl_to_vl = 1;
  s.partition_enforcement_cap = 0x20;
  s.inbound_enforcement_cap = true;
  s.outbound_enforcement_cap = true;
  s.filter_raw_outbound_cap = true;
  s.enhanced_port0 = true;
  s.multicast_fdb_top = 0xc010;

  Bytes g{};
  put(g, 0, 0xc000, 2);   // LinearFDBCap
  put(g, 2, 0, 2);        // RandomFDBCap
  put(g, 4, 0x0100, 2);   // MulticastFDBCap
  put(g, 6, 0x0123, 2);   // LinearFDBTop
  g[8] = 1;               // DefaultPort
  g[9] = 0xff;            // DefaultMulticastPrimaryPort
  g[10] = 0xff;           // DefaultMulticastNotPrimaryPort
  g[11] = 0x95;           // LifeTimeValue 0x12 (5) | PortStateChange 1 | OptimizedSLtoVL 1 (2)
  put(g, 12, 0, 2);       // LIDsPerPort
  put(g, 14, 0x20, 2);    // PartitionEnforcementCap
  g[16] = 0xd8;           // InboundEnf 1 | OutboundEnf 1 | FilterRawIn 0 | FilterRawOut 1 | EP0 1
  put(g, 18, 0xc010, 2);  // MulticastFDBTop
  EXPECT_EQ(hex(encoded(s)), hex(g));

  auto d = decode<SwitchInfo>(g);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->linear_fdb_top, 0x0123);
  EXPECT_TRUE(d->port_state_change);
  EXPECT_EQ(d->life_time_value, 0x12);
  EXPECT_TRUE(d->enhanced_port0);
  EXPECT_FALSE(d->filter_raw_inbound_cap);
  EXPECT_EQ(d->multicast_fdb_top, 0xc010);
  EXPECT_EQ(hex(encoded(*d)), hex(g));
}

// ---------------------------------------------------------------- SMInfo

TEST(SmInfoCodec, GoldenBytes) {
  SmInfo s;
  s.guid = 0x0002c90300001234ULL;
  s.sm_key = 0x1122334455667788ULL;
  s.act_count = 0x10;
  s.priority = 14;
  s.state = SmState::kMaster;
  Bytes g{};
  put(g, 0, 0x0002c90300001234ULL, 8);  // GUID
  put(g, 8, 0x1122334455667788ULL, 8);  // SM_Key
  put(g, 16, 0x10, 4);                  // ActCount
  g[20] = 0xe3;                         // Priority 14 | SMState 3 (master)
  EXPECT_EQ(hex(encoded(s)), hex(g));
  auto d = decode<SmInfo>(g);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->guid, s.guid);
  EXPECT_EQ(d->sm_key, s.sm_key);
  EXPECT_EQ(d->act_count, 0x10u);
  EXPECT_EQ(d->priority, 14);
  EXPECT_EQ(d->state, SmState::kMaster);
}

// ---------------------------------------------------------------- Notice

TEST(NoticeCodec, GoldenBytes) {
  Notice n;
  n.is_generic = true;
  n.type = 1;  // urgent
  n.producer_type = 2;
  n.trap_number = 128;
  n.issuer_lid = 7;
  n.toggle = true;
  n.count = 5;
  n.details[0] = 0x00;
  n.details[1] = 0x07;
  Bytes g{};
  g[0] = 0x81;           // IsGeneric 1 | Type 1 (7 bits)
  put(g, 1, 2, 3);       // ProducerType
  put(g, 4, 128, 2);     // TrapNumber
  put(g, 6, 7, 2);       // IssuerLID
  put(g, 8, 0x8005, 2);  // NoticeToggle 1 | NoticeCount 5 (15 bits)
  g[10] = 0x00;          // DataDetails: LIDaddr of trap 128
  g[11] = 0x07;
  EXPECT_EQ(hex(encoded(n)), hex(g));
  auto d = decode<Notice>(g);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->is_generic);
  EXPECT_EQ(d->type, 1);
  EXPECT_EQ(d->producer_type, 2u);
  EXPECT_EQ(d->trap_number, 128);
  EXPECT_EQ(d->issuer_lid, 7);
  EXPECT_TRUE(d->toggle);
  EXPECT_EQ(d->count, 5);
  EXPECT_EQ(d->details_lid(), 7);
}

// ---------------------------------------------------------------- tables and text

TEST(LftBlockCodec, OneBytePerLid) {
  LftBlock blk;
  for (std::size_t i = 0; i < LftBlock::kEntries; ++i)
    blk.ports[i] = static_cast<PortNum>(i % 37);
  blk.ports[63] = 0xff;
  Bytes g{};
  for (std::size_t i = 0; i < 64; ++i)
    g[i] = static_cast<std::uint8_t>(i % 37);
  g[63] = 0xff;
  EXPECT_EQ(hex(encoded(blk)), hex(g));
  auto d = decode<LftBlock>(g);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->ports, blk.ports);
}

TEST(MftBlockCodec, ThirtyTwoBigEndianMasks) {
  MftBlock blk;
  blk.masks[0] = 0x0001;  // port 0: the switch itself
  blk.masks[1] = 0x8006;  // ports 1, 2 and 15
  blk.masks[31] = 0xfffe;
  Bytes g{};
  put(g, 0, 0x0001, 2);
  put(g, 2, 0x8006, 2);
  put(g, 62, 0xfffe, 2);
  EXPECT_EQ(hex(encoded(blk)), hex(g));
  auto d = decode<MftBlock>(g);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->masks, blk.masks);
  // IBA 14.2.5.12: block in bits 0-8, position in bits 28-31.
  EXPECT_EQ(mft_attr_mod(0x1ff, 2), 0x200001ffu);
  EXPECT_EQ(mft_attr_mod(5, 0), 5u);
  EXPECT_EQ(mft_block_of(0x200001ffu), 0x1ffu);
  EXPECT_EQ(mft_position_of(0xf0000003u), 0xfu);
  EXPECT_FALSE(decode<MftBlock>(std::span<const std::uint8_t>(g.data(), 10)).ok());
}

TEST(PKeyBlockCodec, BigEndianKeys) {
  PKeyBlock blk;
  blk.pkeys[0] = 0xffff;
  blk.pkeys[1] = 0x8001;
  blk.pkeys[31] = 0x7fff;
  Bytes g{};
  put(g, 0, 0xffff, 2);
  put(g, 2, 0x8001, 2);
  put(g, 62, 0x7fff, 2);
  EXPECT_EQ(hex(encoded(blk)), hex(g));
  auto d = decode<PKeyBlock>(g);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->pkeys, blk.pkeys);
  EXPECT_EQ(pkey_attr_mod(3, 17), 0x00110003u);  // port in bits 16-23, block in 0-15
}

TEST(NodeDescriptionCodec, TextNulPaddedAndSanitised) {
  Bytes g{};
  const std::string text = "sw-1 HCA-2";
  std::copy(text.begin(), text.end(), g.begin());
  EXPECT_EQ(hex(encoded(NodeDescription{text})), hex(g));
  EXPECT_EQ(decode<NodeDescription>(g)->text, text);

  Bytes hostile{};
  hostile.fill('A');
  hostile[3] = '\n';
  hostile[4] = 0x1b;                             // ESC: could drive a terminal reading the log
  hostile[5] = static_cast<std::uint8_t>(0xff);  // not UTF-8: /metrics must stay parseable
  auto d = decode<NodeDescription>(hostile);
  ASSERT_TRUE(d.ok());
  // Display text: the line feed as a blank, ESC and the bad byte as U+FFFD (3 bytes
  // each), cut at 64 bytes on a character boundary.
  EXPECT_EQ(d->text.substr(0, 12),
            "AAA \xef\xbf\xbd\xef\xbf\xbd"
            "AA");
  EXPECT_EQ(d->text.size(), 64u);

  // Longer text is cut at 64 bytes.
  const std::string longer(80, 'x');
  EXPECT_EQ(decode<NodeDescription>(encoded(NodeDescription{longer}))->text, std::string(64, 'x'));
}

// ---------------------------------------------------------------- all attributes

template <class A>
class AttributeCodec : public ::testing::Test {};

using AllAttributes = ::testing::Types<NodeInfo, NodeDescription, PortInfo, SwitchInfo, SmInfo,
                                       LftBlock, PKeyBlock, MftBlock, Notice>;
TYPED_TEST_SUITE(AttributeCodec, AllAttributes);

TYPED_TEST(AttributeCodec, ShortInputIsAnErrorNotACrash) {
  std::vector<std::uint8_t> buf(kSmpDataSize, 0x5a);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{40}, std::size_t{63}}) {
    auto r = decode<TypeParam>(std::span<const std::uint8_t>(buf.data(), n));
    ASSERT_FALSE(r.ok()) << n << " bytes";
    EXPECT_EQ(r.error().id, kErrMalformedMad);
    EXPECT_NE(r.error().message.find(std::to_string(n)), std::string::npos);
  }
  // Longer input than the data area: only the first 64 bytes count.
  std::vector<std::uint8_t> longer(200, 0);
  (void)decode<TypeParam>(longer);
}

// Makes random bytes more likely to pass validation, so the round trip is exercised
// on NodeInfo and PortInfo too and not only on their error path.
template <class A>
void make_plausible(Bytes& b, std::mt19937& rng) {
  if constexpr (std::is_same_v<A, NodeInfo>) {
    b[2] = static_cast<std::uint8_t>(1 + rng() % 3);
    b[3] = static_cast<std::uint8_t>(1 + rng() % 254);
    b[12] |= 1;
    b[20] |= 1;
    b[36] = static_cast<std::uint8_t>(1 + rng() % b[3]);
  } else if constexpr (std::is_same_v<A, PortInfo>) {
    b[32] = static_cast<std::uint8_t>((b[32] & 0xf0) | (1 + rng() % 4));
  }
}

TYPED_TEST(AttributeCodec, RandomBytesRoundTripStably) {
  std::mt19937 rng(12345);
  int decoded = 0;
  for (int i = 0; i < 3000; ++i) {
    Bytes in{};
    for (auto& x : in)
      x = static_cast<std::uint8_t>(rng());
    if (i % 2 == 0) make_plausible<TypeParam>(in, rng);
    auto first = decode<TypeParam>(in);
    if (!first.ok()) {
      EXPECT_FALSE(first.error().message.empty());
      continue;
    }
    ++decoded;
    const Bytes once = encoded(*first);
    auto second = decode<TypeParam>(once);
    ASSERT_TRUE(second.ok()) << "re-decode failed: " << second.error().message << "\n" << hex(in);
    const Bytes twice = encoded(*second);
    ASSERT_EQ(hex(once), hex(twice)) << "input\n" << hex(in);
    EXPECT_EQ(dump(*first), dump(*second));
  }
  EXPECT_GT(decoded, 1000);
}

TYPED_TEST(AttributeCodec, DumpNamesEveryField) {
  const std::string d = dump(TypeParam{});
  EXPECT_FALSE(d.empty());
}

// ---------------------------------------------------------------- GUIDInfo

// IBA 14.2.5.5: GUID i of the block at bytes 8i..8i+7, big-endian.
TEST(GuidInfoBlockCodec, EightBigEndianGuids) {
  GuidInfoBlock blk;
  blk.guids[0] = 0x0002c90300001234;  // the port GUID
  blk.guids[1] = 0x0014055a00000001;  // an SM-assigned alias
  blk.guids[7] = 0x0102030405060708;
  Bytes g{};
  put(g, 0, 0x0002c90300001234, 8);
  put(g, 8, 0x0014055a00000001, 8);
  put(g, 56, 0x0102030405060708, 8);
  EXPECT_EQ(hex(encoded(blk)), hex(g));
  auto d = decode<GuidInfoBlock>(g);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, blk);
  EXPECT_FALSE(decode<GuidInfoBlock>(std::span<const std::uint8_t>(g.data(), 63)).ok());
  EXPECT_NE(dump(blk).find("Guid1: 0x0014055a00000001"), std::string::npos);
  EXPECT_EQ(attr_name(GuidInfoBlock::kAttrId), "GUIDInfo");
}

TEST(GuidInfoBlockCodec, RandomBytesRoundTrip) {
  std::mt19937 rng(77);
  for (int i = 0; i < 500; ++i) {
    Bytes in{};
    for (auto& x : in)
      x = static_cast<std::uint8_t>(rng());
    auto d = decode<GuidInfoBlock>(in);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(hex(encoded(*d)), hex(in));  // every bit is a GUID bit: nothing reserved
  }
}

// Blocks a port answers: GUIDCap entries rounded up to whole blocks of 8.
TEST(GuidInfoBlockCodec, BlocksFollowGuidCap) {
  EXPECT_EQ(guid_info_blocks(0), 0u);
  EXPECT_EQ(guid_info_blocks(1), 1u);
  EXPECT_EQ(guid_info_blocks(8), 1u);
  EXPECT_EQ(guid_info_blocks(9), 2u);
  EXPECT_EQ(guid_info_blocks(128), 16u);
  EXPECT_EQ(guid_info_blocks(255), GuidInfoBlock::kMaxBlocks);
}

}  // namespace
}  // namespace ibsm::mad
