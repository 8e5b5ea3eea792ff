// The SA exchange of broadcast_mtu = "auto" as bytes: the request the agent sends and
// the decoder of a handmade GetResp, laid out as IBA 15.2.5.17 (and OpenSM's
// ib_member_rec_t) place the fields.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/errors.hpp"
#include "agent/sa_mcmember.hpp"

namespace ibsm::agent {
namespace {

using ::testing::HasSubstr;

const Mgid kDefaultBroadcast{0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0,    0,
                             0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff};

// A GetResp as an SA sends it for the default partition's broadcast group: MLID 0xc000,
// Q_Key 0x0b1b, MTU selector 2 ("exactly") with MTU code `mtu_code`, P_Key 0xffff.
SaMad get_resp(std::uint32_t tid, std::uint8_t mtu_code, std::uint16_t status = 0) {
  SaMad m{};
  m[0] = 1;     // BaseVersion
  m[1] = 0x03;  // SubnAdm
  m[2] = 2;     // ClassVersion
  m[3] = 0x81;  // GetResp
  m[4] = static_cast<std::uint8_t>(status >> 8);
  m[5] = static_cast<std::uint8_t>(status);
  m[8] = 0x00, m[9] = 0x2a, m[10] = 0x00, m[11] = 0x07;  // the kernel's agent half of the TID
  m[12] = static_cast<std::uint8_t>(tid >> 24), m[13] = static_cast<std::uint8_t>(tid >> 16);
  m[14] = static_cast<std::uint8_t>(tid >> 8), m[15] = static_cast<std::uint8_t>(tid);
  m[16] = 0x00, m[17] = 0x38;    // MCMemberRecord
  m[44] = 0x00, m[45] = 56 / 8;  // AttributeOffset in 8-byte words
  m[55] = 0x01;                  // ComponentMask echoed
  std::uint8_t* rec = m.data() + 56;
  std::copy(kDefaultBroadcast.begin(), kDefaultBroadcast.end(), rec);
  rec[32] = 0x00, rec[33] = 0x00, rec[34] = 0x0b, rec[35] = 0x1b;  // Q_Key
  rec[36] = 0xc0, rec[37] = 0x00;                                  // MLID
  rec[38] = static_cast<std::uint8_t>(2 << 6 | mtu_code);          // MTUSelector | MTU
  rec[40] = 0xff, rec[41] = 0xff;                                  // P_Key
  rec[42] = 2 << 6 | 3;                                            // rate 10 Gb/s
  return m;
}

TEST(SaMcMember, BroadcastMgidIsLinuxIpoibs) {
  EXPECT_EQ(ipoib_broadcast_mgid(0xffff), kDefaultBroadcast);
  EXPECT_EQ(format_mgid(ipoib_broadcast_mgid(0xffff)), "ff12:401b:ffff::ffff:ffff");
  // The full-member bit is set whatever the node file wrote.
  EXPECT_EQ(format_mgid(ipoib_broadcast_mgid(0x0002)), "ff12:401b:8002::ffff:ffff");
  EXPECT_EQ(format_mgid(Mgid{}), "::");
}

TEST(SaMcMember, MtuCodes) {
  EXPECT_EQ(ib_mtu_bytes(1), 256);
  EXPECT_EQ(ib_mtu_bytes(4), 2048);
  EXPECT_EQ(ib_mtu_bytes(5), 4096);
  EXPECT_EQ(ib_mtu_bytes(0), 0);
  EXPECT_EQ(ib_mtu_bytes(6), 0);
}

TEST(SaMcMember, RequestIsASubnAdmGetOfTheGroupByMgid) {
  SaMad m = encode_broadcast_group_get(ipoib_broadcast_mgid(0x8002), 0x12345678);
  const std::vector<std::uint8_t> header(m.begin(), m.begin() + 24);
  EXPECT_EQ(header,
            (std::vector<std::uint8_t>{1,    0x03, 2,    0x01, 0,    0,    0, 0, 0, 0, 0, 0,
                                       0x12, 0x34, 0x56, 0x78, 0x00, 0x38, 0, 0, 0, 0, 0, 0}));
  // RMPP header, SM_Key, AttributeOffset: zero; ComponentMask = MGID (bit 0).
  for (std::size_t i = 24; i < 48; ++i)
    EXPECT_EQ(m[i], 0) << i;
  const std::vector<std::uint8_t> mask(m.begin() + 48, m.begin() + 56);
  EXPECT_EQ(mask, (std::vector<std::uint8_t>{0, 0, 0, 0, 0, 0, 0, 1}));
  const Mgid mgid = ipoib_broadcast_mgid(0x8002);
  EXPECT_TRUE(std::equal(mgid.begin(), mgid.end(), m.begin() + 56));
  for (std::size_t i = 56 + 16; i < kSaMadSize; ++i)
    EXPECT_EQ(m[i], 0) << i;
}

TEST(SaMcMember, DecodesTheMtuOfAGetResp) {
  SaMad m = get_resp(0xdeadbeef, 5);
  EXPECT_TRUE(answers_request(m, 0xdeadbeef));
  EXPECT_FALSE(answers_request(m, 0xdeadbeee));
  auto mtu = decode_broadcast_group_mtu(m, kDefaultBroadcast);
  ASSERT_TRUE(mtu.ok()) << mtu.error().message;
  EXPECT_EQ(*mtu, 4096);
  EXPECT_EQ(*decode_broadcast_group_mtu(get_resp(1, 4), kDefaultBroadcast), 2048);
}

TEST(SaMcMember, NoRecordsIsARejectionSayingWhy) {
  auto mtu = decode_broadcast_group_mtu(get_resp(1, 0, 0x0300), kDefaultBroadcast);
  ASSERT_FALSE(mtu.ok());
  EXPECT_EQ(mtu.error().id, kGroupMtuRejected);
  EXPECT_THAT(mtu.error().message, HasSubstr("ff12:401b:ffff::ffff:ffff"));
  EXPECT_THAT(mtu.error().message, HasSubstr("0x0300 (no records"));
  EXPECT_THAT(describe_sa_status(0x000c), HasSubstr("method/attribute combination not supported"));
  EXPECT_THAT(describe_sa_status(0x0001), HasSubstr("busy"));
}

TEST(SaMcMember, MalformedAnswersAreErrorsNotCrashes) {
  const SaMad good = get_resp(1, 5);
  // Short: anything cut before the end of the record.
  for (std::size_t len : {0u, 23u, 56u, 107u}) {
    auto r = decode_broadcast_group_mtu(std::span(good.data(), len), kDefaultBroadcast);
    ASSERT_FALSE(r.ok()) << len;
    EXPECT_EQ(r.error().id, kGroupMtuRejected);
    EXPECT_FALSE(answers_request(std::span(good.data(), std::min<std::size_t>(len, 55)), 1));
  }
  EXPECT_TRUE(decode_broadcast_group_mtu(std::span(good.data(), 108), kDefaultBroadcast).ok());
  SaMad other_group = good;
  other_group[56 + 5] = 0x02;
  EXPECT_THAT(decode_broadcast_group_mtu(other_group, kDefaultBroadcast).error().message,
              HasSubstr("another group"));
  EXPECT_THAT(decode_broadcast_group_mtu(get_resp(1, 7), kDefaultBroadcast).error().message,
              HasSubstr("MTU code 7"));
  SaMad not_resp = good;
  not_resp[3] = 0x01;
  EXPECT_FALSE(decode_broadcast_group_mtu(not_resp, kDefaultBroadcast).ok());
  SaMad other_attr = good;
  other_attr[17] = 0x11;
  EXPECT_FALSE(decode_broadcast_group_mtu(other_attr, kDefaultBroadcast).ok());
}

}  // namespace
}  // namespace ibsm::agent

