// MCMemberRecord Set (join/create) and Delete (leave) as OpenSM 3.3 answers them,
// against an SM swept on the small fake fabric: Linux IPoIB's sequence on the
// pre-created broadcast group, rdma_cm's zero-MGID create, send-only joins,
// leaves, every error status, MLIDs reused without leak, traps 66/67 and the
// dirty MLIDs the SM reprograms. The pure rules (sa/mcast/join_rules.hpp) are
// pinned first.
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

#include "sa/inform_store.hpp"
#include "sa/mcast/join_rules.hpp"
#include "sa/record_layout.hpp"
#include "sa/records/record_util.hpp"
#include "tests/unit/sa/sa_fixture.hpp"

namespace ibsm::sa {
namespace {

using satest::SaRig;
namespace b = mcast::bit;

// IPoIB's broadcast join (ipoib_multicast.c): MGID | PortGID | P_Key | JoinState.
constexpr std::uint64_t kIpoibJoin = b::kMgid | b::kPortGid | b::kPKey | b::kJoinState;
// IPoIB's other groups: everything the broadcast group has, enough to create.
constexpr std::uint64_t kIpoibCreate = kIpoibJoin | b::kQKey | b::kMtuSel | b::kMtu | b::kTClass |
                                       b::kRateSel | b::kRate | b::kSl | b::kFlowLabel |
                                       b::kHopLimit;
// rdma_cm (cma_join_ib_multicast): MGID, PortGID, P_Key, JoinState, Q_Key, SL,
// FlowLabel, TClass.
constexpr std::uint64_t kRdmaCm = kIpoibJoin | b::kQKey | b::kSl | b::kFlowLabel | b::kTClass;

Gid mgid_of(std::initializer_list<std::uint16_t> words) {
  Gid g{};
  std::size_t i = 0;
  for (std::uint16_t w : words) {
    g[i++] = static_cast<std::uint8_t>(w >> 8);
    g[i++] = static_cast<std::uint8_t>(w);
  }
  return g;
}
const Gid kBroadcast = mgid_of({0xff12, 0x401b, 0xffff, 0, 0, 0, 0xffff, 0xffff});
const Gid kAllHosts = mgid_of({0xff12, 0x401b, 0xffff, 0, 0, 0, 0, 0x0001});
const Gid kIpv6AllNodes = mgid_of({0xff12, 0x601b, 0xffff, 0, 0, 0, 0, 0x0001});

Gid port_gid(Guid guid, std::uint64_t prefix = 0xfe80000000000000ull) {
  Gid g{};
  for (int i = 0; i < 8; ++i) {
    g[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(prefix >> (56 - 8 * i));
    g[static_cast<std::size_t>(8 + i)] = static_cast<std::uint8_t>(guid >> (56 - 8 * i));
  }
  return g;
}

struct Rec {
  std::vector<std::uint8_t> b = std::vector<std::uint8_t>(56, 0);
  Rec& mgid(const Gid& g) {
    std::copy(g.begin(), g.end(), b.begin());
    return *this;
  }
  Rec& port(const Gid& g) {
    std::copy(g.begin(), g.end(), b.begin() + 16);
    return *this;
  }
  Rec& qkey(std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
      b[static_cast<std::size_t>(32 + i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
    return *this;
  }
  Rec& mlid(std::uint16_t v) {
    b[36] = static_cast<std::uint8_t>(v >> 8);
    b[37] = static_cast<std::uint8_t>(v);
    return *this;
  }
  Rec& mtu(std::uint8_t sel, std::uint8_t v) {
    b[38] = static_cast<std::uint8_t>(sel << 6 | v);
    return *this;
  }
  Rec& pkey(std::uint16_t v) {
    b[40] = static_cast<std::uint8_t>(v >> 8);
    b[41] = static_cast<std::uint8_t>(v);
    return *this;
  }
  Rec& rate(std::uint8_t sel, std::uint8_t v) {
    b[42] = static_cast<std::uint8_t>(sel << 6 | v);
    return *this;
  }
  Rec& state(std::uint8_t scope_state) {
    b[48] = scope_state;
    return *this;
  }
};

Gid gid_at(std::span<const std::uint8_t> r, std::size_t off) {
  Gid g{};
  std::copy_n(r.begin() + static_cast<std::ptrdiff_t>(off), 16, g.begin());
  return g;
}
std::uint16_t mlid_of(std::span<const std::uint8_t> r) {
  return static_cast<std::uint16_t>(r[36] << 8 | r[37]);
}

// kSmallNet port GUIDs (ibsim numbering): ha 0x100001, hb 0x100003, hc 0x100005.
std::unique_ptr<SaRig> rig_with(const std::string& partitions = {}, conf::Options o = {}) {
  std::filesystem::path path;
  if (partitions.empty()) {
    o.partition_config_file = "/nonexistent/ibsm-test/partitions.conf";
  } else {
    path = std::filesystem::temp_directory_path() /
           ("ibsm-mcjoin-" + std::to_string(::getpid()) + "-partitions.conf");
    std::ofstream(path) << partitions;
    o.partition_config_file = path.string();
  }
  auto rig = std::make_unique<SaRig>(satest::kSmallNet, o);
  if (!path.empty()) std::filesystem::remove(path);
  return rig;
}

class Join : public ::testing::Test {
 protected:
  void SetUp() override { rig = rig_with(); }
  McGroupStore& store() { return rig->sa().state().mcast; }
  Gid gid(const char* node, PortNum port = 1) { return port_gid(rig->port_guid_of(node, port)); }
  std::optional<SaRig::Answer> set(const char* from, const Rec& r, std::uint64_t mask) {
    return rig->request(method::kSet, attr::kMcMemberRecord, r.b, mask, rig->lid_of(from));
  }
  std::optional<SaRig::Answer> del(const char* from, const Rec& r, std::uint64_t mask) {
    return rig->request(method::kDelete, attr::kMcMemberRecord, r.b, mask, rig->lid_of(from));
  }
  std::uint16_t set_status(const char* from, const Rec& r, std::uint64_t mask) {
    auto a = set(from, r, mask);
    return a ? a->header.status : 0xffff;
  }
  std::uint16_t del_status(const char* from, const Rec& r, std::uint64_t mask) {
    auto a = del(from, r, mask);
    return a ? a->header.status : 0xffff;
  }
  // IPoIB's create of another group with the broadcast group's parameters.
  Rec ipoib_create(const Gid& mgid, const char* node, std::uint8_t state = 0x1) {
    return Rec{}.mgid(mgid).port(gid(node)).qkey(0x0b1b).mtu(2, 4).pkey(0xffff).rate(2, 3).state(
        state);
  }
  Rec rdma_cm(const Gid& mgid, const char* node, std::uint8_t state = 0x1) {
    return Rec{}.mgid(mgid).port(gid(node)).qkey(0x80010000).pkey(0xffff).state(state);
  }
  const mad::PortInfo& port_info(const char* node) {
    const Snapshot& s = *rig->sa().snapshot();
    return s.port(s.find_port_guid(rig->port_guid_of(node))).info;
  }
  std::unique_ptr<SaRig> rig;
};

// ---- the member list ----

// Members are found by the interface ID of their PortGID whatever was added or
// removed before them: the index follows pushes, removals that shift the list, and a
// clear; of two members under one interface ID the first is found, as by a scan.
TEST(McMembers, FoundByInterfaceIdThroughPushesAndRemovals) {
  auto member = [](Guid id, std::uint8_t state) {
    McMember m;
    m.port_gid = make_gid(0xfe80000000000000ull, id);
    m.port_guid = id;
    m.join_state = state;
    return m;
  };
  McMembers ms;
  for (Guid id = 1; id <= 100; ++id)
    ms.push_back(member(id, 1));
  ms.push_back(member(50, 2));  // a second member under interface ID 50
  ASSERT_EQ(ms.size(), 101u);
  for (Guid id = 1; id <= 100; ++id) {
    const McMember* m = ms.find(id);
    ASSERT_NE(m, nullptr) << id;
    EXPECT_EQ(m->port_guid, id);
  }
  EXPECT_EQ(ms.find(50)->join_state, 1);
  EXPECT_EQ(ms.find(101), nullptr);

  EXPECT_EQ(ms.erase_if([](const McMember& m) { return m.port_guid % 3 == 0; }), 33u);
  for (Guid id = 1; id <= 100; ++id) {
    const McMember* m = ms.find(id);
    if (id % 3 == 0) {
      EXPECT_EQ(m, nullptr) << id;
    } else {
      ASSERT_NE(m, nullptr) << id;
      EXPECT_EQ(m->port_guid, id);
    }
  }
  EXPECT_EQ(ms.erase_if([](const McMember& m) { return m.port_guid == 50 && m.join_state == 1; }),
            1u);
  ASSERT_NE(ms.find(50), nullptr);
  EXPECT_EQ(ms.find(50)->join_state, 2);
  McMember& added = ms.push_back(member(300, 4));
  EXPECT_EQ(ms.find(300), &added);
  ms.clear();
  EXPECT_TRUE(ms.empty());
  EXPECT_EQ(ms.find(1), nullptr);
}

// ---- the pure rules ----

TEST(JoinRules, RequestedMgidFollowsIba411) {
  EXPECT_TRUE(mcast::requested_mgid_valid(mgid_of({0xff15, 0x4001, 0xffff})));
  EXPECT_FALSE(mcast::requested_mgid_valid(mgid_of({0xfe12, 0x4001})));         // not 0xFF
  EXPECT_FALSE(mcast::requested_mgid_valid(mgid_of({0xff32, 0x4001})));         // reserved flag
  EXPECT_FALSE(mcast::requested_mgid_valid(mgid_of({0xff12, 0xa01b})));         // SA's, link-local
  EXPECT_TRUE(mcast::requested_mgid_valid(mgid_of({0xff15, 0xa01b})));          // SA's, site
  EXPECT_TRUE(mcast::requested_mgid_valid(mgid_of({0xff72, 0x401b, 0xffff})));  // IPoIB
}

TEST(JoinRules, IpoibBroadcastAndSolicitedNode) {
  EXPECT_EQ(mcast::ipoib_broadcast_for(kAllHosts), kBroadcast);
  EXPECT_EQ(mcast::ipoib_broadcast_for(kIpv6AllNodes), kBroadcast);
  EXPECT_FALSE(mcast::ipoib_broadcast_for(kBroadcast));
  EXPECT_FALSE(mcast::ipoib_broadcast_for(mgid_of({0xff12, 0xa01b})));
  const Gid snm1 = mgid_of({0xff12, 0x601b, 0xffff, 0, 0, 1, 0xff00, 0x0001});
  const Gid snm2 = mgid_of({0xff12, 0x601b, 0xffff, 0, 0, 1, 0xff12, 0x3456});
  EXPECT_TRUE(mcast::is_ipv6_snm(snm1));
  EXPECT_TRUE(mcast::same_snm_family(snm1, snm2));
  EXPECT_FALSE(mcast::is_ipv6_snm(kIpv6AllNodes));
  EXPECT_FALSE(mcast::same_snm_family(snm1, mgid_of({0xff12, 0x601b, 0x8001, 0, 0, 1, 0xff00})));
}

TEST(JoinRules, SaAssignedMgidIsOpenSmsLayout) {
  const Gid g = mcast::sa_assigned_mgid(2, 0xfe80000000000000ull, 0x01020304);
  EXPECT_EQ(g, (Gid{0xff, 0x12, 0xa0, 0x1b, 0xfe, 0x80, 0, 0, 0, 0, 4, 3, 2, 1, 0, 0}));
}

TEST(JoinRules, CreateMtuAndRateFromSelectors) {
  mcast::McRequest r;
  EXPECT_EQ(mcast::create_mtu(r, 4), 4);  // absent: the port's
  r.mask = b::kMtuSel | b::kMtu;
  r.mtu_sel = 0, r.mtu = 3;
  EXPECT_EQ(mcast::create_mtu(r, 4), 4);  // ">": the port's, above the request
  r.mtu = 4;
  EXPECT_FALSE(mcast::create_mtu(r, 4));
  r.mtu_sel = 1, r.mtu = 5;
  EXPECT_EQ(mcast::create_mtu(r, 3), 3);  // "<" above the port: the port's
  r.mtu = 3;
  EXPECT_EQ(mcast::create_mtu(r, 5), 2);  // one below
  r.mtu = 1;
  EXPECT_FALSE(mcast::create_mtu(r, 5));
  r.mtu_sel = 2, r.mtu = 5;
  EXPECT_EQ(mcast::create_mtu(r, 4), 5);  // "=" as given (the port check comes after)
  r.mask = b::kRateSel | b::kRate;
  r.rate_sel = 0, r.rate = 3;
  EXPECT_EQ(mcast::create_rate(r, 6), 6);
  EXPECT_FALSE(mcast::create_rate(r, 3));
  r.rate_sel = 1, r.rate = 6;
  EXPECT_EQ(mcast::create_rate(r, 16), 11);  // 30 Gb/s → 20 Gb/s, the next slower
}

TEST(JoinRules, LeaveKeepsFullMembersAndClosesOpenSmsLeak) {
  EXPECT_TRUE(mcast::leave_bits_valid(0x9, 0x1));
  EXPECT_FALSE(mcast::leave_bits_valid(0x1, 0x2));  // a bit not held
  EXPECT_FALSE(mcast::leave_bits_valid(0x1, 0x0));
  EXPECT_FALSE(mcast::leave_bits_valid(0x1, 0x3));
  EXPECT_EQ(mcast::state_after_leave(0x1, 0x1, true), 0);
  EXPECT_EQ(mcast::state_after_leave(0x3, 0x1, true), 0x2);   // non-member under others
  EXPECT_EQ(mcast::state_after_leave(0x3, 0x1, false), 0);    // nobody keeps the group
  EXPECT_EQ(mcast::state_after_leave(0x9, 0x1, false), 0x8);  // OpenSM drops it: leak
}

TEST(JoinRules, DecoderReadsShortInputAsZeros) {
  const std::array<std::uint8_t, 3> three{0xff, 0x12, 0x40};
  const auto r = mcast::decode_request(three, ~0ull);
  EXPECT_EQ(r.mgid[0], 0xff);
  EXPECT_EQ(r.mgid[3], 0);
  EXPECT_EQ(r.join_state, 0);
}

// ---- Linux IPoIB ----

TEST_F(Join, IpoibBroadcastJoinThenIpv4AndIpv6Groups) {
  // The broadcast join cannot create (no Q_Key): the SM's pre-created group answers.
  auto a = set("ha", Rec{}.mgid(kBroadcast).port(gid("ha")).pkey(0xffff).state(0x1), kIpoibJoin);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kGetResp);
  EXPECT_EQ(a->header.status, 0);
  ASSERT_EQ(a->record_count(), 1u);
  const auto r = a->record(0);
  EXPECT_EQ(gid_at(r, 0), kBroadcast);
  EXPECT_EQ(gid_at(r, 16), gid("ha"));
  EXPECT_EQ(r[32] << 24 | r[33] << 16 | r[34] << 8 | r[35], 0x0b1b);
  EXPECT_EQ(mlid_of(r), 0xc000);
  EXPECT_EQ(r[38], 0x84);
  EXPECT_EQ(r[40] << 8 | r[41], 0xffff);
  EXPECT_EQ(r[42], 0x83);
  EXPECT_EQ(r[43] >> 6, 2);
  EXPECT_EQ(r[48], 0x21);
  EXPECT_EQ(a->bytes.size(), 56u + 56u);
  // Visible at once to a trusted GetTable.
  auto t = rig->request(method::kGetTable, attr::kMcMemberRecord, Rec{}.port(gid("ha")).b,
                        b::kPortGid, rig->lid_of("hb"), 1);
  ASSERT_TRUE(t);
  ASSERT_EQ(t->record_count(), 1u);
  EXPECT_EQ(t->record(0)[48], 0x21);

  auto v4 = set("ha", ipoib_create(kAllHosts, "ha"), kIpoibCreate);
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->header.status, 0);
  EXPECT_EQ(mlid_of(v4->record(0)), 0xc001);
  auto v6 = set("ha", ipoib_create(kIpv6AllNodes, "ha"), kIpoibCreate);
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->header.status, 0);
  EXPECT_EQ(mlid_of(v6->record(0)), 0xc002);
  // Another port joins the IPv4 group with the same record.
  EXPECT_EQ(set_status("hb", ipoib_create(kAllHosts, "hb"), kIpoibCreate), 0);
  // A Q_Key other than the broadcast group's cannot create an IPoIB group.
  const Gid other = mgid_of({0xff12, 0x401b, 0xffff, 0, 0, 0, 0, 0x0002});
  EXPECT_EQ(set_status("ha", ipoib_create(other, "ha").qkey(0x1234), kIpoibCreate),
            status::kReqInvalid);
  EXPECT_EQ(store().find(other), nullptr);
  // An IPoIB group of a partition without a broadcast group: refused.
  const Gid orphan = mgid_of({0xff12, 0x401b, 0x8123, 0, 0, 0, 0, 0x0001});
  EXPECT_EQ(set_status("ha", ipoib_create(orphan, "ha").pkey(0x8123), kIpoibCreate),
            status::kReqInvalid);
  // Joining an existing group with another Q_Key (mcgroup_join_validation).
  EXPECT_EQ(set_status("hc", ipoib_create(kAllHosts, "hc").qkey(0x1234), kIpoibCreate),
            status::kReqInvalid);
}

TEST(JoinOptions, ValidationOptionsOffAcceptWhatOpenSmThenAccepts) {
  conf::Options o;
  o.ipoib_mcgroup_creation_validation = false;
  o.mcgroup_join_validation = false;
  auto rig = rig_with({}, o);
  const Gid other = mgid_of({0xff12, 0x401b, 0xffff, 0, 0, 0, 0, 0x0002});
  Rec r =
      Rec{}.mgid(other).port(port_gid(rig->port_guid_of("ha"))).qkey(0x1234).pkey(0xffff).state(1);
  auto a = rig->request(method::kSet, attr::kMcMemberRecord, r.b, kRdmaCm, rig->lid_of("ha"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, 0);
  r.port(port_gid(rig->port_guid_of("hb"))).qkey(0x9999);
  a = rig->request(method::kSet, attr::kMcMemberRecord, r.b, kRdmaCm, rig->lid_of("hb"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, 0);
}

// ---- rdma_cm and send-only ----

TEST_F(Join, ZeroMgidCreatesAnSaAssignedGroup) {
  auto a = set("ha", rdma_cm(Gid{}, "ha"), kRdmaCm);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->header.status, 0);
  const Gid first = gid_at(a->record(0), 0);
  EXPECT_EQ(first[0], 0xff);
  EXPECT_EQ(first[1], 0x12);  // link-local unless the request names a scope
  EXPECT_EQ(first[2], 0xa0);
  EXPECT_EQ(first[3], 0x1b);
  EXPECT_EQ(first[4], 0xfe);
  EXPECT_EQ(first[5], 0x80);
  EXPECT_EQ(mlid_of(a->record(0)), 0xc001);
  EXPECT_EQ(a->record(0)[48] & 0x0f, 0x1);
  ASSERT_NE(store().find(first), nullptr);
  // The group takes the creating port's MTU (no selector given).
  EXPECT_EQ(a->record(0)[38], 0x80 | port_info("ha").neighbor_mtu);
  auto second = set("ha", rdma_cm(Gid{}, "ha").state(0x5 << 4 | 0x1), kRdmaCm | b::kScope);
  ASSERT_TRUE(second);
  ASSERT_EQ(second->header.status, 0);
  const Gid g2 = gid_at(second->record(0), 0);
  EXPECT_NE(g2, first);
  EXPECT_EQ(g2[1], 0x15);
}

TEST_F(Join, SendOnlyFullCreatesAndSendOnlyJoins) {
  const Gid g = mgid_of({0xff15, 0x4001, 0xffff, 0, 0, 0, 0, 7});
  auto a = set("ha", rdma_cm(g, "ha", 0x8), kRdmaCm);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->header.status, 0);
  EXPECT_EQ(a->record(0)[48] & 0x0f, 0x8);
  EXPECT_EQ(set_status("hb", rdma_cm(g, "hb", 0x8), kRdmaCm), 0);
  EXPECT_EQ(set_status("hc", rdma_cm(g, "hc", 0x2), kRdmaCm), 0);  // non-member joins
  // A second join ORs its bits into the member.
  auto more = set("ha", rdma_cm(g, "ha", 0x1), kRdmaCm);
  ASSERT_TRUE(more);
  EXPECT_EQ(more->record(0)[48] & 0x0f, 0x9);
  ASSERT_EQ(store().find(g)->members.size(), 3u);
}

// ---- leaves ----

TEST_F(Join, LeaveAnswersTheRemainingStateAndEndsTheCreatedGroup) {
  const Gid g = mgid_of({0xff15, 0x4001, 0xffff, 0, 0, 0, 0, 9});
  ASSERT_EQ(set_status("ha", rdma_cm(g, "ha", 0x3), kRdmaCm), 0);
  ASSERT_EQ(set_status("hb", rdma_cm(g, "hb", 0x1), kRdmaCm), 0);
  const std::size_t in_use = store().mlids_in_use();
  auto a = del("ha", Rec{}.mgid(g).port(gid("ha")).state(0x1), kIpoibJoin);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.method, method::kDeleteResp);
  EXPECT_EQ(a->header.status, 0);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(a->record(0)[48] & 0x0f, 0x2);  // hb keeps the group: ha stays a non-member
  EXPECT_EQ(a->record(0)[38] >> 6, 2);      // selectors 2, as OpenSM answers a leave
  a = del("ha", Rec{}.mgid(g).port(gid("ha")).state(0x2), kIpoibJoin);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, 0);
  EXPECT_EQ(a->record(0)[48] & 0x0f, 0);
  ASSERT_NE(store().find(g), nullptr);
  a = del("hb", Rec{}.mgid(g).port(gid("hb")).state(0x1), kIpoibJoin);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, 0);
  EXPECT_EQ(store().find(g), nullptr);  // created group gone with its last full member
  EXPECT_EQ(store().mlids_in_use(), in_use - 1);
  auto get = rig->request(method::kGet, attr::kMcMemberRecord, Rec{}.mgid(g).b, b::kMgid,
                          rig->lid_of("ha"));
  ASSERT_TRUE(get);
  EXPECT_EQ(get->header.status, status::kNoRecords);
}

