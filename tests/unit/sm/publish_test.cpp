// Publishing (sm/publish/, sm/control/) without a SubnetManager: the operator seam's books
// and the OpsSnapshot built from them, the SA's snapshots and prefix routes, the
// PerfMgr's published counters, and the control requests carried out on the PerfMgr and
// the loggers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/clock.hpp"
#include "ops/errors.hpp"
#include "sm/control/subsystem_requests.hpp"
#include "sm/publish/ops_seam.hpp"
#include "sm/publish/perf_counters.hpp"
#include "sm/publish/sa_publisher.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm::publish {
namespace {

using ops::EventType;
using ops::SweepKind;

std::vector<ops::EventPtr> events_of(OpsSeam& seam) {
  return seam.ops().events.history(1000);
}

std::size_t count(const std::vector<ops::EventPtr>& evs, EventType t) {
  std::size_t n = 0;
  for (const auto& e : evs)
    n += e->type == t;
  return n;
}

const ops::FieldValue& field(const ops::Event& e, std::string_view key) {
  const ops::FieldValue* v = e.field(key);
  EXPECT_NE(v, nullptr) << key;
  static const ops::FieldValue none{};
  return v ? *v : none;
}

SweepOutcome outcome(bool up, std::size_t problems = 0) {
  SweepOutcome o;
  o.subnet_up = up;
  o.seconds = 0.25;
  o.mads.sent = 40;
  o.mads.received = 38;
  o.problems = problems;
  o.nodes = 7;
  o.switches = 2;
  o.end_ports = 5;
  return o;
}

TEST(OpsSeam, HeavySweepIsCountedRecordedAndAnnounced) {
  OpsSeam seam;
  const auto t = seam.sweep_started(SweepKind::kHeavy, "first sweep");
  seam.record_sweep(SweepKind::kHeavy, "first sweep", outcome(true), t);
  seam.publish({}, conf::Options{});
  auto evs = events_of(seam);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0]->type, EventType::kSweepStarted);
  EXPECT_EQ(std::get<std::uint64_t>(field(*evs[0], "sweep")), 1u);
  EXPECT_EQ(evs[1]->type, EventType::kSweepFinished);
  EXPECT_EQ(std::get<std::string>(field(*evs[1], "kind")), "heavy");
  EXPECT_EQ(std::get<std::uint64_t>(field(*evs[1], "nodes")), 7u);
  EXPECT_EQ(std::get<std::uint64_t>(field(*evs[1], "mads_sent")), 40u);
  auto s = seam.ops().snapshot.current();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->sweeps, 1u);
  EXPECT_EQ(s->heavy_sweeps, 1u);
  ASSERT_EQ(s->recent_sweeps.size(), 1u);
  EXPECT_EQ(s->recent_sweeps[0].reason, "first sweep");
  EXPECT_EQ(s->recent_sweeps[0].switches, 2u);
  EXPECT_TRUE(s->last_subnet_up.has_value());
  EXPECT_EQ(s->sweep_durations[static_cast<std::size_t>(SweepKind::kHeavy)].count, 1u);
  EXPECT_EQ(s->sweep_durations[static_cast<std::size_t>(SweepKind::kLight)].count, 0u);
}

TEST(OpsSeam, LightSweepHasNoFabricFieldsAndNoSubnetUpTime) {
  OpsSeam seam;
  seam.record_sweep(SweepKind::kLight, "interval", outcome(true), {});
  seam.publish({}, conf::Options{});
  auto evs = events_of(seam);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]->field("nodes"), nullptr);
  auto s = seam.ops().snapshot.current();
  EXPECT_EQ(s->sweeps, 1u);
  EXPECT_EQ(s->heavy_sweeps, 0u);
  EXPECT_FALSE(s->last_subnet_up.has_value());
}

TEST(OpsSeam, KeepsTheLastSixteenSweeps) {
  OpsSeam seam;
  for (int i = 0; i < 20; ++i)
    seam.record_sweep(SweepKind::kLight, "interval", outcome(true), {});
  ASSERT_EQ(seam.recent_sweeps().size(), ops::OpsSnapshot::kRecentSweeps);
  EXPECT_EQ(seam.recent_sweeps().front().number, 5u);
  EXPECT_EQ(seam.recent_sweeps().back().number, 20u);
}

