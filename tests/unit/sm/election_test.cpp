// Master/standby election end to end on a FakeFabric (IBA 14.4.1): the SM finds the
// other SMs of the fabric during discovery, becomes MASTER or STANDBY by priority and
// GUID, hands over to a higher SM, polls its master as STANDBY and takes over when it
// dies without moving a LID, and answers SubnSet(SMInfo) with OpenSM's legality table.
// The fake's other SM sits on a CA port and answers SMInfo like OpenSM does.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/service_status.hpp"
#include "mad/attr/notice.hpp"
#include "mad/attr/sm_info.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/hand_drawn.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm::election_test {
namespace {

using fake::FakeFabric;
using mad::AttrId;
using mad::Method;
using mad::SmState;
using namespace std::chrono_literals;

// SM on "ha"; another SM can run on "hc" or "hd"; "hd" hangs off switch a's port 3.
constexpr std::string_view kFabric = testsupport::kTwoSwitchNet;

using testsupport::TempDir;

class Rig {
 public:
  Rig() {
    auto d = testsupport::parse_net(kFabric);
    if (!d.ok()) std::abort();
    desc = *d;
    fabric = std::make_unique<FakeFabric>(desc, clock);
    options.cache_dir = dir.path() + "/cache";
    options.sm_priority = 7;
    options.sminfo_polling_timeout = 200;
    options.polling_retry_number = 2;
    options.sweep_interval = 10;
  }
  void start() {
    sm = std::make_unique<SubnetManager>(
        *fabric, clock, getenv("ELECT_LOG") ? make_logger({}) : null_logger(), options);
  }

  std::uint32_t idx(const std::string& id) const { return fabric->index(id); }
  mad::Guid port_guid(const std::string& id) const {
    return fabric->node(idx(id)).info.node_guid + 1;
  }
  // Another SM on `id`'s port 1, with that port's LID and GUID.
  fake::FakeSm& add_sm(const std::string& id, std::uint8_t priority, SmState state,
                       std::uint64_t key = 1) {
    mad::SmInfo info;
    info.guid = port_guid(id);
    info.sm_key = key;
    info.priority = priority;
    info.state = state;
    return fabric->add_sm(idx(id), 1, info);
  }

  // Turns run()'s loop until `done` or `limit` of fake time has passed.
  bool run_until(const std::function<bool()>& done, Clock::Duration limit = 30s) {
    const auto deadline = clock.now() + limit;
    while (!done()) {
      if (clock.now() >= deadline) return false;
      (void)sm->step(control);
    }
    return true;
  }
  bool subnet_up() const { return fabric->inactive_ports().empty(); }

  // LID and MasterSMLID of every CA port.
  std::map<mad::Guid, std::pair<mad::Lid, mad::Lid>> ca_lids() const {
    std::map<mad::Guid, std::pair<mad::Lid, mad::Lid>> out;
    for (std::uint32_t i = 0; i < fabric->size(); ++i) {
      const auto& n = fabric->node(i);
      if (n.is_switch()) continue;
      out[n.info.node_guid + 1] = {n.ports[1].info.lid, n.ports[1].info.master_sm_lid};
    }
    return out;
  }
  std::uint64_t sets_sent() const { return fabric->stats().count(Method::kSet); }

