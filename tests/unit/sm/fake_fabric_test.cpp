// The FakeFabric's own rules, driven through SmpClient: directed-route forwarding
// (IBA 14.2.2), Set semantics of PortInfo and SwitchInfo, LID routing and time.
#include <gtest/gtest.h>

#include "mad/attr/forwarding_table.hpp"
#include "mad/attr/node_info.hpp"
#include "mad/attr/port_info.hpp"
#include "mad/attr/switch_info.hpp"
#include "mad/smp_client.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/net_file.hpp"

namespace ibsm::fake {
namespace {

using mad::DrPath;
using mad::PortState;
using std::chrono::milliseconds;

// h1 -1[ s1 ]2 -- 1[ s2 ]2- h2 ; s1 port 3 leads to the two-port CA hx (port 1),
// whose port 2 goes to s2 port 3.
constexpr std::string_view kNet = R"(Switch 4 "s1"
[1] "h1"[1]
[2] "s2"[1]
[3] "hx"[1]

Switch 4 "s2"
[1] "s1"[2]
[2] "h2"[1]
[3] "hx"[2]

Hca 1 "h1"
[1] "s1"[1]

Hca 1 "h2"
[1] "s2"[2]

Hca 2 "hx"
[1] "s1"[3]
[2] "s2"[3]
)";

DrPath path(std::initializer_list<mad::PortNum> ports) {
  DrPath p;
  for (auto port : ports)
    p = *p.extended(port);
  return p;
}

struct Answer {
  bool ok = false;
  std::uint16_t status = 0;
  mad::SmpFailure::Kind kind = mad::SmpFailure::Kind::kTimeout;
  std::array<std::uint8_t, mad::kSmpDataSize> data{};
};

class FakeFabricTest : public ::testing::Test {
 protected:
  FakeFabricTest()
      : desc(*testsupport::parse_net(kNet)),
        fabric(desc, clock, options()),
        client(fabric, clock, null_logger(), {4, milliseconds(200), 1}) {}

  static FakeOptions options() {
    FakeOptions o;
    o.sm_node = "h1";
    return o;
  }

  Answer call(mad::SmpRequest r) {
    Answer a;
    client.submit(std::move(r), [&](const mad::SmpOutcome& o) {
      a.ok = o.ok();
      if (o.ok()) {
        std::copy(o.response->data().begin(), o.response->data().end(), a.data.begin());
      } else {
        a.status = o.failure->status;
        a.kind = o.failure->kind;
      }
    });
    while (!client.idle())
      client.poll(milliseconds(1000));
    return a;
  }

  template <class A>
  A get(const mad::SmpTarget& t, std::uint32_t mod = 0) {
    Answer a = call(mad::SmpRequest::get<A>(t, mod));
    EXPECT_TRUE(a.ok);
    if constexpr (std::is_same_v<A, mad::PortInfo>) {
      return decode_port_info_unchecked(mad::ConstPayload(a.data));
    } else {
      return *mad::decode<A>(a.data);
    }
  }

  mad::PortInfo set_state(const DrPath& p, mad::PortNum port, PortState s, Answer* out = nullptr) {
    mad::PortInfo pi = get<mad::PortInfo>(p, port);
    pi.port_state = s;
    pi.neighbor_mtu = 1;
    Answer a = call(mad::SmpRequest::set(p, pi, port));
    if (out != nullptr) *out = a;
    return decode_port_info_unchecked(mad::ConstPayload(a.data));
  }