TEST(OpsSeam, WaitersAreAnsweredByTheSweepTheyAskedFor) {
  OpsSeam seam;
  std::vector<ops::ControlReply> heavy, light;
  seam.wait_for_sweep(true, [&](ops::ControlReply r) { heavy.push_back(std::move(r)); });
  seam.wait_for_sweep(false, [&](ops::ControlReply r) { light.push_back(std::move(r)); });
  EXPECT_TRUE(seam.has_sweep_waiters());
  seam.record_sweep(SweepKind::kLight, "interval", outcome(true), {});
  ASSERT_EQ(light.size(), 1u);
  EXPECT_TRUE(light[0].ok);
  EXPECT_EQ(light[0].text.rfind("light sweep 1 done in 0.250 s: subnet up", 0), 0u)
      << light[0].text;
  EXPECT_TRUE(heavy.empty());  // a light sweep does not answer a heavy request
  EXPECT_TRUE(seam.has_sweep_waiters());
  seam.record_sweep(SweepKind::kHeavy, "forced", outcome(false, 3), {});
  ASSERT_EQ(heavy.size(), 1u);
  EXPECT_FALSE(heavy[0].ok);
  EXPECT_EQ(heavy[0].error_id, ops::kErrSweepFailed.code);
  EXPECT_EQ(heavy[0].error_id, 8040);
  EXPECT_EQ(heavy[0].text, "heavy sweep 2 done in 0.250 s: 3 problems; MADs sent 40, received 38");
  EXPECT_FALSE(seam.has_sweep_waiters());
}

TEST(OpsSeam, PublishKeepsTheLiveFieldsAndSharesUnchangedOptions) {
  OpsSeam seam;
  seam.set_version("9.9");
  conf::Options opts;
  ops::OpsSnapshot live;
  live.state = mad::SmState::kStandby;
  live.status_line = "STANDBY, master 0x1";
  seam.publish(live, opts);
  auto a = seam.ops().snapshot.current();
  seam.publish(live, opts);
  auto b = seam.ops().snapshot.current();
  EXPECT_EQ(a->generation, 1u);
  EXPECT_EQ(b->generation, 2u);
  EXPECT_EQ(b->state, mad::SmState::kStandby);
  EXPECT_EQ(b->status_line, "STANDBY, master 0x1");
  EXPECT_EQ(b->version, "9.9");
  EXPECT_EQ(a->options.get(), b->options.get());  // not copied again
  opts.sm_priority = 7;
  seam.publish(live, opts);
  auto c = seam.ops().snapshot.current();
  EXPECT_NE(c->options.get(), b->options.get());
  EXPECT_EQ(c->options->sm_priority, 7);
}

TEST(OpsSeam, ABigFabricIsReleasedASmallOneKept) {
  for (const std::size_t nodes : {std::size_t{10}, ops::OpsSnapshot::kBigFabricNodes + 1}) {
    OpsSeam seam;
    auto fabric = std::make_shared<sa::Snapshot>();
    fabric->nodes.resize(nodes);
    ops::OpsSnapshot live;
    live.fabric = fabric;
    seam.publish(live, conf::Options{});
    seam.release_big_fabric();
    auto s = seam.ops().snapshot.current();
    EXPECT_EQ(s->fabric != nullptr, nodes == 10) << nodes;
  }
}

TEST(OpsSeam, RoutingOutcomeThenItsGradeAsOneEvent) {
  OpsSeam seam;
  seam.note_routing("minhop", {"ftree", "minhop"}, 12.5, nullptr);
  EXPECT_TRUE(events_of(seam).empty());
  EXPECT_TRUE(seam.routing().fallback);
  EXPECT_FALSE(seam.routing().graded);
  routing::RouteReport grade;
  grade.pairs = 42;
  grade.max_efi = 3;
  seam.note_routing("minhop", {"ftree", "minhop"}, 12.5, &grade);
  auto evs = events_of(seam);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]->type, EventType::kRouting);
  EXPECT_EQ(std::get<std::string>(field(*evs[0], "engine")), "minhop");
  EXPECT_EQ(std::get<bool>(field(*evs[0], "fallback")), true);
  EXPECT_EQ(std::get<std::uint64_t>(field(*evs[0], "pairs")), 42u);
  seam.publish({}, conf::Options{});
  auto s = seam.ops().snapshot.current();
  EXPECT_TRUE(s->routing.graded);
  EXPECT_EQ(s->routing.chain, (std::vector<std::string>{"ftree", "minhop"}));
  EXPECT_EQ(s->routing.max_efi, 3u);
}

TEST(OpsSeam, PartitionsReloadIsAnnouncedAndShown) {
  OpsSeam seam;
  seam.partitions_file("/etc/opensm/partitions.conf");
  EXPECT_TRUE(events_of(seam).empty());
  seam.partitions_reloaded("/etc/opensm/partitions.conf", false, {"line 3: bad"}, 2);
  auto evs = events_of(seam);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0]->type, EventType::kPartitionsReloaded);
  EXPECT_EQ(std::get<bool>(field(*evs[0], "ok")), false);
  EXPECT_EQ(std::get<std::uint64_t>(field(*evs[0], "errors")), 1u);
  seam.publish({}, conf::Options{});
  auto s = seam.ops().snapshot.current();
  EXPECT_FALSE(s->partitions.ok);
  EXPECT_EQ(s->partitions.partitions, 2u);
  EXPECT_EQ(s->partitions.errors, std::vector<std::string>{"line 3: bad"});
}