  FakeClock clock;
  TempDir dir;
  testsupport::Fabric desc;
  std::unique_ptr<FakeFabric> fabric;
  conf::Options options;
  ControlFlags control;
  std::unique_ptr<SubnetManager> sm;
};

// Brings the fabric up with our SM alone, so every port has a LID; then stops it.
void bring_up_alone(Rig& rig) {
  rig.start();
  ASSERT_TRUE(
      rig.run_until([&] { return rig.sm->state() == SmState::kMaster && rig.subnet_up(); }));
}

mad::Smp sminfo_set(SmState sender_state, mad::SmControl control, mad::Guid sender_guid) {
  mad::SmInfo info;
  info.guid = sender_guid;
  info.sm_key = 1;
  info.priority = 3;
  info.state = sender_state;
  mad::Smp s = mad::Smp::request(Method::kSet, AttrId::kSmInfo, static_cast<std::uint32_t>(control),
                                 mad::Lid{1}, 0x5e7);
  s.set_attribute(info);
  return s;
}

const mad::Smp* last_sminfo_answer(const FakeFabric& f) {
  const mad::Smp* last = nullptr;
  for (const auto& s : f.sm_responses())
    if (s.attr_id() == AttrId::kSmInfo && s.is_response()) last = &s;
  return last;
}

// ---------------------------------------------------------------- who becomes master

TEST(Election, AloneBecomesMaster) {
  Rig rig;
  bring_up_alone(rig);
  EXPECT_TRUE(rig.sm->election().remotes().empty());
}

TEST(Election, LowerMasterPresentMakesUsStandbyWithoutAnySetAndTrap144) {
  Rig rig;
  bring_up_alone(rig);
  // The fabric now belongs to a lower-priority master on hc; we restart.
  rig.add_sm("hc", 3, SmState::kMaster);
  rig.fabric->reset_stats();
  rig.start();
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kStandby; }));
  EXPECT_EQ(rig.sets_sent(), 0u) << "a standby programs nothing";
  EXPECT_EQ(rig.sm->election().polled(), rig.port_guid("hc"));
  // We outrank that master: Trap 144 "SM priority changed" to its LID.
  ASSERT_TRUE(rig.run_until([&] { return !rig.fabric->sm_traps().empty(); }, 2s));
  const mad::Smp trap = rig.fabric->sm_traps().front();
  auto n = mad::decode<mad::Notice>(trap.data());
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->trap_number, 144);
  EXPECT_EQ((n->details[10] << 8) | n->details[11], 0x0008);
  // Rate-limited: polls every 200 ms, but not a trap per poll.
  ASSERT_TRUE(rig.run_until([] { return false; }, 3s) == false);
  EXPECT_EQ(rig.fabric->sm_traps().size(), 1u);
  EXPECT_EQ(rig.sets_sent(), 0u);
}

TEST(Election, HigherStandbyMakesUsStandbyLowerStandbyDoesNot) {
  {
    Rig rig;
    rig.add_sm("hc", 9, SmState::kStandby);
    rig.start();
    ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kStandby; }));
    EXPECT_EQ(rig.sets_sent(), 0u);
  }
  {
    Rig rig;
    rig.add_sm("hc", 2, SmState::kStandby);
    rig.start();
    ASSERT_TRUE(
        rig.run_until([&] { return rig.sm->state() == SmState::kMaster && rig.subnet_up(); }));
    EXPECT_EQ(rig.sm->election().remotes().size(), 1u);
    EXPECT_TRUE(rig.fabric->sm_at(rig.idx("hc"), 1).sets.empty());
  }
}

TEST(Election, EqualPriorityIsDecidedByTheLowerGuid) {
  for (const char* other : {"hc", "hd"}) {
    Rig rig;
    rig.add_sm(other, 7, SmState::kStandby);
    rig.start();
    const bool other_lower = rig.port_guid(other) < rig.port_guid("ha");
    ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() != SmState::kDiscovering; }));
    EXPECT_EQ(rig.sm->state(), other_lower ? SmState::kStandby : SmState::kMaster) << other;
  }
}

TEST(Election, NotActiveSmIsSkipped) {
  Rig rig;
  rig.add_sm("hc", 15, SmState::kNotActive);
  rig.start();
  ASSERT_TRUE(
      rig.run_until([&] { return rig.sm->state() == SmState::kMaster && rig.subnet_up(); }));
}

TEST(Election, ForeignSmKeyIsIgnored) {
  Rig rig;
  rig.add_sm("hc", 15, SmState::kMaster, /*key=*/2);
  rig.start();
  // IBA/OpenSM: an SM with another SM_Key does not take part: we are master.
  ASSERT_TRUE(
      rig.run_until([&] { return rig.sm->state() == SmState::kMaster && rig.subnet_up(); }));
  EXPECT_TRUE(rig.sm->election().remotes().empty());
}

TEST(Election, SmInactiveStartsNotActiveAndSendsNothing) {
  Rig rig;
  rig.options.sm_inactive = true;
  rig.start();
  ASSERT_FALSE(rig.run_until([] { return false; }, 5s));
  EXPECT_EQ(rig.sm->state(), SmState::kNotActive);
  EXPECT_EQ(rig.fabric->stats().requests, 0u);
}