TEST_F(Join, WellKnownGroupStaysAfterTheLastLeave) {
  ASSERT_EQ(
      set_status("ha", Rec{}.mgid(kBroadcast).port(gid("ha")).pkey(0xffff).state(1), kIpoibJoin),
      0);
  ASSERT_EQ(del_status("ha", Rec{}.mgid(kBroadcast).port(gid("ha")).state(1), kIpoibJoin), 0);
  const McGroupRec* g = store().find(kBroadcast);
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->members.empty());
  EXPECT_EQ(g->mlid, 0xc000);
}

// ---- statuses ----

TEST_F(Join, StatusesOfRefusedJoins) {
  const Rec bcast = Rec{}.mgid(kBroadcast).port(gid("ha")).pkey(0xffff).state(1);
  // o15-0.1.9: MGID, PortGID and JoinState are required.
  EXPECT_EQ(set_status("ha", bcast, b::kMgid | b::kPortGid), status::kInsufficientComponents);
  EXPECT_EQ(del_status("ha", bcast, b::kMgid | b::kJoinState), status::kInsufficientComponents);
  // A PortGID prefix that is neither link-local nor the subnet's.
  Rec foreign = bcast;
  foreign.port(port_gid(rig->port_guid_of("ha"), 0xfec0000000000000ull));
  EXPECT_EQ(set_status("ha", foreign, kIpoibJoin), status::kReqInvalidGid);
  EXPECT_EQ(del_status("ha", foreign, kIpoibJoin), status::kReqInvalidGid);
  // Unknown port.
  Rec unknown = bcast;
  unknown.port(port_gid(0x0123456789abcdefull));
  EXPECT_EQ(set_status("ha", unknown, kIpoibJoin), status::kReqInvalid);
  // JoinState 0.
  Rec zero = bcast;
  zero.state(0);
  EXPECT_EQ(set_status("ha", zero, kIpoibJoin), status::kReqInvalid);
  // P_Key with base 0.
  Rec bad_pkey = bcast;
  bad_pkey.pkey(0x8000);
  EXPECT_EQ(set_status("ha", bad_pkey, kIpoibJoin), status::kReqInvalid);
  // Invalid MTU enum with its selector.
  Rec bad_mtu = bcast;
  bad_mtu.mtu(2, 7);
  EXPECT_EQ(set_status("ha", bad_mtu, kIpoibJoin | b::kMtuSel | b::kMtu), status::kReqInvalid);
  // MTU selector the group does not satisfy (group 2048, "greater than 2048").
  Rec greater = bcast;
  greater.mtu(0, 4);
  EXPECT_EQ(set_status("ha", greater, kIpoibJoin | b::kMtuSel | b::kMtu), status::kReqInvalid);
  greater.mtu(1, 5);  // "less than 4096": 2048 qualifies
  EXPECT_EQ(set_status("ha", greater, kIpoibJoin | b::kMtuSel | b::kMtu), 0);

  const Gid fresh = mgid_of({0xff15, 0x4001, 0xffff, 0, 0, 0, 0, 0x42});
  // Create needs a full member and the create components.
  EXPECT_EQ(set_status("ha", rdma_cm(fresh, "ha", 0x2), kRdmaCm), status::kReqInvalid);
  EXPECT_EQ(set_status("ha", rdma_cm(fresh, "ha"), kRdmaCm & ~b::kQKey),
            status::kInsufficientComponents);
  // Invalid MGIDs for a create.
  EXPECT_EQ(set_status("ha", rdma_cm(mgid_of({0xfe15, 0x4001, 1}), "ha"), kRdmaCm),
            status::kReqInvalid);
  EXPECT_EQ(set_status("ha", rdma_cm(mgid_of({0xff35, 0x4001, 1}), "ha"), kRdmaCm),
            status::kReqInvalid);
  EXPECT_EQ(set_status("ha", rdma_cm(mgid_of({0xff12, 0xa01b, 1}), "ha"), kRdmaCm),
            status::kReqInvalid);
  // A group MTU above the creating port's NeighborMTU cannot be carried.
  const std::uint8_t port_mtu = port_info("ha").neighbor_mtu;
  ASSERT_GE(port_mtu, 1);
  if (port_mtu < 5) {
    EXPECT_EQ(set_status("ha", rdma_cm(fresh, "ha").mtu(2, static_cast<std::uint8_t>(port_mtu + 1)),
                         kRdmaCm | b::kMtuSel | b::kMtu),
              status::kReqInvalid);
  }
  EXPECT_EQ(store().find(fresh), nullptr);
  EXPECT_EQ(store().mlids_in_use(), 1u);  // nothing refused took an MLID
  ASSERT_EQ(set_status("ha", rdma_cm(fresh, "ha"), kRdmaCm), 0);
  EXPECT_EQ(store().mlids_in_use(), 2u);
}

