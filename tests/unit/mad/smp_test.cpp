// SMP framing (IBA 14.2.1.1 LID-routed, 14.2.1.2 directed route) and DrPath.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "mad/attr/node_info.hpp"
#include "mad/smp.hpp"

namespace ibsm::mad {
namespace {

DrPath path_of(std::initializer_list<PortNum> ports) {
  DrPath p;
  for (PortNum port : ports)
    p = *p.extended(port);
  return p;
}

TEST(DrPath, EmptyPathAddressesTheSmNode) {
  DrPath p;
  EXPECT_EQ(p.hops(), 0u);
  EXPECT_EQ(p.to_string(), "0");
  EXPECT_EQ(p.initial_path(), (std::array<std::uint8_t, 64>{}));
}

TEST(DrPath, ExtendAddsOneHop) {
  const DrPath p = path_of({1, 3, 17});
  EXPECT_EQ(p.hops(), 3u);
  EXPECT_EQ(p.port_at(1), 1);
  EXPECT_EQ(p.port_at(2), 3);
  EXPECT_EQ(p.port_at(3), 17);
  EXPECT_EQ(p.to_string(), "0,1,3,17");
  EXPECT_EQ(p.initial_path()[0], 0);  // index 0 is unused (IBA: InitialPath[0] reserved)
  EXPECT_EQ(p.initial_path()[3], 17);
  EXPECT_EQ(p, path_of({1, 3, 17}));
  EXPECT_NE(p, path_of({1, 3}));
  EXPECT_NE(p, path_of({1, 3, 16}));
}

TEST(DrPath, HopCountIsLimitedTo63) {
  DrPath p;
  for (int i = 0; i < 63; ++i) {
    auto next = p.extended(static_cast<PortNum>(1 + i % 36));
    ASSERT_TRUE(next.has_value()) << i;
    p = *next;
  }
  EXPECT_EQ(p.hops(), 63u);
  EXPECT_FALSE(p.extended(1).has_value());
}

TEST(SmpFraming, DirectedRouteRequestBytes) {
  const Smp s = Smp::request(Method::kGet, AttrId::kNodeInfo, 0, path_of({1, 3}), 0x12345678);
  const auto& b = s.bytes();
  std::array<std::uint8_t, 256> want{};
  want[0] = 0x01;  // BaseVersion
  want[1] = 0x81;  // MgmtClass: directed-route SMP
  want[2] = 0x01;  // ClassVersion
  want[3] = 0x01;  // R 0 | Method Get
  want[4] = 0x00;  // D 0 | Status
  want[5] = 0x00;
  want[6] = 0x00;   // HopPointer 0
  want[7] = 0x02;   // HopCount
  want[12] = 0x12;  // TransactionID: ours in the low 32 bits, 8-11 left to the kernel
  want[13] = 0x34;
  want[14] = 0x56;
  want[15] = 0x78;
  want[16] = 0x00;  // AttributeID NodeInfo
  want[17] = 0x11;
  want[32] = 0xff;  // DrSLID permissive
  want[33] = 0xff;
  want[34] = 0xff;  // DrDLID permissive
  want[35] = 0xff;
  want[129] = 1;  // InitialPath[1..HopCount]
  want[130] = 3;
  EXPECT_EQ(std::vector<std::uint8_t>(b.begin(), b.end()),
            std::vector<std::uint8_t>(want.begin(), want.end()));
  EXPECT_TRUE(s.directed());
  EXPECT_FALSE(s.is_response());
  EXPECT_EQ(s.hop_count(), 2);
  EXPECT_EQ(s.tid(), 0x12345678u);
  EXPECT_EQ(s.tid_low(), 0x12345678u);
  EXPECT_EQ(s.attr_id(), AttrId::kNodeInfo);
  EXPECT_EQ(s.method(), Method::kGet);
}

TEST(SmpFraming, LidRoutedSetBytes) {
  Smp s =
      Smp::request(Method::kSet, AttrId::kPortInfo, 5, Lid{7}, 0xdeadbeef, 0x0102030405060708ULL);
  const auto& b = s.bytes();
  EXPECT_EQ(b[1], 0x01);  // LID-routed SMP class
  EXPECT_EQ(b[3], 0x02);  // Set
  EXPECT_EQ(b[7], 0x00);  // no hop count
  EXPECT_EQ(b[16], 0x00);
  EXPECT_EQ(b[17], 0x15);  // PortInfo
  EXPECT_EQ(b[20], 0);
  EXPECT_EQ(b[23], 5);  // AttributeModifier
  EXPECT_EQ(b[24], 0x01);
  EXPECT_EQ(b[31], 0x08);  // M_Key
  for (std::size_t i = 32; i < 64; ++i)
    EXPECT_EQ(b[i], 0) << i;  // no DR LIDs
  for (std::size_t i = 128; i < 256; ++i)
    EXPECT_EQ(b[i], 0) << i;  // no paths
  EXPECT_FALSE(s.directed());
  EXPECT_EQ(s.attr_mod(), 5u);
}

TEST(SmpFraming, ResponseSetsDirectionBitAndKeepsPath) {
  const Smp req = Smp::request(Method::kGet, AttrId::kNodeInfo, 0, path_of({2}), 42);
  std::array<std::uint8_t, kSmpDataSize> data{};
  data[0] = 0xab;
  const Smp resp = req.response(ConstPayload(data));
  const auto& b = resp.bytes();
  EXPECT_EQ(b[3], 0x81);  // R 1 | GetResp
  EXPECT_EQ(b[4], 0x80);  // D 1, status 0
  EXPECT_EQ(b[5], 0x00);
  EXPECT_EQ(b[64], 0xab);
  EXPECT_EQ(b[129], 2);
  EXPECT_TRUE(resp.is_response());
  EXPECT_EQ(resp.status(), 0);  // the D bit is not part of the status
  EXPECT_EQ(resp.tid(), 42u);

  const Smp lid_req = Smp::request(Method::kGet, AttrId::kNodeInfo, 0, Lid{9}, 43);
  const Smp lid_resp = lid_req.response(ConstPayload(data));
  EXPECT_EQ(lid_resp.bytes()[4], 0x00);  // no D bit outside DR
  EXPECT_TRUE(lid_resp.is_response());
}

TEST(SmpFraming, StatusExcludesDirectionBit) {
  Smp::Bytes b = Smp::request(Method::kGet, AttrId::kPortInfo, 1, path_of({1}), 1).bytes();
  b[3] = 0x81;
  b[4] = 0x80;
  b[5] = 0x1c;
  auto dr = Smp::parse(b);
  ASSERT_TRUE(dr.ok());
  EXPECT_EQ(dr->status(), kStatusInvalidValue);

  Smp::Bytes l = Smp::request(Method::kGet, AttrId::kPortInfo, 1, Lid{3}, 1).bytes();
  l[3] = 0x81;
  l[5] = 0x0c;
  auto lr = Smp::parse(l);
  ASSERT_TRUE(lr.ok());
  EXPECT_EQ(lr->status(), kStatusAttrUnsupported);
}

TEST(SmpFraming, HighTidBitsBelongToTheKernel) {
  Smp::Bytes b = Smp::request(Method::kGet, AttrId::kNodeInfo, 0, DrPath{}, 0x11223344).bytes();
  b[8] = 0xaa;  // what ib_umad puts into bits 32-63
  b[11] = 0x2a;
  auto s = Smp::parse(b);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->tid(), 0xaa00002a11223344ULL);
  EXPECT_EQ(s->tid_low(), 0x11223344u);
}

TEST(SmpFraming, ParseRejectsWhatIsNotAnSmp) {
  const Smp::Bytes good = Smp::request(Method::kGet, AttrId::kNodeInfo, 0, DrPath{}, 1).bytes();
  EXPECT_TRUE(Smp::parse(good).ok());
  EXPECT_FALSE(Smp::parse(std::span<const std::uint8_t>(good.data(), 255)).ok());
  EXPECT_FALSE(Smp::parse(std::span<const std::uint8_t>(good.data(), 0)).ok());
  auto with = [&](std::size_t i, std::uint8_t v) {
    Smp::Bytes b = good;
    b[i] = v;
    return Smp::parse(b);
  };
  auto r = with(0, 2);  // base version
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kErrMalformedMad);
  EXPECT_FALSE(with(1, 0x03).ok());  // SA class
  EXPECT_FALSE(with(2, 2).ok());     // class version
  EXPECT_TRUE(with(1, 0x01).ok());   // LID-routed SMP
}

TEST(SmpFraming, SetAttributeFillsDataArea) {
  Smp s = Smp::request(Method::kSet, AttrId::kNodeInfo, 0, DrPath{}, 1);
  NodeInfo n;
  n.node_type = NodeType::kCa;
  n.num_ports = 2;
  s.set_attribute(n);
  EXPECT_EQ(s.bytes()[64 + 2], 1);
  EXPECT_EQ(s.bytes()[64 + 3], 2);
}

TEST(SmpFraming, ParseOfRandomBytesNeverCrashes) {
  std::uint32_t x = 7;
  for (int i = 0; i < 2000; ++i) {
    Smp::Bytes b{};
    for (auto& v : b) {
      x = x * 1664525u + 1013904223u;
      v = static_cast<std::uint8_t>(x >> 24);
    }
    if (i % 2 == 0) {
      b[0] = 1;
      b[1] = (i % 4 == 0) ? 0x81 : 0x01;
      b[2] = 1;
    }
    auto s = Smp::parse(b);
    if (!s.ok()) continue;
    (void)s->status();
    (void)s->hop_count();
    (void)s->tid_low();
    (void)s->attr_id();
    (void)s->is_response();
  }
}

}  // namespace
}  // namespace ibsm::mad