// ---------------------------------------------------------------- handover

TEST(Election, MasterHandsOverToAHigherSmAndGoesStandby) {
  Rig rig;
  bring_up_alone(rig);
  // A higher SM appears (its SMA's Trap 144 would tell us; here: the next heavy sweep).
  auto& other = rig.add_sm("hc", 12, SmState::kStandby);
  rig.sm->request_heavy_sweep(HeavyReason::kTrap);
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kStandby; }));
  ASSERT_EQ(other.sets.size(), 1u);
  EXPECT_EQ(other.sets[0], static_cast<std::uint32_t>(mad::SmControl::kHandover));
  EXPECT_EQ(other.info.state, SmState::kMaster);
  EXPECT_EQ(rig.sm->election().polled(), rig.port_guid("hc"));
  // As standby it stays quiet: the new master answers its polls.
  rig.fabric->reset_stats();
  ASSERT_FALSE(rig.run_until([] { return false; }, 3s));
  EXPECT_EQ(rig.sm->state(), SmState::kStandby);
  EXPECT_EQ(rig.sets_sent(), 0u);
  EXPECT_GE(rig.fabric->stats().count(Method::kGet, AttrId::kSmInfo), 10u);
}

TEST(Election, MasterSmPriorityPreventsFailBack) {
  Rig rig;
  rig.options.master_sm_priority = 15;
  bring_up_alone(rig);
  EXPECT_EQ(rig.sm->election().own_info().priority, 15);
  // A higher-priority SM comes back (12 > our 7, but < the 15 we advertise as master).
  auto& other = rig.add_sm("hc", 12, SmState::kStandby);
  rig.sm->request_heavy_sweep(HeavyReason::kTrap);
  ASSERT_FALSE(rig.run_until([] { return false; }, 3s));
  EXPECT_EQ(rig.sm->state(), SmState::kMaster);
  EXPECT_TRUE(other.sets.empty());
}

TEST(Election, RefusedHandoverKeepsUsMaster) {
  Rig rig;
  bring_up_alone(rig);
  auto& other = rig.add_sm("hc", 12, SmState::kStandby);
  other.set_status = mad::kStatusInvalidValue;
  rig.sm->request_heavy_sweep(HeavyReason::kTrap);
  ASSERT_TRUE(rig.run_until([&] { return !other.sets.empty(); }));
  ASSERT_FALSE(rig.run_until([] { return false; }, 5s));
  EXPECT_EQ(rig.sm->state(), SmState::kMaster);
  EXPECT_TRUE(rig.subnet_up());
  EXPECT_EQ(other.sets.size(), 1u) << "not asked again within a minute";
}

TEST(Election, ManualHandoverYieldsToTheBestStandby) {
  Rig rig;
  rig.add_sm("hc", 2, SmState::kStandby);
  rig.start();
  ASSERT_TRUE(
      rig.run_until([&] { return rig.sm->state() == SmState::kMaster && rig.subnet_up(); }));
  rig.control.handover = true;
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kStandby; }));
  EXPECT_EQ(rig.fabric->sm_at(rig.idx("hc"), 1).info.state, SmState::kMaster);
  // We advertise priority 0 now, so we do not ask for the fabric back.
  EXPECT_EQ(rig.sm->election().own_info().priority, 0);
  ASSERT_FALSE(rig.run_until([] { return false; }, 3s));
  EXPECT_TRUE(rig.fabric->sm_traps().empty());
}

// ---------------------------------------------------------------- failover

