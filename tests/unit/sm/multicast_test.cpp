// Multicast forwarding end to end on a FakeFabric: groups put into the SA's store
// (as MCMemberRecord joins would) become MFT blocks in the fake switches (IBA
// 14.2.5.12) after a heavy sweep or one turn of the SM's loop. The checks judge the
// fake's tables, by flooding a packet from every member (FakeFabric::follow_mlid):
// every other member gets exactly one copy, the sender none, nothing loops.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mad/attr/mft_block.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/hand_drawn.hpp"
#include "tests/support/net_file.hpp"

namespace ibsm::sm::multicast_test {
namespace {

using fake::FakeFabric;
using mad::AttrId;
using mad::Method;

// Loops and parallel cables (the SM's hand-drawn fabric):
//
//   h1 --1[ s1 ]3====3[ s2 ]1-- h2
//   h3 --2[    ]5====5[    ]2-- h4
//          [ s1 ]6 ---- 1[ s3 ]2 ---- 6[ s2 ]
//                     s3 port 3 -- hx port 1; hx port 2 -- s2 port 7
constexpr std::string_view kNet = testsupport::kHandDrawnNet;

sa::Gid mgid(unsigned n) {
  sa::Gid g{0xff, 0x12, 0x40, 0x1b, 0xff, 0xff};
  g[14] = static_cast<std::uint8_t>(n >> 8);
  g[15] = static_cast<std::uint8_t>(n);
  return g;
}

testsupport::Fabric parse(std::string_view net) {
  auto d = testsupport::parse_net(net);
  if (!d.ok()) std::abort();
  return *d;
}

class Rig {
 public:
  explicit Rig(fake::FakeOptions fo = {}, conf::Options o = {})
      : Rig(parse(kNet), std::move(fo), std::move(o)) {}
  Rig(testsupport::Fabric d, fake::FakeOptions fo = {}, conf::Options o = {})
      : desc(std::move(d)), options(std::move(o)) {
    fabric = std::make_unique<FakeFabric>(desc, clock, fo);
    std::string tmpl = (std::filesystem::temp_directory_path() / "ibsm-mcast-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    dir = tmpl;
    options.cache_dir = dir + "/cache";
    options.partition_config_file = dir + "/partitions.conf";
    sm = std::make_unique<SubnetManager>(*fabric, clock, null_logger(), options);
  }
  ~Rig() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  SweepResult sweep() {
    fabric->reset_stats();
    sm->request_heavy_sweep(HeavyReason::kForced);
    return sm->sweep(stop);
  }
  // One turn of run()'s loop between sweeps: the hook queues, the polls deliver.
  std::size_t loop_step() {
    fabric->reset_stats();
    const std::size_t queued = sm->program_multicast_changes();
    static_cast<void>(sm->sweep(stop));  // a light sweep drains the SMP client
    return queued;
  }
  sa::McGroupStore& store() { return sm->sa().state().mcast; }

  fake::PortRef port(const char* id, mad::PortNum p = 1) const {
    const auto n = fabric->index(id);
    return {n, fabric->node(n).is_switch() ? mad::PortNum{0} : p};
  }
  Guid guid(fake::PortRef r) const { return desc.nodes[r.node].port_guid(r.port); }

  // A group with these members (as joins of full members would leave it); its MLID.
  Lid create(unsigned n, const std::vector<fake::PortRef>& members, std::optional<Lid> mlid = {}) {
    sa::McGroupRec g;
    g.mgid = mgid(n);
    g.qkey = 0x0b1b;
    g.pkey = 0xffff;
    for (const auto& m : members)
      g.members.push_back(member(m));
    auto* r = store().create(std::move(g), mlid);
    EXPECT_NE(r, nullptr);
    return r != nullptr ? r->mlid : 0;
  }
  sa::McMember member(fake::PortRef m) const {
    sa::McMember x;
    x.port_guid = guid(m);
    x.port_gid = mgid(0);
    x.port_gid[8] = static_cast<std::uint8_t>(x.port_guid >> 8);
    x.port_gid[15] = static_cast<std::uint8_t>(x.port_guid);
    x.join_state = sa::join::kFull;
    return x;
  }
  void join(unsigned n, fake::PortRef m) {
    auto* g = store().find(mgid(n));
    ASSERT_NE(g, nullptr);
    g->members.push_back(member(m));
    store().mark_dirty(g->mlid);
  }
  void leave(unsigned n, fake::PortRef m) {
    auto* g = store().find(mgid(n));
    ASSERT_NE(g, nullptr);
    g->members.erase_if([&](const sa::McMember& x) { return x.port_guid == guid(m); });
    store().mark_dirty(g->mlid);
  }
  std::uint64_t mft_sets() const {
    return fabric->stats().count(Method::kSet, AttrId::kMulticastForwardingTable);
  }

  // From every member every other member gets one copy, the sender none; no problems.
  void expect_tree(Lid mlid, const std::vector<fake::PortRef>& members,
                   const std::vector<fake::PortRef>& outsiders = {}) const {
    for (const auto& from : members) {
      const fake::McastFlood f = fabric->follow_mlid(from, mlid);
      EXPECT_FALSE(f.looped);
      EXPECT_TRUE(f.problems.empty()) << f.problems.front();
      std::vector<unsigned> want;
      for (const auto& to : members)
        want.push_back(to == from ? 0u : 1u);
      EXPECT_EQ(f.copies(members), want) << "from " << fabric->node(from.node).id;
      for (unsigned c : f.copies(outsiders))
        EXPECT_EQ(c, 0u) << "a non-member got a copy from " << fabric->node(from.node).id;
    }
  }

  FakeClock clock;
  std::string dir;
  testsupport::Fabric desc;
  std::unique_ptr<FakeFabric> fabric;
  conf::Options options;
  std::atomic<bool> stop{false};
  std::unique_ptr<SubnetManager> sm;
};

TEST(Multicast, HeavySweepProgramsATreeAndASecondSweepSendsNothing) {
  Rig rig;
  const std::vector<fake::PortRef> m{rig.port("h1"), rig.port("h2"), rig.port("h4"),
                                     rig.port("hx", 1), rig.port("s3")};
  const Lid mlid = rig.create(1, m);
  EXPECT_EQ(mlid, 0xC000);
  const SweepResult r = rig.sweep();
  ASSERT_TRUE(r.subnet_up);
  EXPECT_GT(rig.mft_sets(), 0u);
  rig.expect_tree(mlid, m, {rig.port("h3"), rig.port("hx", 2), rig.port("s1"), rig.port("s2")});
  EXPECT_EQ(rig.sm->multicast().counters().failed, 0u);
  EXPECT_EQ(rig.sm->multicast().counters().refused, 0u);

  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.mft_sets(), 0u);  // every block confirmed and unchanged
  rig.expect_tree(mlid, m);
}

TEST(Multicast, JoinAndLeaveBetweenSweepsTouchOnlyTheirBlocks) {
  Rig rig;
  std::vector<fake::PortRef> m{rig.port("h1"), rig.port("h2")};
  const Lid a = rig.create(1, m);
  const Lid b = rig.create(2, {rig.port("h3"), rig.port("h4")});
  ASSERT_TRUE(rig.sweep().subnet_up);
  rig.expect_tree(a, m);

  // A join is on the wire after one turn of the loop; the other group is untouched,
  // and only switches whose block changed get a Set (a block holds both MLIDs here).
  rig.join(1, rig.port("hx", 1));
  m.push_back(rig.port("hx", 1));
  EXPECT_GT(rig.loop_step(), 0u);
  EXPECT_GT(rig.mft_sets(), 0u);
  EXPECT_LE(rig.mft_sets(), 3u);  // one block, at most every switch
  rig.expect_tree(a, m, {rig.port("h3"), rig.port("h4")});
  rig.expect_tree(b, {rig.port("h3"), rig.port("h4")}, {rig.port("h1")});

  // A leave prunes the member: it gets no copy and sends none along the tree.
  rig.leave(1, rig.port("h2"));
  std::erase(m, rig.port("h2"));
  EXPECT_GT(rig.loop_step(), 0u);
  rig.expect_tree(a, m, {rig.port("h2")});

  // The last-but-one member leaves: fewer than two members, no entries at all.
  rig.leave(1, rig.port("h1"));
  rig.loop_step();
  for (std::uint32_t i = 0; i < rig.fabric->size(); ++i) {
    const auto& n = rig.fabric->node(i);
    if (!n.is_switch()) continue;
    for (std::size_t p = 0; p < n.mcast_positions(); ++p)
      EXPECT_EQ(n.mft[(a - 0xC000u) * n.mcast_positions() + p], 0u) << n.id;
  }
  // Nothing changed: nothing queued.
  EXPECT_EQ(rig.loop_step(), 0u);
  EXPECT_EQ(rig.mft_sets(), 0u);
}

TEST(Multicast, RecomputingBeforeTheAnswersComeBackSendsNoBlockTwice) {
  // A join storm: the same MLID is recomputed many times before the switches answer.
  Rig rig;
  const Lid a = rig.create(1, {rig.port("h1"), rig.port("h2")});
  ASSERT_TRUE(rig.sweep().subnet_up);
  rig.fabric->reset_stats();
  rig.join(1, rig.port("hx", 1));
  const std::size_t first = rig.sm->program_multicast_changes();
  EXPECT_GT(first, 0u);
  // Nothing answered yet; a recomputation that wants the same blocks sends nothing.
  rig.store().mark_dirty(a);
  EXPECT_EQ(rig.sm->program_multicast_changes(), 0u);
  static_cast<void>(rig.sm->sweep(rig.stop));  // the answers arrive
  EXPECT_EQ(rig.mft_sets(), first);
  rig.expect_tree(a, {rig.port("h1"), rig.port("h2"), rig.port("hx", 1)});
}

// The loop waits for MADs between passes; a join that lands after a pass must not
// wait for that (the last joins of a storm: nothing else arrives to end the wait).
TEST(Multicast, AJoinAfterAPassGoesOutWhenThePassIsDueNotAfterTheIdleWait) {
  Rig rig;
  const Lid a = rig.create(1, {rig.port("h1"), rig.port("h2")});
  ASSERT_TRUE(rig.sweep().subnet_up);
  ControlFlags control;
  for (int i = 0; i < 5; ++i)  // any due sweep and pass, then idle turns
    ASSERT_FALSE(rig.sm->step(control).has_value());
  rig.join(1, rig.port("hx", 1));
  rig.fabric->reset_stats();
  const auto joined = rig.clock.now();
  for (int i = 0; i < 10 && rig.mft_sets() == 0; ++i)
    ASSERT_FALSE(rig.sm->step(control).has_value());
  ASSERT_GT(rig.mft_sets(), 0u);
  // The pacing's quiet time plus the fake's answer latency, not the 100 ms idle wait.
  EXPECT_LE(rig.clock.now() - joined, McastPacing::kQuiet + std::chrono::milliseconds(5));
  for (int i = 0; i < 5; ++i)
    ASSERT_FALSE(rig.sm->step(control).has_value());
  rig.expect_tree(a, {rig.port("h1"), rig.port("h2"), rig.port("hx", 1)});
}

TEST(McastPacing, ALoneChangeIsDueAfterTheQuietTime) {
  FakeClock clock;
  McastPacing pacing;
  pacing.observe(clock.now(), false, 0);
  EXPECT_FALSE(pacing.due().has_value());
  pacing.observe(clock.now(), true, 1);
  ASSERT_TRUE(pacing.due().has_value());
  EXPECT_EQ(*pacing.due(), clock.now() + McastPacing::kQuiet);
  pacing.passed();
  pacing.observe(clock.now(), false, 1);  // the pass took the change
  EXPECT_FALSE(pacing.due().has_value());
}

TEST(McastPacing, AStreamOfChangesIsPassedAtLeastEveryMaxWaitAndOnceAfterItEnds) {
  FakeClock clock;
  McastPacing pacing;
  const auto start = clock.now();
  std::uint64_t changes = 0;
  std::vector<Clock::Duration> passes;
  for (int ms = 0; ms < 120; ++ms) {  // a change every millisecond for 120 ms
    pacing.observe(clock.now(), true, ++changes);
    if (pacing.due() && clock.now() >= *pacing.due()) {
      passes.push_back(clock.now() - start);
      pacing.passed();
    }
    clock.advance(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(passes,
            (std::vector<Clock::Duration>{
                McastPacing::kMaxWait, 2 * McastPacing::kMaxWait + std::chrono::milliseconds(1)}));
  // The stream ends: one more pass, the quiet time after the last change.
  const auto last = clock.now() - std::chrono::milliseconds(1);
  pacing.observe(clock.now(), true, changes);
  ASSERT_TRUE(pacing.due().has_value());
  EXPECT_EQ(*pacing.due(), last + McastPacing::kQuiet);
}

TEST(Multicast, APowerCycledSwitchGetsItsBlocksAgain) {
  Rig rig;
  const std::vector<fake::PortRef> m{rig.port("h1"), rig.port("h2"), rig.port("hx", 1)};
  const Lid mlid = rig.create(1, m);
  ASSERT_TRUE(rig.sweep().subnet_up);
  rig.expect_tree(mlid, m);
  rig.fabric->reset_cold();
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_GT(rig.mft_sets(), 0u);
  rig.expect_tree(mlid, m);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.mft_sets(), 0u);
}

TEST(Multicast, MulticastFdbTopIsSetWhereTheSwitchAdvertisesIt) {
  fake::FakeOptions fo;
  fo.mcast_fdb_top_cap = true;
  Rig rig(fo);
  const std::vector<fake::PortRef> m{rig.port("h1"), rig.port("h4")};
  const Lid mlid = rig.create(1, m, Lid{0xC021});
  ASSERT_TRUE(rig.sweep().subnet_up);
  // The top of each switch's own table (OpenSM's max_block_in_use): s3 is in no tree.
  auto top = [&](const char* id) {
    return rig.fabric->node(rig.fabric->index(id)).switch_info->multicast_fdb_top;
  };
  EXPECT_EQ(top("s1"), 0xC03Fu);
  EXPECT_EQ(top("s2"), 0xC03Fu);
  EXPECT_EQ(top("s3"), 0xBFFFu);
  rig.expect_tree(mlid, m);  // the fake drops MLIDs above the top
  // The top follows the groups: none left, 0xBFFF.
  rig.leave(1, rig.port("h1"));
  rig.leave(1, rig.port("h4"));
  rig.loop_step();
  ASSERT_TRUE(rig.sweep().subnet_up);
  for (std::uint32_t i = 0; i < rig.fabric->size(); ++i) {
    const auto& n = rig.fabric->node(i);
    if (n.is_switch()) {
      EXPECT_EQ(n.switch_info->multicast_fdb_top, 0xBFFFu) << n.id;
    }
  }
}

TEST(Multicast, UseMfttopOffLeavesTheTopAlone) {
  fake::FakeOptions fo;
  fo.mcast_fdb_top_cap = true;
  conf::Options o;
  o.use_mfttop = false;
  Rig rig(fo, o);
  rig.create(1, {rig.port("h1"), rig.port("h4")});
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.sm->multicast().counters().top_sets, 0u);
}

TEST(Multicast, DisableMulticastSendsNoMftSets) {
  conf::Options o;
  o.disable_multicast = true;
  Rig rig({}, o);
  rig.create(1, {rig.port("h1"), rig.port("h4")});
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.mft_sets(), 0u);
  rig.join(1, rig.port("h2"));
  EXPECT_EQ(rig.loop_step(), 0u);
}

TEST(Multicast, MlidsBeyondTheSmallestMulticastFdbCapAreNotProgrammed) {
  fake::FakeOptions fo;
  fo.multicast_fdb_cap = 32;  // one block: 0xC000-0xC01F
  Rig rig(fo);
  const std::vector<fake::PortRef> m{rig.port("h1"), rig.port("h2")};
  const Lid in = rig.create(1, m);
  const Lid out = rig.create(2, m, Lid{0xC040});
  ASSERT_EQ(out, 0xC040);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.sm->multicast().mlid_last(), 0xC01F);
  EXPECT_EQ(rig.sm->multicast().counters().failed, 0u);
  rig.expect_tree(in, m);
  const fake::McastFlood f = rig.fabric->follow_mlid(rig.port("h1"), out);
  EXPECT_TRUE(f.reached.empty());
  // The store hands out no MLID beyond the switches' tables any more.
  sa::McGroupRec g;
  g.mgid = mgid(3);
  EXPECT_EQ(rig.store().create(std::move(g), Lid{0xC050})->mlid, 0xC001);
}