TEST_F(Join, StatusesOfRefusedLeaves) {
  const Gid g = mgid_of({0xff15, 0x4001, 0xffff, 0, 0, 0, 0, 0x11});
  ASSERT_EQ(set_status("ha", rdma_cm(g, "ha", 0x1), kRdmaCm), 0);
  // Unknown group, non-member, bits not held, nothing named.
  EXPECT_EQ(del_status("ha", Rec{}.mgid(kAllHosts).port(gid("ha")).state(1), kIpoibJoin),
            status::kReqInvalid);
  EXPECT_EQ(del_status("hb", Rec{}.mgid(g).port(gid("hb")).state(1), kIpoibJoin),
            status::kReqInvalid);
  EXPECT_EQ(del_status("ha", Rec{}.mgid(g).port(gid("ha")).state(2), kIpoibJoin),
            status::kReqInvalid);
  EXPECT_EQ(del_status("ha", Rec{}.mgid(g).port(gid("ha")).state(0), kIpoibJoin),
            status::kReqInvalid);
  // o15-0.2.1: not a proxy member, so another port may not remove it.
  EXPECT_EQ(del_status("hb", Rec{}.mgid(g).port(gid("ha")).state(1), kIpoibJoin),
            status::kReqInvalid);
  ASSERT_NE(store().find(g), nullptr);
  EXPECT_EQ(store().find(g)->members.size(), 1u);
}