TEST(Election, StandbyTakesOverWhenTheMasterDiesAndKeepsEveryLid) {
  Rig rig;
  bring_up_alone(rig);
  auto before = rig.ca_lids();
  // hc (higher) is master now: it re-pointed every port's MasterSMLID to itself.
  auto& master = rig.add_sm("hc", 12, SmState::kMaster);
  const mad::Lid hc_lid = before[rig.port_guid("hc")].first;
  for (std::uint32_t i = 0; i < rig.fabric->size(); ++i)
    for (auto& p : rig.fabric->node(i).ports)
      p.info.master_sm_lid = hc_lid;
  rig.start();
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kStandby; }));
  // The master process dies: no more SMInfo answers, and its port drops IsSM (the
  // kernel clears it when the issm device closes).
  master.alive = false;
  rig.fabric->node(rig.idx("hc")).ports[1].info.capability_mask &= ~mad::kCapIsSm;
  const auto died = rig.clock.now();
  const auto node_infos = rig.fabric->stats().count(Method::kGet, AttrId::kNodeInfo);
  // Detection: the standby starts sweeping after (R+1..R+2) polls of 200 ms with
  // polling_retry_number 2 (ibsm's defaults).
  ASSERT_TRUE(rig.run_until(
      [&] { return rig.fabric->stats().count(Method::kGet, AttrId::kNodeInfo) > node_infos; }));
  const auto detected = rig.clock.now() - died;
  EXPECT_GE(detected, 600ms);
  EXPECT_LE(detected, 800ms);
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kMaster; }));
  ASSERT_TRUE(rig.run_until([&] { return rig.subnet_up(); }));
  ASSERT_TRUE(rig.run_until([&] {
    for (const auto& [g, l] : rig.ca_lids())
      if (l.second != before[rig.port_guid("ha")].first) return false;
    return true;
  }));
  auto after = rig.ca_lids();
  for (const auto& [guid, lids] : before)
    EXPECT_EQ(after[guid].first, lids.first) << mad::format_guid(guid) << " moved";
}

// Our SM programs the fabric, then runs as standby under hc (as after a restart).
void standby_under_hc(Rig& rig) {
  bring_up_alone(rig);
  const auto before = rig.ca_lids();
  rig.add_sm("hc", 12, SmState::kMaster);
  const mad::Lid hc_lid = before.at(rig.port_guid("hc")).first;
  for (std::uint32_t i = 0; i < rig.fabric->size(); ++i)
    for (auto& p : rig.fabric->node(i).ports)
      p.info.master_sm_lid = hc_lid;
  rig.start();
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kStandby; }));
}

void kill_hc(Rig& rig) {
  rig.fabric->sm_at(rig.idx("hc"), 1).alive = false;
  rig.fabric->node(rig.idx("hc")).ports[1].info.capability_mask &= ~mad::kCapIsSm;
}

TEST(Election, StandbyReadsTheSwitchTablesSoItsTakeoverResendsNoUnchangedBlock) {
  Rig rig;
  standby_under_hc(rig);
  rig.fabric->reset_stats();
  ASSERT_FALSE(rig.run_until([] { return false; }, 2s));
  // Reading only: the switches' LFT blocks and SwitchInfo, no Set.
  EXPECT_GT(rig.fabric->stats().count(Method::kGet, AttrId::kLinearForwardingTable), 0u);
  EXPECT_EQ(rig.sets_sent(), 0u);
  rig.fabric->reset_stats();
  kill_hc(rig);
  ASSERT_TRUE(
      rig.run_until([&] { return rig.sm->state() == SmState::kMaster && rig.subnet_up(); }));
  ASSERT_FALSE(rig.run_until([] { return false; }, 1s));
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kLinearForwardingTable), 0u)
      << "the tables the switches hold are already ours";
  EXPECT_GT(rig.fabric->stats().count(Method::kSet, AttrId::kPortInfo), 0u)
      << "MasterSMLID and ClientReregister still go to every port";
}

TEST(Election, StandbyRereadsTablesSoAChangeBeforeTheTakeoverIsRepaired) {
  Rig rig;
  standby_under_hc(rig);
  ASSERT_FALSE(rig.run_until([] { return false; }, 2s));
  // The master changes a route after the standby's first pass (same fabric), and dies
  // after the standby's next pass.
  auto& lft = rig.fabric->node(rig.idx("a")).lft;
  const mad::Lid hc_lid = rig.ca_lids().at(rig.port_guid("hc")).first;
  const PortNum right = lft[hc_lid];
  lft[hc_lid] = 0xFF;
  ASSERT_FALSE(rig.run_until([] { return false; }, 12s));
  rig.fabric->reset_stats();
  kill_hc(rig);
  ASSERT_TRUE(
      rig.run_until([&] { return rig.sm->state() == SmState::kMaster && rig.subnet_up(); }));
  ASSERT_FALSE(rig.run_until([] { return false; }, 1s));
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet, AttrId::kLinearForwardingTable), 1u);
  EXPECT_EQ(lft[hc_lid], right);
}