  FakeClock clock;
  testsupport::Fabric desc;
  FakeFabric fabric;
  mad::SmpClient client;
};

TEST_F(FakeFabricTest, HopZeroIsTheSmNode) {
  const auto ni = get<mad::NodeInfo>(DrPath{});
  EXPECT_EQ(ni.node_type, mad::NodeType::kCa);
  EXPECT_EQ(ni.node_guid, fabric.node(fabric.index("h1")).info.node_guid);
  EXPECT_EQ(ni.local_port_num, 1);
  EXPECT_EQ(ni.port_guid, ni.node_guid + 1);
}

TEST_F(FakeFabricTest, DirectedRouteFollowsInitialPath) {
  const auto s1 = get<mad::NodeInfo>(path({1}));
  EXPECT_EQ(s1.node_type, mad::NodeType::kSwitch);
  EXPECT_EQ(s1.local_port_num, 1);  // the port the SMP came in on
  const auto s2 = get<mad::NodeInfo>(path({1, 2}));
  EXPECT_EQ(s2.node_guid, fabric.node(fabric.index("s2")).info.node_guid);
  EXPECT_EQ(s2.local_port_num, 1);
  const auto hx = get<mad::NodeInfo>(path({1, 2, 3}));
  EXPECT_EQ(hx.local_port_num, 2);
  EXPECT_EQ(hx.port_guid, hx.node_guid + 2);
}

TEST_F(FakeFabricTest, OnlySwitchesForward) {
  // Through hx (a CA) from port 1 to port 2: must be discarded (C14-9).
  Answer a = call(mad::SmpRequest::get<mad::NodeInfo>(path({1, 3, 2})));
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.kind, mad::SmpFailure::Kind::kTimeout);
  EXPECT_GE(fabric.stats().lost, 1u);
}

TEST_F(FakeFabricTest, FromACaTheFirstHopMustBeTheSmPort) {
  EXPECT_FALSE(call(mad::SmpRequest::get<mad::NodeInfo>(path({2}))).ok);
}

TEST_F(FakeFabricTest, DownLinksAndUnusedPortsLoseTheSmp) {
  EXPECT_FALSE(call(mad::SmpRequest::get<mad::NodeInfo>(path({1, 4}))).ok);  // no cable
  fabric.set_link(fabric.index("s1"), 2, false);
  EXPECT_FALSE(call(mad::SmpRequest::get<mad::NodeInfo>(path({1, 2}))).ok);
  const auto pi = get<mad::PortInfo>(path({1}), 2);
  EXPECT_EQ(pi.port_state, PortState::kDown);
  EXPECT_TRUE(get<mad::SwitchInfo>(path({1})).port_state_change);
}

TEST_F(FakeFabricTest, TimeoutsAdvanceTheFakeClockOnly) {
  const auto t0 = clock.now();
  EXPECT_FALSE(call(mad::SmpRequest::get<mad::NodeInfo>(path({1, 4}))).ok);
  EXPECT_EQ(clock.now() - t0, milliseconds(400));  // 2 attempts x 200 ms
}

TEST_F(FakeFabricTest, PortStateTransitionsFollowIba) {
  const DrPath sw = path({1});
  EXPECT_EQ(get<mad::PortInfo>(sw, 1).port_state, PortState::kInit);
  Answer a;
  set_state(sw, 1, PortState::kActive, &a);  // Init -> Active skips Armed
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.status, mad::kStatusInvalidValue);
  EXPECT_EQ(set_state(sw, 1, PortState::kArmed, &a).port_state, PortState::kArmed);
  EXPECT_TRUE(a.ok);
  set_state(sw, 1, PortState::kArmed, &a);  // X -> X
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(set_state(sw, 1, PortState::kActive, &a).port_state, PortState::kActive);
  EXPECT_TRUE(a.ok);
  set_state(sw, 0, PortState::kArmed, &a);  // switch port 0 has no link state to set
  EXPECT_FALSE(a.ok);
}