TEST(JoinPartitions, ProxyJoinAndPartitionRules) {
  // hd and hx are in no partition of the file: both hold only the default
  // partition as limited members, so they share nothing (IBA 10.9.3).
  auto rig = rig_with(
      "Default=0x7fff, ipoib : 0x100001=full, 0x100003=full;\n"
      "Other=0x0020 : 0x100005=full;\n");
  auto set = [&](const char* from, const Rec& r, std::uint64_t mask) {
    auto a = rig->request(method::kSet, attr::kMcMemberRecord, r.b, mask, rig->lid_of(from));
    return a ? a->header.status : 0xffff;
  };
  auto gid = [&](const char* n, PortNum p = 1) { return port_gid(rig->port_guid_of(n, p)); };
  // A proxy join needs a partition in common with the port it joins.
  EXPECT_EQ(set("hd", Rec{}.mgid(kBroadcast).port(gid("hx")).pkey(0xffff).state(1), kIpoibJoin),
            status::kReqInvalid);
  // hb shares the default partition with ha: a proxy join, and hb may change it.
  const Rec bcast_ha = Rec{}.mgid(kBroadcast).port(gid("ha")).pkey(0xffff).state(1);
  EXPECT_EQ(set("hb", bcast_ha, kIpoibJoin), 0);
  const McGroupRec* g = rig->sa().state().mcast.find(kBroadcast);
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->members.size(), 1u);
  EXPECT_TRUE(g->members[0].proxy);
  auto del = rig->request(method::kDelete, attr::kMcMemberRecord,
                          Rec{}.mgid(kBroadcast).port(gid("ha")).state(1).b, kIpoibJoin,
                          rig->lid_of("hb"));
  ASSERT_TRUE(del);
  EXPECT_EQ(del->header.status, 0);
  // A port joins only groups of partitions it is in: hc creates one in Other, ha
  // (not in Other) cannot join it.
  const Gid other = mgid_of({0xff15, 0x4001, 0x0020, 0, 0, 0, 0, 1});
  EXPECT_EQ(set("hc", Rec{}.mgid(other).port(gid("hc")).qkey(1).pkey(0x8020).state(1), kRdmaCm), 0);
  EXPECT_EQ(set("ha", Rec{}.mgid(other).port(gid("ha")).pkey(0x8020).state(1), kIpoibJoin),
            status::kReqInvalid);
}