TEST(Election, TakeoverAfterAFabricChangeResendsEveryBlock) {
  Rig rig;
  standby_under_hc(rig);
  ASSERT_FALSE(rig.run_until([] { return false; }, 2s));
  // A port changes LID (as a master's re-assignment would): the tables read no longer
  // describe this fabric.
  rig.fabric->node(rig.idx("hd")).ports[1].info.lid = 0x60;
  kill_hc(rig);
  rig.fabric->reset_stats();
  ASSERT_TRUE(
      rig.run_until([&] { return rig.sm->state() == SmState::kMaster && rig.subnet_up(); }));
  ASSERT_FALSE(rig.run_until([] { return false; }, 1s));
  // Both switches' blocks, all of them: 2 switches x (LinearFDBTop / 64 + 1).
  EXPECT_GE(rig.fabric->stats().count(Method::kSet, AttrId::kLinearForwardingTable), 4u);
}

TEST(Election, StandbyToleratesANonMasterAnswerOnlyForAWhile) {
  Rig rig;
  rig.add_sm("hc", 12, SmState::kStandby);  // higher, never becomes master
  rig.start();
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kStandby; }));
  // It answers, but never as MASTER: after the tolerance (10 s) we sweep again and,
  // finding it still higher, stand by again; nobody ends up programming.
  const auto node_infos = rig.fabric->stats().count(Method::kGet, AttrId::kNodeInfo);
  const auto t0 = rig.clock.now();
  ASSERT_TRUE(rig.run_until(
      [&] { return rig.fabric->stats().count(Method::kGet, AttrId::kNodeInfo) > node_infos; },
      15s));
  EXPECT_GE(rig.clock.now() - t0, 10s);
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kStandby; }));
  EXPECT_EQ(rig.sets_sent(), 0u);
}

// ---------------------------------------------------------------- SubnSet(SMInfo)

TEST(Election, SmInfoSetLegality) {
  Rig rig;
  bring_up_alone(rig);
  const mad::Guid other = rig.port_guid("hc");
  auto sminfo_answers = [&] {
    std::size_t n = 0;
    for (const auto& s : rig.fabric->sm_responses())
      n += s.attr_id() == AttrId::kSmInfo && s.is_response();
    return n;
  };
  auto answer_status = [&](SmState sender, mad::SmControl c) -> std::uint16_t {
    const std::size_t before = sminfo_answers();
    rig.fabric->inject(sminfo_set(sender, c, other), 5);
    if (!rig.run_until([&] { return sminfo_answers() > before; }, 1s)) return 0xffff;
    return last_sminfo_answer(*rig.fabric)->status();
  };
  // MASTER accepts only HANDOVER; DISABLE from a master is refused with status 7.
  EXPECT_EQ(answer_status(SmState::kMaster, mad::SmControl::kDisable), 0x1C);
  EXPECT_EQ(rig.sm->state(), SmState::kMaster);
  // HANDOVER must come from a MASTER.
  EXPECT_EQ(answer_status(SmState::kStandby, mad::SmControl::kHandover), 0x1C);
  EXPECT_EQ(rig.sm->state(), SmState::kMaster);
  // A legal HANDOVER while MASTER (two masters merging): stay MASTER, re-sweep.
  EXPECT_EQ(answer_status(SmState::kMaster, mad::SmControl::kHandover), 0);
  EXPECT_EQ(rig.sm->state(), SmState::kMaster);
}

TEST(Election, StandbyObeysDisableAndNotActiveObeysStandby) {
  Rig rig;
  rig.add_sm("hc", 12, SmState::kMaster);
  rig.start();
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kStandby; }));
  rig.fabric->inject(sminfo_set(SmState::kMaster, mad::SmControl::kDisable, rig.port_guid("hc")),
                     5);
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kNotActive; }, 1s));
  rig.fabric->reset_stats();
  ASSERT_FALSE(rig.run_until([] { return false; }, 2s));
  EXPECT_EQ(rig.fabric->stats().requests, 0u) << "NOT-ACTIVE polls nobody";
  rig.fabric->inject(sminfo_set(SmState::kMaster, mad::SmControl::kStandby, rig.port_guid("hc")),
                     5);
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kStandby; }, 1s));
  EXPECT_EQ(rig.sm->election().polled(), rig.port_guid("hc"));
}