TEST(OpsSeam, GroupsCreatedAndDeletedAreAnnouncedOnce) {
  OpsSeam seam;
  sa::McGroupStore store;
  EXPECT_FALSE(seam.observe_groups(store));
  sa::McGroupRec g;
  g.mgid = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff};
  g.pkey = 0xffff;
  ASSERT_NE(store.create(g, mad::Lid{0xc001}), nullptr);
  EXPECT_TRUE(seam.observe_groups(store));
  EXPECT_FALSE(seam.observe_groups(store));  // nothing new
  seam.publish({}, conf::Options{});
  auto s = seam.ops().snapshot.current();
  ASSERT_EQ(s->mcast_groups.size(), 1u);
  EXPECT_EQ(s->mcast_groups[0].mlid, 0xc001);
  EXPECT_EQ(s->mcast_groups[0].mgid, "ff12:401b:ffff:0000:0000:0000:0000:0000");
  store.erase(g.mgid);
  EXPECT_TRUE(seam.observe_groups(store));
  auto evs = events_of(seam);
  EXPECT_EQ(count(evs, EventType::kMcastGroupCreated), 1u);
  EXPECT_EQ(count(evs, EventType::kMcastGroupDeleted), 1u);
  EXPECT_EQ(std::get<std::string>(field(*evs[0], "pkey")), "0xffff");
}

TEST(OpsSeam, FabricChangesAgainstTheLastSnapshot) {
  OpsSeam seam;
  sa::Snapshot snap;
  snap.nodes.resize(1);
  snap.nodes[0].info.node_type = mad::NodeType::kCa;
  snap.nodes[0].info.node_guid = 0x10;
  snap.nodes[0].ports.resize(2);
  snap.nodes[0].ports[1].present = true;
  snap.nodes[0].ports[1].num = 1;
  snap.nodes[0].ports[1].lid = 5;
  snap.nodes[0].ports[1].info.port_state = mad::PortState::kActive;
  seam.report_fabric_changes(snap);  // the first: nothing to compare with
  EXPECT_TRUE(events_of(seam).empty());
  snap.nodes[0].ports[1].lid = 9;
  seam.report_fabric_changes(snap);
  EXPECT_EQ(count(events_of(seam), EventType::kLidChanged), 1u);
  seam.report_fabric_changes(snap);  // no change since
  EXPECT_EQ(events_of(seam).size(), 1u);
}

TEST(PerfCounterCopy, CopiesOncePerFinishedPerfMgrSweep) {
  PerfCounterCopy copy;
  int copies = 0;
  auto take = [&] {
    ++copies;
    return std::make_shared<const perfmgr::CounterSnapshot>();
  };
  EXPECT_FALSE(copy.refresh(0, take));  // no sweep yet
  EXPECT_EQ(copy.counters(), nullptr);
  EXPECT_TRUE(copy.refresh(1, take));
  const auto first = copy.counters();
  EXPECT_NE(first, nullptr);
  EXPECT_FALSE(copy.refresh(1, take));
  EXPECT_EQ(copy.counters(), first);
  EXPECT_TRUE(copy.refresh(2, take));
  EXPECT_EQ(copies, 2);
}

// One switch and one CA: a transport for the SA server and the PerfMgr.
testsupport::Fabric tiny_net() {
  auto net = testsupport::parse_net(R"(Switch 4 "s1"
[1] "h1"[1]

Hca 1 "h1"
[1] "s1"[1]
)");
  EXPECT_TRUE(net.ok());
  return *net;
}

struct SaRig {
  testsupport::Fabric desc = tiny_net();
  FakeClock clock;
  fake::FakeFabric transport{desc, clock};
  std::ostringstream log_text;
  Logger log = testsupport::capture_log(log_text);
  sa::SaServer sa{transport, clock, log, sa::SaSettings{}};
  Fabric fabric;
  routing::Routes routes;
  std::vector<NodeIndex> routed;
  partitions::McGroupTable groups;
  conf::Options options;
  SaSnapshotInput input() { return {fabric, routes, routed, groups, options}; }
  std::size_t lines_with(std::string_view what) const {
    std::size_t n = 0;
    std::istringstream in(log_text.str());
    for (std::string line; std::getline(in, line);)
      n += line.find(what) != std::string::npos;
    return n;
  }
};