// Many groups on fabrics with parallel cables (a fat tree with two cables per leaf and
// spine) and loops (a torus), then random joins and leaves between sweeps: after every
// step the fake's tables form a correct tree for every group.
TEST(Multicast, RandomGroupsJoinsAndLeavesOnLoopsAndParallelLinks) {
  for (int fabric_kind = 0; fabric_kind < 2; ++fabric_kind) {
    Rig rig(fabric_kind == 0 ? testsupport::two_level_fat_tree(4, 3, 2, 2)
                             : testsupport::torus({3, 3, 1}, 2));
    std::vector<fake::PortRef> hosts;
    for (std::uint32_t i = 0; i < rig.fabric->size(); ++i) {
      const auto& n = rig.fabric->node(i);
      if (n.is_switch()) {
        hosts.push_back({i, 0});  // switches join too (through port 0)
        continue;
      }
      for (mad::PortNum p = 1; p <= n.num_ports(); ++p)
        if (n.ports[p].cable) hosts.push_back({i, p});
    }
    std::mt19937 rng(11 + static_cast<unsigned>(fabric_kind));
    constexpr unsigned kGroups = 40;
    std::vector<std::vector<fake::PortRef>> members(kGroups);
    std::vector<Lid> mlids(kGroups);
    for (unsigned g = 0; g < kGroups; ++g) {
      for (const auto& h : hosts)
        if (rng() % 3 == 0) members[g].push_back(h);
      mlids[g] = rig.create(g + 1, members[g]);
    }
    ASSERT_TRUE(rig.sweep().subnet_up);
    EXPECT_GE(rig.sm->multicast().counters().trees, kGroups);
    EXPECT_GT(rig.mft_sets(), 0u);
    auto check = [&](const char* when) {
      SCOPED_TRACE(std::string(when) + (fabric_kind == 0 ? " on the fat tree" : " on the torus"));
      for (unsigned g = 0; g < kGroups; ++g) {
        if (members[g].size() < 2) continue;
        rig.expect_tree(mlids[g], members[g]);
      }
    };
    check("after the sweep");
    for (int step = 0; step < 20; ++step) {
      const unsigned g = rng() % kGroups;
      const fake::PortRef h = hosts[rng() % hosts.size()];
      if (std::find(members[g].begin(), members[g].end(), h) == members[g].end()) {
        rig.join(g + 1, h);
        members[g].push_back(h);
      } else {
        rig.leave(g + 1, h);
        std::erase(members[g], h);
      }
      rig.loop_step();
      check("after a join or leave");
    }
    ASSERT_TRUE(rig.sweep().subnet_up);
    EXPECT_EQ(rig.mft_sets(), 0u);
    check("after a second sweep");
  }
}