TEST(Election, StandbyBecomesMasterOnHandover) {
  Rig rig;
  bring_up_alone(rig);
  rig.add_sm("hc", 12, SmState::kMaster);
  rig.start();
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kStandby; }));
  rig.fabric->sm_at(rig.idx("hc"), 1).info.state = SmState::kStandby;
  rig.fabric->inject(sminfo_set(SmState::kMaster, mad::SmControl::kHandover, rig.port_guid("hc")),
                     5);
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kMaster; }, 1s));
  ASSERT_TRUE(rig.run_until([&] { return rig.subnet_up(); }));
}

// A healed split: another master hands the subnet over (HANDOVER while we are MASTER)
// while our LFT Sets are on the wire. We forget what every switch holds at that moment,
// so the late answers find no table of ours to update (they once copied into the
// emptied table: a null memmove, a wild write for later blocks), and the sweep that
// follows writes every LFT again and leaves every route working.
TEST(Election, HandoverWhileLftSetsAreOnTheWireIsHarmless) {
  Rig rig;
  bring_up_alone(rig);
  // A power-cycled fabric: the next heavy sweep writes every LFT in full, and the
  // switches answer slowly enough for the HANDOVER to arrive first.
  rig.fabric->reset_cold();
  for (const char* sw : {"a", "b"})
    rig.fabric->faults(rig.idx(sw)).latency = 20ms;
  std::uint64_t lft_sets = 0;
  std::uint64_t lft_sets_after_handover = 0;
  rig.fabric->on_request([&](const mad::Smp& req) {
    if (req.method() != Method::kSet || req.attr_id() != AttrId::kLinearForwardingTable) return;
    if (++lft_sets > 1) {
      ++lft_sets_after_handover;
      return;
    }
    rig.fabric->inject(sminfo_set(SmState::kMaster, mad::SmControl::kHandover, rig.port_guid("hc")),
                       5);
  });
  rig.sm->request_heavy_sweep(HeavyReason::kTrap);
  ASSERT_TRUE(rig.run_until([&] { return lft_sets > 0; }));
  const mad::Smp* answer = nullptr;
  ASSERT_TRUE(
      rig.run_until([&] { return (answer = last_sminfo_answer(*rig.fabric)) != nullptr; }, 1s));
  EXPECT_EQ(answer->status(), 0);  // accepted: stay MASTER, re-program everything
  ASSERT_TRUE(rig.run_until([&] {
    // Both switches' tables went out again after the HANDOVER, not only the first one.
    return rig.sm->state() == SmState::kMaster && rig.subnet_up() && lft_sets_after_handover >= 2 &&
           rig.fabric->check_routes().empty();
  }));
  std::size_t routes = 0;
  EXPECT_TRUE(rig.fabric->check_routes(&routes).empty());
  EXPECT_GT(routes, 0u);
}

TEST(Election, RandomSmInfoSetsFromAnUnknownSenderChangeNothingForAMaster) {
  Rig rig;
  bring_up_alone(rig);
  std::uint32_t x = 12345;
  auto next = [&] { return x = x * 1103515245u + 12345u; };
  for (int i = 0; i < 300; ++i) {
    mad::Smp s = mad::Smp::request(Method::kSet, AttrId::kSmInfo, next() % 8, mad::Lid{1},
                                   static_cast<std::uint32_t>(0x7000 + i));
    for (auto& b : s.data())
      b = static_cast<std::uint8_t>(next() >> 24);
    auto bytes = s.bytes();
    rig.fabric->inject(*mad::Smp::parse(bytes), 9);
  }
  ASSERT_FALSE(rig.run_until([] { return false; }, 2s));
  // A MASTER accepts only HANDOVER from a MASTER; anything else was refused, and a
  // random HANDOVER only makes it re-sweep: it stays master of an intact fabric.
  EXPECT_EQ(rig.sm->state(), SmState::kMaster);
  EXPECT_TRUE(rig.subnet_up());
  std::size_t answers = 0;
  for (const auto& r : rig.fabric->sm_responses())
    answers += r.attr_id() == AttrId::kSmInfo && r.is_response();
  EXPECT_EQ(answers, 300u) << "every Set is answered (accepted or status 7)";
}

