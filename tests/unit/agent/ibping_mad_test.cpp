// The ibping protocol as bytes: what infiniband-diags' ibping sends (vendor class 0x32,
// OUI 00:14:05, Get) and the answer `ibping -S` gives, which ping-responder must match.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/ibping_mad.hpp"

namespace ibsm::agent {
namespace {

// A request as libibmad's ib_vendor_call_via builds it: base version 1, class 0x32, class
// version 1, Get, TID, attribute 0, OUI in bytes 37..39, an empty data area.
Mad request(std::uint64_t tid) {
  Mad m{};
  m[0] = 1, m[1] = 0x32, m[2] = 1, m[3] = 0x01;
  for (int i = 0; i < 8; ++i)
    m[8 + i] = static_cast<std::uint8_t>(tid >> (56 - 8 * i));
  m[37] = 0x00, m[38] = 0x14, m[39] = 0x05;
  return m;
}

TEST(IbpingMad, RecognisesOnlyIbpingRequests) {
  EXPECT_TRUE(is_ibping_request(request(7)));
  Mad other_oui = request(7);
  other_oui[39] = 0x06;
  EXPECT_FALSE(is_ibping_request(other_oui));
  Mad response = request(7);
  response[3] = 0x81;
  EXPECT_FALSE(is_ibping_request(response));
  Mad other_class = request(7);
  other_class[1] = 0x31;
  EXPECT_FALSE(is_ibping_request(other_class));
  EXPECT_FALSE(is_ibping_request(std::span(request(7).data(), 39)));
}

TEST(IbpingMad, ReplyIsAGetRespWithTheTidOuiAndHostName) {
  const Mad q = request(0x1122334455667788);
  const Mad a = ibping_reply(q, "node7.cluster");
  EXPECT_EQ(a[0], 1);
  EXPECT_EQ(a[1], 0x32);
  EXPECT_EQ(a[2], 1);
  EXPECT_EQ(a[3], 0x81);
  EXPECT_EQ(a[4], 0);
  EXPECT_EQ(a[5], 0);
  EXPECT_TRUE(std::equal(q.begin() + 8, q.begin() + 24, a.begin() + 8));  // TID, attr, mod
  EXPECT_EQ(a[37], 0x00);
  EXPECT_EQ(a[38], 0x14);
  EXPECT_EQ(a[39], 0x05);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(a.data() + 40)), "node7.cluster");
  // A name longer than the data area is cut, leaving the terminating NUL.
  const Mad long_name = ibping_reply(q, std::string(300, 'x'));
  EXPECT_EQ(long_name[255], 0);
  EXPECT_EQ(long_name[254], 'x');
}

TEST(IbpingMad, HostNameAsIbpingServerGivesIt) {
  EXPECT_EQ(ibping_host_name("node7", "cluster"), "node7.cluster");
  EXPECT_EQ(ibping_host_name("node7", ""), "node7");
  EXPECT_EQ(ibping_host_name("node7", "(none)"), "node7");
}

}  // namespace
}  // namespace ibsm::agent