// ---- MLIDs, dirty marks, traps ----

TEST_F(Join, TwoThousandCreateLeaveCyclesReuseOneMlid) {
  const std::size_t base = store().mlids_in_use();
  const Gid g = mgid_of({0xff15, 0x4001, 0xffff, 0, 0, 0, 0, 0x77});
  int cycles = 0;
  for (int i = 0; i < 2000; ++i) {
    // OpenSM's leaking pattern (opensm PR #43): SendOnlyFull with Full, then the
    // Full bit leaves first.
    auto a = set("ha", rdma_cm(g, "ha", 0x9), kRdmaCm);
    ASSERT_TRUE(a);
    ASSERT_EQ(a->header.status, 0) << "cycle " << i;
    ASSERT_EQ(mlid_of(a->record(0)), 0xc001) << "cycle " << i;
    auto l1 = del("ha", Rec{}.mgid(g).port(gid("ha")).state(0x1), kIpoibJoin);
    ASSERT_TRUE(l1);
    ASSERT_EQ(l1->header.status, 0);
    ASSERT_EQ(l1->record(0)[48] & 0x0f, 0x8);  // still a send-only full member
    ASSERT_EQ(del_status("ha", Rec{}.mgid(g).port(gid("ha")).state(0x8), kIpoibJoin), 0);
    ASSERT_EQ(store().find(g), nullptr);
    // A zero-MGID create and a full leave.
    auto z = set("hb", rdma_cm(Gid{}, "hb"), kRdmaCm);
    ASSERT_TRUE(z);
    ASSERT_EQ(z->header.status, 0);
    ASSERT_EQ(
        del_status("hb", Rec{}.mgid(gid_at(z->record(0), 0)).port(gid("hb")).state(1), kIpoibJoin),
        0);
    ASSERT_EQ(store().mlids_in_use(), base);
    ++cycles;
  }
  EXPECT_EQ(cycles, 2000);
  EXPECT_EQ(store().groups().size(), 1u);
}