namespace ibsm::agent {
namespace {

TEST(SaMcMember, DecodesTheGroupRate) {
  auto g = decode_broadcast_group(get_resp(1, 4), kDefaultBroadcast);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->mtu_bytes, 2048);
  EXPECT_EQ(g->rate_code, 3);
  EXPECT_EQ(ib_rate_gbps(3), 10);
  EXPECT_EQ(ib_rate_gbps(2), 2.5);
  EXPECT_EQ(ib_rate_gbps(24), 1200);
  EXPECT_EQ(ib_rate_gbps(25), 0);
  SaMad bad_rate = get_resp(1, 4);
  bad_rate[56 + 42] = 2 << 6 | 1;  // rate code 1 does not exist
  EXPECT_THAT(decode_broadcast_group(bad_rate, kDefaultBroadcast).error().message,
              HasSubstr("rate code 1"));
}

// PortInfoRecord (IBA 15.2.5.3): EndportLID, PortNum, Options, then PortInfo at byte 4,
// whose byte 36 holds NeighborMTU in its high nibble.
TEST(SaPortInfo, RequestAndNeighborMtu) {
  SaMad q = encode_port_info_get(0x0011, 0x01020304);
  EXPECT_EQ(q[1], 0x03);
  EXPECT_EQ(q[3], 0x01);
  EXPECT_EQ(q[16], 0x00);
  EXPECT_EQ(q[17], 0x12);
  EXPECT_EQ(q[55], 0x01);  // ComponentMask = EndportLID
  EXPECT_EQ(q[56], 0x00);
  EXPECT_EQ(q[57], 0x11);
  SaMad a = q;
  a[3] = 0x81;
  a[56 + 40] = 4 << 4 | 0;  // NeighborMTU 2048, MasterSMSL 0
  auto mtu = decode_port_neighbor_mtu(a, 0x11);
  ASSERT_TRUE(mtu.ok()) << mtu.error().message;
  EXPECT_EQ(*mtu, 2048);
  EXPECT_THAT(decode_port_neighbor_mtu(a, 0x12).error().message, HasSubstr("for LID 17"));
  EXPECT_FALSE(decode_port_neighbor_mtu(std::span(a.data(), 100), 0x11).ok());
  a[56 + 40] = 0;
  EXPECT_THAT(decode_port_neighbor_mtu(a, 0x11).error().message, HasSubstr("NeighborMTU code 0"));
  a[4] = 0x03;
  EXPECT_THAT(decode_port_neighbor_mtu(a, 0x11).error().message, HasSubstr("0x0300"));
}

}  // namespace
}  // namespace ibsm::agent
