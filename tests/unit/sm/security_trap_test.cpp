// Security traps 256-259 (IBA 14.2.5.1): their fields decoded into one log line, the
// per-port rate limit, and end to end on a FakeFabric: the master answers each with
// TrapRepress and logs it with IBSM-2210 and the fields an admin needs to find the
// culprit, while a flood from one port gives one line per 10 s with a count.
#include "sm/traps/security_trap.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "common/log.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm::security_trap_test {
namespace {

using namespace std::chrono_literals;
using mad::AttrId;
using mad::Method;

void put(mad::Notice& n, std::size_t at, std::uint64_t v, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i)
    n.details[at + i] = static_cast<std::uint8_t>(v >> (8 * (bytes - 1 - i)));
}

mad::Notice bad_mkey_trap(mad::Lid issuer, mad::Lid requester, std::uint64_t key) {
  mad::Notice n;
  n.is_generic = true;
  n.type = 1;  // security
  n.trap_number = 256;
  n.issuer_lid = issuer;
  put(n, 2, requester, 2);
  put(n, 6, 0x02, 1);         // SubnSet
  put(n, 8, 0x0015, 2);       // PortInfo
  put(n, 10, 0x00000001, 4);  // port 1
  put(n, 14, key, 8);
  n.details[22] = 0x80;  // DRNotice
  return n;
}

TEST(SecurityTrap, BadMkeyFieldsDecoded) {
  const auto text = describe_security_trap(bad_mkey_trap(7, 42, 0x1122334455667788));
  ASSERT_TRUE(text);
  EXPECT_EQ(*text,
            "Bad M_Key (trap 256) from port LID 7: requester LID 42 (directed route), method "
            "0x02, attribute 0x0015, modifier 0x00000001, M_Key 0x1122334455667788");
}

TEST(SecurityTrap, BadPkeyAndQkeyAndSwitchPkeyFieldsDecoded) {
  mad::Notice n;
  n.is_generic = true;
  n.trap_number = 257;
  n.issuer_lid = 9;
  put(n, 2, 4, 2);
  put(n, 4, 5, 2);
  put(n, 6, 0x8001, 4);
  put(n, 10, (3u << 28) | 0x48, 4);  // SL 3, QP1 0x48
  put(n, 14, 0x49, 4);
  put(n, 18, 0xfe80000000000000, 8);  // GID1 prefix
  auto text = describe_security_trap(n);
  ASSERT_TRUE(text);
  EXPECT_EQ(*text,
            "Bad P_Key (trap 257) from port LID 9: LID1 4 LID2 5 P_Key 0x8001 SL 3 QP1 0x48 QP2 "
            "0x49 GID1 fe80:0000:0000:0000:0000:0000:0000:0000 GID2 "
            "0000:0000:0000:0000:0000:0000:0000:0000");
  n.trap_number = 258;
  EXPECT_NE(describe_security_trap(n)->find("Bad Q_Key (trap 258)"), std::string::npos);

  mad::Notice s;
  s.is_generic = true;
  s.trap_number = 259;
  s.issuer_lid = 3;
  put(s, 6, 0x7fff, 2);
  put(s, 48, 3, 2);
  s.details[50] = 17;
  text = describe_security_trap(s);
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("switch LID 3 port 17"), std::string::npos) << *text;
  EXPECT_NE(text->find("P_Key 0x7fff"), std::string::npos) << *text;
}

TEST(SecurityTrap, OtherTrapsAreNotSecurityTraps) {
  mad::Notice n;
  n.is_generic = true;
  for (std::uint16_t t : {64, 128, 144, 255, 260}) {
    n.trap_number = t;
    EXPECT_FALSE(describe_security_trap(n)) << t;
  }
  n.trap_number = 256;
  n.is_generic = false;  // vendor notice with device ID 256
  EXPECT_FALSE(describe_security_trap(n));
}

TEST(SecurityTrap, LogAdmitsOneLinePerPortAndTrapPerInterval) {
  SecurityTrapLog log(10s);
  Clock::TimePoint t{};
  std::uint64_t held = 99;
  EXPECT_TRUE(log.admit(5, 256, t, held));
  EXPECT_EQ(held, 0u);
  for (int i = 0; i < 30; ++i)
    EXPECT_FALSE(log.admit(5, 256, t + 1s, held));
  EXPECT_TRUE(log.admit(6, 256, t + 1s, held)) << "another port has its own line";
  EXPECT_TRUE(log.admit(5, 257, t + 1s, held)) << "another trap has its own line";
  EXPECT_TRUE(log.admit(5, 256, t + 10s, held));
  EXPECT_EQ(held, 30u);
  EXPECT_EQ(log.total(), 34u);
}

// h1 (the SM) and h2 on s1.
constexpr std::string_view kNet = R"(Switch 3 "s1"
[1] "h1"[1]
[3] "h2"[1]

Hca 1 "h1"
[1] "s1"[1]

Hca 1 "h2"
[1] "s1"[3]
)";

TEST(SecurityTrap, MasterAnswersLogsAndRateLimitsAFlood) {
  testsupport::TempDir dir;
  FakeClock clock;
  auto desc = testsupport::parse_net(kNet);
  ASSERT_TRUE(desc.ok());
  fake::FakeFabric fabric(*desc, clock);
  conf::Options options;
  options.cache_dir = dir.path() + "/cache";
  LogSettings ls;
  ls.file = dir.path() + "/ibsm.log";
  ls.flags = 0x03;
  ls.flush_each = true;
  SubnetManager sm(fabric, clock, make_logger(ls), options);
  ControlFlags control;
  auto run_for = [&](Clock::Duration d) {
    const auto until = clock.now() + d;
    while (clock.now() < until)
      (void)sm.step(control);
  };
  run_for(3s);
  ASSERT_EQ(sm.state(), mad::SmState::kMaster);
  ASSERT_TRUE(fabric.inactive_ports().empty());

  const mad::Lid h2 = fabric.node(fabric.index("h2")).ports[1].info.lid;
  for (int i = 0; i < 50; ++i) {
    mad::Smp trap = mad::Smp::request(Method::kTrap, AttrId::kNotice, 0, mad::Lid{1},
                                      static_cast<std::uint32_t>(0x500 + i));
    trap.set_attribute(bad_mkey_trap(h2, 42, 0xbad));
    fabric.inject(trap, h2);
  }
  run_for(1s);
  std::size_t represses = 0;
  for (const auto& r : fabric.sm_responses())
    represses += r.method() == Method::kTrapRepress && r.attr_id() == AttrId::kNotice;
  EXPECT_EQ(represses, 50u) << "every trap is acknowledged (IBA 13.4.8.3)";

  auto lines_with = [&](const std::string& what) {
    std::ifstream in(ls.file);
    std::string line;
    std::size_t n = 0;
    while (std::getline(in, line))
      n += line.find(what) != std::string::npos;
    return n;
  };
  EXPECT_EQ(lines_with("IBSM-2210: Bad M_Key (trap 256) from port LID " + std::to_string(h2) +
                       ": requester LID 42"),
            1u);
  run_for(10s);
  mad::Smp again = mad::Smp::request(Method::kTrap, AttrId::kNotice, 0, mad::Lid{1}, 0x600);
  again.set_attribute(bad_mkey_trap(h2, 42, 0xbad));
  fabric.inject(again, h2);
  run_for(1s);
  EXPECT_EQ(lines_with("(49 more since the last line)"), 1u);
  EXPECT_EQ(sm.state(), mad::SmState::kMaster);
}

}  // namespace
}  // namespace ibsm::sm::security_trap_test