TEST(JoinMlids, RequestedMlidAndExhaustion) {
  auto rig = rig_with();
  McGroupStore& store = rig->sa().state().mcast;
  store.set_mlid_limit(0xC002);  // three MLIDs: the broadcast group's and two more
  auto create = [&](std::uint16_t n, std::uint16_t mlid) {
    Rec r = Rec{}
                .mgid(mgid_of({0xff15, 0x4001, 0xffff, 0, 0, 0, 0, n}))
                .port(port_gid(rig->port_guid_of("ha")))
                .qkey(1)
                .pkey(0xffff)
                .mlid(mlid)
                .state(1);
    return rig->request(method::kSet, attr::kMcMemberRecord, r.b, kRdmaCm, rig->lid_of("ha"));
  };
  auto a = create(1, 0xC002);  // the requested MLID when free
  ASSERT_TRUE(a);
  EXPECT_EQ(mlid_of(a->record(0)), 0xC002);
  a = create(2, 0xC002);  // taken: the lowest free
  ASSERT_TRUE(a);
  EXPECT_EQ(mlid_of(a->record(0)), 0xC001);
  a = create(3, 0);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->header.status, status::kNoResources);
}

TEST_F(Join, EveryMembershipChangeMarksTheMlidDirty) {
  (void)store().take_dirty();
  const Rec bcast = Rec{}.mgid(kBroadcast).port(gid("ha")).pkey(0xffff).state(1);
  ASSERT_EQ(set_status("ha", bcast, kIpoibJoin), 0);
  EXPECT_EQ(store().take_dirty(), (std::set<Lid>{0xc000}));
  // The same bits again change nothing.
  ASSERT_EQ(set_status("ha", bcast, kIpoibJoin), 0);
  EXPECT_TRUE(store().take_dirty().empty());
  // A refused join changes nothing either.
  Rec zero = bcast;
  zero.state(0);
  EXPECT_NE(set_status("ha", zero, kIpoibJoin), 0);
  EXPECT_TRUE(store().take_dirty().empty());
  ASSERT_EQ(del_status("ha", bcast, kIpoibJoin), 0);
  EXPECT_EQ(store().take_dirty(), (std::set<Lid>{0xc000}));
  // A create and the end of the group.
  const Gid g = mgid_of({0xff15, 0x4001, 0xffff, 0, 0, 0, 0, 5});
  ASSERT_EQ(set_status("hb", rdma_cm(g, "hb"), kRdmaCm), 0);
  EXPECT_EQ(store().take_dirty(), (std::set<Lid>{0xc001}));
  ASSERT_EQ(del_status("hb", Rec{}.mgid(g).port(gid("hb")).state(1), kIpoibJoin), 0);
  EXPECT_EQ(store().take_dirty(), (std::set<Lid>{0xc001}));
}