TEST_F(FakeFabricTest, PortInfoSetRulesAreAtomic) {
  mad::PortInfo pi = get<mad::PortInfo>(DrPath{}, 1);
  pi.lid = 5;
  pi.port_state = PortState::kNoChange;
  pi.neighbor_mtu = 5;  // above the CA's MTUCap of 4
  Answer a = call(mad::SmpRequest::set(DrPath{}, pi, 1));
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(fabric.node(fabric.index("h1")).ports[1].info.lid, 0);  // nothing applied
  pi.neighbor_mtu = 4;
  pi.operational_vls = 3;
  pi.client_reregister = true;
  a = call(mad::SmpRequest::set(DrPath{}, pi, 1));
  ASSERT_TRUE(a.ok);
  const auto now = decode_port_info_unchecked(mad::ConstPayload(a.data));
  EXPECT_EQ(now.lid, 5);
  EXPECT_EQ(now.neighbor_mtu, 4);
  EXPECT_EQ(now.operational_vls, 3);
  EXPECT_FALSE(now.client_reregister);
  EXPECT_EQ(fabric.local_port().lid, 5);
}

TEST_F(FakeFabricTest, ApplyPortInfoSetPureRules) {
  mad::PortInfo cur;
  cur.port_state = PortState::kInit;
  cur.mtu_cap = 4;
  cur.vl_cap = 3;
  mad::PortInfo req = cur;
  req.port_state = PortState::kNoChange;
  req.neighbor_mtu = 4;
  req.lid = 0xC000;  // multicast
  EXPECT_FALSE(apply_port_info_set(cur, req, true, true));
  EXPECT_TRUE(apply_port_info_set(cur, req, false, true));  // not a LID holder: ignored
  req.lid = 3;
  req.operational_vls = 4;  // above VLCap
  EXPECT_FALSE(apply_port_info_set(cur, req, true, true));
  req.operational_vls = 0;            // no change
  req.port_state = PortState::kInit;  // the SM cannot ask for Init
  EXPECT_FALSE(apply_port_info_set(cur, req, true, true));
  req.port_state = PortState::kDown;  // link retrains: back to Init
  auto down = apply_port_info_set(cur, req, true, true);
  ASSERT_TRUE(down);
  EXPECT_EQ(down->port_state, PortState::kInit);
  EXPECT_EQ(down->operational_vls, cur.operational_vls);
}

TEST_F(FakeFabricTest, SwitchInfoSetAndPortStateChangeWriteOneToClear) {
  const DrPath sw = path({1});
  auto si = get<mad::SwitchInfo>(sw);
  EXPECT_TRUE(si.port_state_change);  // ports came up
  si.linear_fdb_top = 0x40;
  si.port_state_change = false;  // writing 0 leaves the flag alone
  ASSERT_TRUE(call(mad::SmpRequest::set(sw, si)).ok);
  EXPECT_TRUE(get<mad::SwitchInfo>(sw).port_state_change);
  EXPECT_EQ(get<mad::SwitchInfo>(sw).linear_fdb_top, 0x40);
  si.port_state_change = true;  // writing 1 clears it
  ASSERT_TRUE(call(mad::SmpRequest::set(sw, si)).ok);
  EXPECT_FALSE(get<mad::SwitchInfo>(sw).port_state_change);
  si.linear_fdb_top = 0xC000;  // beyond LinearFDBCap
  EXPECT_FALSE(call(mad::SmpRequest::set(sw, si)).ok);
}

TEST_F(FakeFabricTest, UnsupportedAttributesAnswerWithStatus) {
  Answer a = call(mad::SmpRequest::get<mad::SwitchInfo>(DrPath{}));  // a CA has no SwitchInfo
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.status, mad::kStatusAttrUnsupported);
  a = call(mad::SmpRequest::get<mad::LftBlock>(path({1}), 0x1000));  // block beyond the cap
  EXPECT_EQ(a.status, mad::kStatusInvalidValue);
}