// ---------------------------------------------------------------- traps from SMs

TEST(Election, AStreamOfTrap144IsRateLimited) {
  Rig rig;
  bring_up_alone(rig);
  mad::Notice n;
  n.is_generic = true;
  n.type = 4;
  n.trap_number = 144;
  n.issuer_lid = 5;
  auto node_infos = [&] { return rig.fabric->stats().count(Method::kGet, AttrId::kNodeInfo); };
  // What one heavy sweep costs in NodeInfo Gets.
  std::uint64_t before = node_infos();
  rig.sm->request_heavy_sweep(HeavyReason::kForced);
  ASSERT_TRUE(
      rig.run_until([&] { return node_infos() > before && rig.sm->state() == SmState::kMaster; }));
  ASSERT_FALSE(rig.run_until([] { return false; }, 1s));
  const std::uint64_t per_sweep = node_infos() - before;
  ASSERT_GT(per_sweep, 0u);

  before = node_infos();
  const auto t0 = rig.clock.now();
  // 100 traps over 4 s (every 40 ms).
  for (int i = 0; i < 100; ++i) {
    mad::Smp trap = mad::Smp::request(Method::kTrap, AttrId::kNotice, 0, mad::Lid{1},
                                      static_cast<std::uint32_t>(0x900 + i));
    trap.set_attribute(n);
    rig.fabric->inject(trap, 5);
    const auto until = t0 + (i + 1) * 40ms;
    (void)rig.run_until([&] { return rig.clock.now() >= until; });
  }
  ASSERT_FALSE(rig.run_until([] { return false; }, 1s));
  // At most one heavy sweep per 2 s (3 in 4 s, the first at once), where unlimited
  // traps would have asked for 100.
  const std::uint64_t sweeps = (node_infos() - before) / per_sweep;
  EXPECT_GE(sweeps, 1u);
  EXPECT_LE(sweeps, 3u);
}

// ---------------------------------------------------------------- status line

TEST(Election, StatusLineFollowsTheState) {
  Rig rig;
  std::vector<std::string> lines;
  rig.add_sm("hc", 12, SmState::kMaster);
  rig.start();
  rig.sm->set_status_handler([&](const std::string& l) { lines.push_back(l); });
  ASSERT_TRUE(rig.run_until([&] { return rig.sm->state() == SmState::kStandby; }));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().rfind("STANDBY, master " + mad::format_guid(rig.port_guid("hc")), 0), 0u)
      << lines.back();
  rig.fabric->sm_at(rig.idx("hc"), 1).alive = false;
  ASSERT_TRUE(
      rig.run_until([&] { return rig.sm->state() == SmState::kMaster && rig.subnet_up(); }));
  ASSERT_TRUE(rig.run_until([&] { return lines.back().find("SUBNET UP") != std::string::npos; }));
  EXPECT_EQ(lines.back().rfind("MASTER, SUBNET UP: 5 nodes", 0), 0u) << lines.back();
}

TEST(ServiceStatus, SendsOneDatagramToTheNotifySocket) {
  const std::string path =
      std::filesystem::temp_directory_path() / ("ibsm-notify-" + std::to_string(::getpid()));
  ::unlink(path.c_str());
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ::setenv("NOTIFY_SOCKET", path.c_str(), 1);
  EXPECT_TRUE(notify_service_status("STANDBY, master 0x1"));
  char buf[128] = {};
  const ssize_t n = ::recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0),
            "STATUS=STANDBY, master 0x1");
  ::unsetenv("NOTIFY_SOCKET");
  EXPECT_FALSE(notify_service_status("x"));  // not under systemd: nothing to do
  ::close(fd);
  ::unlink(path.c_str());
}

}  // namespace
}  // namespace ibsm::sm::election_test