TEST(JoinOptions, Ipv6SolicitedNodeGroupsShareAnMlidWhenConsolidated) {
  for (const bool consolidate : {false, true}) {
    conf::Options o;
    o.consolidate_ipv6_snm_req = consolidate;
    auto rig = rig_with({}, o);
    const Gid ha = port_gid(rig->port_guid_of("ha"));
    std::set<std::uint16_t> mlids;
    for (std::uint16_t tail : {0x0001, 0x0002, 0x0003}) {
      const Gid snm = mgid_of({0xff12, 0x601b, 0xffff, 0, 0, 1, 0xff00, tail});
      Rec r = Rec{}.mgid(snm).port(ha).qkey(0x0b1b).mtu(2, 4).pkey(0xffff).rate(2, 3).state(1);
      auto a =
          rig->request(method::kSet, attr::kMcMemberRecord, r.b, kIpoibCreate, rig->lid_of("ha"));
      ASSERT_TRUE(a);
      ASSERT_EQ(a->header.status, 0);
      mlids.insert(mlid_of(a->record(0)));
    }
    EXPECT_EQ(mlids.size(), consolidate ? 1u : 3u);
    // Leaving every group frees the shared MLID once.
    for (std::uint16_t tail : {0x0001, 0x0002, 0x0003}) {
      const Gid snm = mgid_of({0xff12, 0x601b, 0xffff, 0, 0, 1, 0xff00, tail});
      Rec r = Rec{}.mgid(snm).port(ha).state(1);
      auto a =
          rig->request(method::kDelete, attr::kMcMemberRecord, r.b, kIpoibJoin, rig->lid_of("ha"));
      ASSERT_TRUE(a);
      ASSERT_EQ(a->header.status, 0);
    }
    EXPECT_EQ(rig->sa().state().mcast.mlids_in_use(), 1u);
  }
}