// A sweep with more MFT blocks to write than the SMP client queues at once (here 82
// blocks x 7 switches) hands them out as the queue drains: every tree still works, the
// MulticastFDBTop covers them all, and a second sweep has nothing left to send.
TEST(Multicast, ThousandsOfGroupsGoOutAsTheQueueDrains) {
  fake::FakeOptions fo;
  fo.multicast_fdb_cap = 4096;
  fo.mcast_fdb_top_cap = true;
  Rig rig(testsupport::two_level_fat_tree(4, 3, 3, 2), fo);
  std::vector<fake::PortRef> hosts;
  for (std::uint32_t i = 0; i < rig.fabric->size(); ++i) {
    const auto& n = rig.fabric->node(i);
    for (mad::PortNum p = 1; !n.is_switch() && p <= n.num_ports(); ++p)
      if (n.ports[p].cable) hosts.push_back({i, p});
  }
  constexpr unsigned kGroups = 2600;
  std::vector<std::vector<fake::PortRef>> members(kGroups);
  std::vector<Lid> mlids(kGroups);
  for (unsigned g = 0; g < kGroups; ++g) {
    for (unsigned k = 0; k < 3; ++k)
      members[g].push_back(hosts[(g * 7 + k * 5) % hosts.size()]);
    mlids[g] = rig.create(g + 1, members[g]);
  }
  ASSERT_TRUE(rig.sweep().subnet_up);
  const std::size_t switches = 4 + 3;
  const std::size_t blocks = (kGroups + 31) / 32;
  EXPECT_EQ(rig.mft_sets(), blocks * switches);
  EXPECT_EQ(rig.sm->multicast().counters().confirmed, blocks * switches);
  // The fake drops MLIDs above a switch's MulticastFDBTop: the last groups' trees
  // work only if the tops, sent after the blocks, cover them.
  for (unsigned g = 0; g < kGroups; g += 13)
    rig.expect_tree(mlids[g], members[g]);
  rig.expect_tree(mlids[kGroups - 1], members[kGroups - 1]);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.mft_sets(), 0u);
}