TEST_F(FakeFabricTest, LidRoutedSmpsFollowTheLfts) {
  // Program LIDs: h1 = 1, s1 = 2, s2 = 3, h2 = 4, and the LFTs to reach them.
  const std::uint32_t s1 = fabric.index("s1"), s2 = fabric.index("s2");
  fabric.node(fabric.index("h1")).ports[1].info.lid = 1;
  fabric.node(s1).ports[0].info.lid = 2;
  fabric.node(s2).ports[0].info.lid = 3;
  fabric.node(fabric.index("h2")).ports[1].info.lid = 4;
  EXPECT_FALSE(call(mad::SmpRequest::get<mad::NodeInfo>(mad::Lid{3})).ok);  // s1 has no route
  fabric.node(s1).lft[3] = 2;
  fabric.node(s1).lft[4] = 2;
  EXPECT_EQ(get<mad::NodeInfo>(mad::Lid{3}).node_guid, fabric.node(s2).info.node_guid);
  EXPECT_EQ(get<mad::NodeInfo>(mad::Lid{2}).node_guid, fabric.node(s1).info.node_guid);
  EXPECT_FALSE(call(mad::SmpRequest::get<mad::NodeInfo>(mad::Lid{4})).ok);  // s2 has no route
  fabric.node(s2).lft[4] = 2;
  EXPECT_EQ(get<mad::NodeInfo>(mad::Lid{4}).node_type, mad::NodeType::kCa);
  // A loop is caught, not followed forever.
  fabric.node(s2).lft[9] = 1;
  fabric.node(s1).lft[9] = 2;
  const LidRoute r = fabric.follow_lid(s1, 9);
  EXPECT_FALSE(r.reached);
  EXPECT_NE(r.error.find("loop"), std::string::npos) << r.error;
}

TEST_F(FakeFabricTest, ResetColdForgetsEverything) {
  const std::uint32_t s1 = fabric.index("s1");
  fabric.node(s1).ports[0].info.lid = 2;
  fabric.node(s1).lft[2] = 0;
  fabric.node(s1).ports[1].info.port_state = PortState::kActive;
  fabric.reset_cold();
  EXPECT_EQ(fabric.node(s1).ports[0].info.lid, 0);
  EXPECT_EQ(fabric.node(s1).lft[2], 0xFF);
  EXPECT_EQ(fabric.node(s1).ports[1].info.port_state, PortState::kInit);
  EXPECT_EQ(fabric.node(s1).ports[4].info.port_state, PortState::kDown);  // no cable
}

TEST_F(FakeFabricTest, ResponsesCarryKernelTidBitsAndReturnPath) {
  client.submit(mad::SmpRequest::get<mad::NodeInfo>(path({1, 2})), [](const mad::SmpOutcome& o) {
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o.response->tid() >> 32, 0x2au);
    EXPECT_EQ(o.response->bytes()[192 + 1], 1);  // entered s1 on port 1
    EXPECT_EQ(o.response->bytes()[192 + 2], 1);  // entered s2 on port 1
    EXPECT_EQ(o.response->bytes()[4] & 0x80, 0x80);
  });
  while (!client.idle())
    client.poll(milliseconds(100));
  EXPECT_EQ(client.counters().received, 1u);
}

TEST_F(FakeFabricTest, LossFaultsAreDeterministic) {
  fabric.lose_request(1);
  Answer a = call(mad::SmpRequest::get<mad::NodeInfo>(DrPath{}));
  EXPECT_TRUE(a.ok);  // the retry got through
  EXPECT_EQ(client.counters().retries, 1u);
  EXPECT_EQ(fabric.stats().dropped, 1u);
}

TEST_F(FakeFabricTest, VanishingNodeTakesItsLinksDown) {
  const std::uint32_t s2 = fabric.index("s2");
  fabric.faults(s2).vanish_after = 1;
  EXPECT_TRUE(call(mad::SmpRequest::get<mad::NodeInfo>(path({1, 2}))).ok);  // the last answer
  EXPECT_FALSE(call(mad::SmpRequest::get<mad::NodeInfo>(path({1, 2}))).ok);
  EXPECT_EQ(get<mad::PortInfo>(path({1}), 2).port_state, PortState::kDown);
}

}  // namespace
}  // namespace ibsm::fake