// Subscribes `node` to every trap (InformInfo Set, IBA 13.4.8.3).
void subscribe_all(SaRig& rig, const char* node) {
  std::vector<std::uint8_t> ii(kInformInfoSize, 0);
  ii[16] = ii[17] = 0xff;  // LIDRange begin 0xFFFF: all
  ii[22] = 1;              // generic
  ii[23] = 1;              // subscribe
  ii[24] = ii[25] = 0xff;  // any type
  ii[26] = ii[27] = 0xff;  // any trap
  ii[33] = ii[34] = ii[35] = 0xff;
  auto a = rig.request(method::kSet, attr::kInformInfo, ii, 0, rig.lid_of(node));
  ASSERT_TRUE(a);
  ASSERT_EQ(a->header.status, 0);
}

// (trap number, MGID) of the Reports sent from `from` on, retransmissions left out.
std::vector<std::pair<std::uint16_t, Gid>> group_reports(const SaRig& rig, std::size_t from) {
  std::vector<std::pair<std::uint16_t, Gid>> out;
  std::set<std::uint64_t> tids;
  for (std::size_t i = from; i < rig.fabric->sent.size(); ++i) {
    const auto& s = rig.fabric->sent[i];
    if (s.bytes.size() < kHeaderSize + kNoticeSize) continue;
    const SaHeader h = decode_header(s.bytes);
    if (h.method != method::kReport || !tids.insert(h.tid).second) continue;
    NoticeBytes n{};
    std::copy_n(s.bytes.begin() + kHeaderSize, kNoticeSize, n.begin());
    const NoticeView v{n};
    out.emplace_back(v.trap_number(), v.details_gid());
  }
  return out;
}

using Traps = std::vector<std::pair<std::uint16_t, Gid>>;

TEST_F(Join, Traps66And67FollowTheFullMemberCount) {
  subscribe_all(*rig, "hd");
  std::size_t mark = rig->fabric->sent.size();
  const Gid g = mgid_of({0xff15, 0x4001, 0xffff, 0, 0, 0, 0, 0x66});
  ASSERT_EQ(set_status("ha", rdma_cm(g, "ha"), kRdmaCm), 0);
  EXPECT_EQ(group_reports(*rig, mark), (Traps{{66, g}}));
  // A second full member and a non-member: no trap.
  mark = rig->fabric->sent.size();
  ASSERT_EQ(set_status("hb", rdma_cm(g, "hb"), kRdmaCm), 0);
  ASSERT_EQ(set_status("hc", rdma_cm(g, "hc", 0x2), kRdmaCm), 0);
  ASSERT_EQ(del_status("hb", Rec{}.mgid(g).port(gid("hb")).state(1), kIpoibJoin), 0);
  EXPECT_TRUE(group_reports(*rig, mark).empty());
  // The last full member leaves: trap 67, the group goes with the non-member.
  mark = rig->fabric->sent.size();
  ASSERT_EQ(del_status("ha", Rec{}.mgid(g).port(gid("ha")).state(1), kIpoibJoin), 0);
  EXPECT_EQ(group_reports(*rig, mark), (Traps{{67, g}}));
  EXPECT_EQ(store().find(g), nullptr);
  // The pre-created broadcast group has no full member until IPoIB joins it.
  mark = rig->fabric->sent.size();
  ASSERT_EQ(
      set_status("ha", Rec{}.mgid(kBroadcast).port(gid("ha")).pkey(0xffff).state(1), kIpoibJoin),
      0);
  EXPECT_EQ(group_reports(*rig, mark), (Traps{{66, kBroadcast}}));
}

TEST_F(Join, PortsThatLeaveTheFabricLeaveTheirGroups) {
  subscribe_all(*rig, "hd");
  const Gid g = mgid_of({0xff15, 0x4001, 0xffff, 0, 0, 0, 0, 0x67});
  ASSERT_EQ(set_status("ha", rdma_cm(g, "ha"), kRdmaCm), 0);
  ASSERT_EQ(set_status("hb", rdma_cm(kBroadcast, "hb"), kIpoibJoin), 0);
  const std::size_t mark = rig->fabric->sent.size();
  // The next snapshot no longer has ha.
  auto snap = std::make_shared<Snapshot>(*rig->sa().snapshot());
  snap->by_port_guid.erase(rig->port_guid_of("ha"));
  ++snap->generation;
  rig->sa().publish(snap);
  EXPECT_EQ(store().find(g), nullptr);
  ASSERT_NE(store().find(kBroadcast), nullptr);
  EXPECT_EQ(store().find(kBroadcast)->members.size(), 1u);
  const auto traps = group_reports(*rig, mark);
  EXPECT_NE(std::find(traps.begin(), traps.end(), std::pair<std::uint16_t, Gid>{67, g}),
            traps.end());
}

TEST_F(Join, PathRecordToAJoinedGroup) {
  const Gid g = mgid_of({0xff15, 0x4001, 0xffff, 0, 0, 0, 0, 0x35});
  ASSERT_EQ(set_status("ha", rdma_cm(g, "ha"), kRdmaCm), 0);
  std::vector<std::uint8_t> pr(64, 0);
  std::copy(g.begin(), g.end(), pr.begin() + 8);  // DGID
  const Gid ha = gid("ha");
  std::copy(ha.begin(), ha.end(), pr.begin() + 24);  // SGID
  auto a =
      rig->request(method::kGet, attr::kPathRecord, pr, (1u << 2) | (1u << 3), rig->lid_of("ha"));
  ASSERT_TRUE(a);
  ASSERT_EQ(a->header.status, 0);
  ASSERT_EQ(a->record_count(), 1u);
  EXPECT_EQ(a->record(0)[40] << 8 | a->record(0)[41], 0xc001);  // DLID = MLID
}

}  // namespace
}  // namespace ibsm::sa