// The checker itself: it sees a loop (both parallel cables in the masks) and a missing
// member, on tables written by hand.
TEST(Multicast, FollowMlidSeesLoopsAndMissingMembers) {
  Rig rig;
  auto set_mask = [&](const char* id, std::initializer_list<unsigned> ports) {
    auto& n = rig.fabric->node(rig.fabric->index(id));
    std::uint16_t mask = 0;
    for (unsigned p : ports)
      mask = static_cast<std::uint16_t>(mask | 1u << p);
    n.mft[0] = mask;  // MLID 0xC000, position 0
  };
  set_mask("s1", {1, 3});
  set_mask("s2", {1, 3});
  fake::McastFlood f = rig.fabric->follow_mlid(rig.port("h1"), 0xC000);
  EXPECT_FALSE(f.looped);
  EXPECT_EQ(f.copies({rig.port("h1"), rig.port("h2"), rig.port("h4")}),
            (std::vector<unsigned>{0, 1, 0}));
  set_mask("s1", {1, 3, 5});
  set_mask("s2", {1, 3, 5});
  f = rig.fabric->follow_mlid(rig.port("h1"), 0xC000);
  EXPECT_TRUE(f.looped);
}

// Between sweeps the SA's tables follow the switches once their Sets are answered.
TEST(Multicast, SnapshotFollowsJoinsBetweenSweeps) {
  Rig rig;
  const Lid mlid = rig.create(1, {rig.port("h1"), rig.port("h3")});
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto before = rig.sm->sa().snapshot();
  rig.join(1, rig.port("h2"));
  rig.loop_step();
  rig.sm->publish_multicast_tables();
  const auto after = rig.sm->sa().snapshot();
  ASSERT_NE(after, before);
  EXPECT_GT(after->generation, before->generation);
  for (const auto& n : after->nodes) {
    if (!n.is_switch()) continue;
    const auto& fake_node = rig.fabric->node(rig.fabric->index(n.description));
    const std::size_t positions = n.mft_positions();
    const std::size_t at = (mlid - 0xC000u) * positions;
    const std::uint16_t held = at < fake_node.mft.size() ? fake_node.mft[at] : 0;
    EXPECT_EQ(at < n.mft.size() ? n.mft[at] : 0, held) << n.description;
  }
  // Nothing changed since: no new snapshot.
  rig.clock.advance(std::chrono::seconds(1));
  rig.sm->publish_multicast_tables();
  EXPECT_EQ(rig.sm->sa().snapshot(), after);
}

// MulticastForwardingTableRecord answers from the snapshot: what the switches hold.
TEST(Multicast, SnapshotCarriesTheProgrammedTables) {
  Rig rig;
  const Lid mlid = rig.create(1, {rig.port("h1"), rig.port("h2"), rig.port("hx", 1)});
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto snap = rig.sm->sa().snapshot();
  ASSERT_NE(snap, nullptr);
  for (const auto& n : snap->nodes) {
    if (!n.is_switch()) continue;
    const auto& fake_node = rig.fabric->node(rig.fabric->index(n.description));
    const std::size_t positions = n.mft_positions();
    ASSERT_EQ(n.mft.size(), 32 * positions) << n.description;  // one block in use
    for (std::size_t i = 0; i < n.mft.size(); ++i)
      EXPECT_EQ(n.mft[i], fake_node.mft[i]) << n.description << " word " << i;
    EXPECT_NE(n.mft[(mlid - 0xC000u) * positions], 0u) << n.description;
  }
}

}  // namespace
}  // namespace ibsm::sm::multicast_test