TEST(SaPublisher, NumbersSnapshotsAndLetsTheCallerDecorate) {
  SaRig rig;
  SaPublisher pub(rig.log);
  pub.publish(rig.sa, rig.input(), [](sa::Snapshot& s) { s.router_ports.push_back(0x99); });
  ASSERT_NE(rig.sa.snapshot(), nullptr);
  EXPECT_EQ(rig.sa.snapshot()->generation, 1u);
  EXPECT_EQ(rig.sa.snapshot()->router_ports, std::vector<Guid>{0x99});
  EXPECT_EQ(pub.next_generation(), 2u);  // an amendment's number
  pub.publish(rig.sa, rig.input(), {});
  EXPECT_EQ(rig.sa.snapshot()->generation, 3u);
  EXPECT_EQ(rig.lines_with("SA snapshot 3 published"), 1u);
}

TEST(SaPublisher, PrefixRoutesLastGoodStaysAndUnroutedAreLoggedOnChange) {
  SaRig rig;
  testsupport::TempDir dir;
  const std::string file = dir.path() + "/prefix-routes.conf";
  std::ofstream(file) << "0xfe80000000000001 0x0002c90300000001\n";
  SaPublisher pub(rig.log);
  pub.load_prefix_routes(file);
  ASSERT_NE(pub.prefix_routes(), nullptr);
  const auto good = pub.prefix_routes();
  EXPECT_EQ(rig.lines_with("prefix routes: 1 routes from"), 1u);
  // The fabric has no router: the route is logged once, not after every snapshot.
  pub.publish(rig.sa, rig.input(), {});
  pub.publish(rig.sa, rig.input(), {});
  EXPECT_EQ(rig.lines_with("IBSM-7041"), 1u);
  EXPECT_EQ(rig.sa.snapshot()->prefix_routes, good);
  std::ofstream(file) << "not-a-prefix 0x1\n";
  pub.load_prefix_routes(file);
  EXPECT_EQ(pub.prefix_routes(), good);
  EXPECT_EQ(rig.lines_with("IBSM-7040"), 1u);
  EXPECT_EQ(rig.lines_with("the routes read before stay"), 1u);
}

TEST(ControlRequests, PerfmgrCountersNeedARunningPerfMgr) {
  SaRig rig;
  perfmgr::PerfManager pm(rig.transport, rig.clock, rig.log, perfmgr::PerfSettings{},
                          [] { return std::time_t{0}; });
  std::vector<ops::ControlReply> got;
  int changed = 0;
  ops::ControlRequest req;
  req.action = ops::ControlAction::kPerfmgr;
  req.words = {"print_counters", "h1"};
  req.changes = false;
  req.reply = [&](ops::ControlReply r) { got.push_back(std::move(r)); };
  control::carry_out_perfmgr(pm, "/nonexistent", req, [&] { ++changed; });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_FALSE(got[0].ok);
  EXPECT_EQ(got[0].error_id, 8011);
  req.words = {"sweep_time", "0"};  // outside 1-65535
  req.changes = true;
  control::carry_out_perfmgr(pm, "/nonexistent", req, [&] { ++changed; });
  ASSERT_EQ(got.size(), 2u);
  EXPECT_FALSE(got[1].ok);
  EXPECT_EQ(got[1].error_id, 8050);
  req.words = {"enable"};
  control::carry_out_perfmgr(pm, "/nonexistent", req, [&] { ++changed; });
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(got[2].ok) << got[2].text;
  EXPECT_TRUE(pm.enabled());
  EXPECT_EQ(changed, 2);  // the changing requests, before their answers
}

TEST(ControlRequests, PermodlogOnASingleLoggerIsNotAvailable) {
  std::ostringstream text;
  Logger log = testsupport::capture_log(text);
  std::vector<ops::ControlReply> got;
  ops::ControlRequest req;
  req.action = ops::ControlAction::kPermodlog;
  req.reply = [&](ops::ControlReply r) { got.push_back(std::move(r)); };
  control::carry_out_permodlog(log, "", 0x03, req);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].ok);
  EXPECT_EQ(got[0].text.rfind("Per module logging file: (none)\n", 0), 0u) << got[0].text;
  EXPECT_NE(got[0].text.find("log_flags 0x03 OR its flags"), std::string::npos);
  req.words = {"sa", "3"};
  req.arg = "3";
  control::carry_out_permodlog(log, "", 0x03, req);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_FALSE(got[1].ok);
  EXPECT_EQ(got[1].error_id, 8011);
}

}  // namespace
}  // namespace ibsm::sm::publish
