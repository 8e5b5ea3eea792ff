// ctl/: the command parser, the read-only answers on a fabric the SM brought up on a
// FakeFabric, changing requests carried out by the SM between polls (resweep light
// sends no NodeInfo, heavy rediscovers, reroute recomputes routes without discovery),
// the control socket against real clients (garbage, long lines, refusals), the
// access rule and the events file rotation.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "common/log_modules.hpp"
#include "ctl/command.hpp"
#include "ctl/errors.hpp"
#include "ctl/event_file.hpp"
#include "ctl/reports/reports.hpp"
#include "ctl/server.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/ctl/socket_client.hpp"

namespace ibsm::ctl {
namespace {

using namespace std::chrono_literals;

// --- parser -------------------------------------------------------------------------

TEST(CommandParser, OpenSmCommandsWithTheirArguments) {
  auto c = parse_command("querylid 0x1a2");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->id, CommandId::kQueryLid);
  EXPECT_EQ(*c->number, 0x1a2u);
  EXPECT_FALSE(c->changes);

  c = parse_command("  resweep   light\r");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->word, "light");
  EXPECT_TRUE(c->changes);

  c = parse_command("switchbalance verbose 0x0002c90300001234");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->flag);
  EXPECT_EQ(*c->guid, 0x0002c90300001234u);

  c = parse_command("--json priority 14");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->json);
  EXPECT_TRUE(c->changes);
  EXPECT_EQ(*c->number, 14u);

  c = parse_command("priority");  // shows, changes nothing
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->changes);

  c = parse_command("dump_portguid file /tmp/x ^sw a.*");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->file, "/tmp/x");
  EXPECT_EQ(c->patterns.size(), 2u);
  EXPECT_TRUE(c->changes);

  c = parse_command("routes 0x0002c90300001234 12");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->dest->is_guid);
  EXPECT_FALSE(c->source->is_guid);
  EXPECT_EQ(c->source->value, 12u);

  c = parse_command("events --follow --last 5");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->flag);
  EXPECT_EQ(*c->number, 5u);
}

TEST(CommandParser, EveryCommandOfTheTableParsesWithoutArguments) {
  // Those that need one say so with kErrBadArgument, never an unknown command.
  for (const CommandSpec& s : command_specs()) {
    auto c = parse_command(s.name);
    if (!c.ok()) {
      EXPECT_EQ(c.error().id, kErrBadArgument) << s.name;
    }
  }
}

TEST(CommandParser, BadInputGetsOneErrorWithAStableId) {
  EXPECT_EQ(parse_command("frobnicate").error().id, kErrUnknownCommand);
  EXPECT_EQ(parse_command("").error().id, kErrUnknownCommand);
  EXPECT_EQ(parse_command("resweep").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("resweep medium").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("priority 16").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("priority x").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("querylid").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("querylid 0").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("querylid 0xC000").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("querylid 12 13").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("loglevel 0x100").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("switchbalance 0").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("dump_portguid").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("dump_portguid file").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("status\x01").error().id, kErrMalformed);
  EXPECT_EQ(parse_command(std::string("status \xff")).error().id, kErrMalformed);
  EXPECT_EQ(parse_command(std::string(kMaxLine + 1, 'a')).error().id, kErrLineTooLong);
  std::string many = "help";
  for (int i = 0; i < 100; ++i)
    many += " x";
  EXPECT_EQ(parse_command(many).error().id, kErrBadArgument);
  EXPECT_NE(parse_command("frobnicate").error().message.find("help"), std::string::npos);
}

TEST(CommandParser, PerfmgrSubcommandsThatChangeArePrivileged) {
  for (std::string_view line :
       {"perfmgr", "perfmgr print_counters sw1 2", "perfmgr print_errors", "perfmgr dump_redir",
        "perfmgr sweep_time", "perfmgr xmit_wait_threshold"}) {
    auto c = parse_command(line);
    ASSERT_TRUE(c.ok()) << line;
    EXPECT_FALSE(c->changes) << line;
  }
  for (std::string_view line :
       {"perfmgr enable", "perfmgr disable", "perfmgr clear_counters", "perfmgr dump_counters mach",
        "perfmgr set_rm_nodes", "perfmgr clear_query_cpi", "perfmgr clear_redir",
        "perfmgr sweep_time 30", "perfmgr xmit_wait_threshold 0x10"}) {
    auto c = parse_command(line);
    ASSERT_TRUE(c.ok()) << line;
    EXPECT_TRUE(c->changes) << line;
  }
  EXPECT_EQ(parse_command("perfmgr frobnicate").error().id, kErrBadArgument);
  EXPECT_FALSE(parse_command("node_names")->changes);
  EXPECT_TRUE(parse_command("node_names reload")->changes);
  EXPECT_EQ(parse_command("node_names load").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("perfmgr print_counters a 1 2").error().id, kErrBadArgument);
}

TEST(CommandParser, PermodlogShowsReloadsOrSetsOneModule) {
  auto c = parse_command("permodlog");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->changes);
  c = parse_command("permodlog osm_ucast_mgr.c 0x0c");  // OpenSM's module name
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->changes);
  EXPECT_EQ(*c->number, 0x0cu);
  EXPECT_TRUE(parse_command("permodlog reload")->changes);
  EXPECT_EQ(parse_command("permodlog nosuch.c 1").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("permodlog sa 0x100").error().id, kErrBadArgument);
  EXPECT_EQ(parse_command("permodlog sa").error().id, kErrBadArgument);
}

TEST(Access, RootAndOwnerChangeGroupReadsOthersNothing) {
  EXPECT_TRUE(decide_access(0, {0}, 0, std::nullopt).may_change);
  EXPECT_TRUE(decide_access(500, {500}, 500, std::nullopt).may_change);  // ibsm's own user
  const Peer member = decide_access(1000, {1000, 77}, 0, 77u);
  EXPECT_TRUE(member.may_read);
  EXPECT_FALSE(member.may_change);
  const Peer other = decide_access(1001, {1001}, 0, 77u);
  EXPECT_FALSE(other.may_read);
  EXPECT_FALSE(decide_access(1001, {77}, 0, std::nullopt).may_read);  // no group configured
}

TEST(EventsFile, RotationShiftsAndDropsTheOldest) {
  testsupport::TempDir dir;
  const std::string p = dir.path() + "/events.json";
  for (int round = 0; round < 4; ++round) {
    std::ofstream(p) << round << "\n";
    rotate_files(p, 2);
  }
  EXPECT_FALSE(std::filesystem::exists(p));
  std::string a, b;
  std::ifstream(p + ".1") >> a;
  std::ifstream(p + ".2") >> b;
  EXPECT_EQ(a, "3");
  EXPECT_EQ(b, "2");
  EXPECT_FALSE(std::filesystem::exists(p + ".3"));
}

TEST(EventsFile, WriterAppendsJsonLinesAndRotatesBySize) {
  testsupport::TempDir dir;
  std::ostringstream text;
  Logger log = testsupport::capture_log(text, "ev", spdlog::level::info);
  ops::EventBus bus;
  const std::string p = dir.path() + "/ev";
  EventFileWriter w(bus, log, {p, 300, 2, 1000});
  w.start();
  for (int i = 0; i < 20; ++i)
    bus.emit(ops::EventType::kTrap, {{"trap", std::uint64_t{128}}});
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!std::filesystem::exists(p + ".2") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  w.stop();
  ASSERT_TRUE(std::filesystem::exists(p + ".1"));
  EXPECT_TRUE(std::filesystem::exists(p + ".2"));
  std::ifstream in(p + ".1");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_TRUE(line.starts_with("{\"time\":\"")) << line;
  EXPECT_NE(line.find("\"type\":\"trap\""), std::string::npos);
}

// --- the SM's side: answers and requests on a fake fabric ---------------------------

constexpr std::string_view kLine = R"(Switch 2 "a"
[1] "ha"[1]
[2] "b"[1]

Switch 3 "b"
[1] "a"[2]
[2] "c"[1]
[3] "hb"[1]

Switch 2 "c"
[1] "b"[2]
[2] "hc"[1]

Hca 1 "ha"
[1] "a"[1]

Hca 1 "hb"
[1] "b"[3]

Hca 1 "hc"
[1] "c"[2]
)";

class SmRig : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = testsupport::parse_net(kLine);
    ASSERT_TRUE(d.ok());
    fabric = std::make_unique<fake::FakeFabric>(*d, clock);
    options.cache_dir = dir.path() + "/cache";
    options.node_name_map_name = dir.path() + "/node-name-map";  // written by the tests
    options.dump_files_dir = dir.path();
    sm = std::make_unique<sm::SubnetManager>(*fabric, clock, logger, options);
    for (int i = 0; i < 200 && !up(); ++i)
      sm->step(control);
    ASSERT_TRUE(up());
  }
  bool up() const {
    auto s = sm->ops().snapshot.current();
    return s && s->fabric && s->state == mad::SmState::kMaster && !s->recent_sweeps.empty() &&
           s->recent_sweeps.back().subnet_up;
  }
  Answer ask(std::string_view line) {
    auto c = parse_command(line);
    EXPECT_TRUE(c.ok()) << line;
    return answer_read_only(*c, *sm->ops().snapshot.current(), sm->ops().events);
  }
  // Queues a changing request and runs the SM's loop until it is answered.
  ops::ControlReply request(ops::ControlAction a, std::string arg = {}) {
    std::optional<ops::ControlReply> got;
    ops::ControlRequest r;
    r.action = a;
    r.arg = std::move(arg);
    r.command = "test";
    r.reply = [&](ops::ControlReply rep) { got = std::move(rep); };
    EXPECT_TRUE(sm->ops().control.push(std::move(r)));
    for (int i = 0; i < 500 && !got; ++i)
      sm->step(control);
    EXPECT_TRUE(got.has_value());
    return got.value_or(ops::ControlReply{false, 0, "no answer"});
  }

  // `perfmgr ...` as the server sends it: parsed, carried out on the SM's thread, then
  // finished (formatted) as the server's thread does.
  ops::ControlReply perfmgr(std::string_view line) {
    auto r = perfmgr_on_sm_thread(line);
    return r.finish ? r.finish() : r;
  }
  // What the SM's thread hands back, before any formatting left to the server.
  ops::ControlReply perfmgr_on_sm_thread(std::string_view line) {
    auto c = parse_command(line);
    EXPECT_TRUE(c.ok()) << line;
    std::optional<ops::ControlReply> got;
    ops::ControlRequest r;
    r.action = ops::ControlAction::kPerfmgr;
    r.words = c->args;
    r.changes = c->changes;
    r.command = std::string(line);
    r.reply = [&](ops::ControlReply rep) { got = std::move(rep); };
    EXPECT_TRUE(sm->ops().control.push(std::move(r)));
    for (int i = 0; i < 50 && !got; ++i)
      sm->step(control);
    EXPECT_TRUE(got.has_value());
    return got.value_or(ops::ControlReply{false, 0, "no answer"});
  }

  FakeClock clock;
  testsupport::TempDir dir;
  std::ostringstream log_text;
  Logger logger = testsupport::capture_log(log_text, "sm", spdlog::level::info);
  std::unique_ptr<fake::FakeFabric> fabric;
  conf::Options options;
  sm::ControlFlags control;
  std::unique_ptr<sm::SubnetManager> sm;
};

TEST_F(SmRig, QueryLidNamesThePortHoldingIt) {
  const auto& f = *sm->ops().snapshot.current()->fabric;
  for (const sa::SnapNode& n : f.nodes) {
    if (n.is_switch()) continue;
    const sa::SnapPort& p = n.ports[1];
    const Answer a = ask("querylid " + std::to_string(p.lid));
    ASSERT_TRUE(a.ok) << a.text;
    EXPECT_NE(a.text.find(fmt::format("0x{:016x}", p.guid)), std::string::npos) << a.text;
    EXPECT_NE(a.text.find(n.description), std::string::npos);
    EXPECT_NE(a.json.find("\"node_type\":\"CA\""), std::string::npos) << a.json;
  }
  const Answer none = ask("querylid 999");
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(none.error, kErrNotFound);
}

TEST_F(SmRig, PortStatusCountsEveryLinkedPort) {
  const Answer a = ask("--json portstatus");
  ASSERT_TRUE(a.ok);
  // 5 cables, both ends active; switch "b" has no down port.
  EXPECT_NE(a.json.find("\"ports\":10"), std::string::npos) << a.json;
  EXPECT_NE(a.json.find("\"active\":10"), std::string::npos) << a.json;
  const Answer cas = ask("portstatus ca");
  EXPECT_NE(cas.text.find("3 port(s) scanned on 3 nodes"), std::string::npos) << cas.text;
}

TEST_F(SmRig, SwitchBalanceCountsEndPortLidsPerInterSwitchPort) {
  const Answer a = ask("--json switchbalance verbose");
  ASSERT_TRUE(a.ok);
  // Switch b: port 1 toward a carries ha's LID, port 2 toward c carries hc's.
  EXPECT_NE(a.text.find("Port 1: 1\nPort 2: 1\n"), std::string::npos) << a.text;
  EXPECT_EQ(a.text.find("Unbalanced"), std::string::npos) << a.text;
}

TEST_F(SmRig, RoutesTraceAPathHopByHop) {
  const auto& f = *sm->ops().snapshot.current()->fabric;
  mad::Lid hc = 0;
  for (const sa::SnapNode& n : f.nodes)
    if (n.description == "hc") hc = n.ports[1].lid;
  const Answer a = ask("routes " + std::to_string(hc));
  ASSERT_TRUE(a.ok) << a.text;
  EXPECT_NE(a.text.find("delivered to"), std::string::npos) << a.text;
}

TEST_F(SmRig, DumpConfShowsTheOptionsInForce) {
  const Answer a = ask("dump_conf");
  EXPECT_NE(a.text.find("sm_priority 0"), std::string::npos);
  const auto r = request(ops::ControlAction::kPriority, "14");
  EXPECT_TRUE(r.ok);
  EXPECT_NE(ask("dump_conf").text.find("sm_priority 14"), std::string::npos);
  EXPECT_EQ(sm->ops().snapshot.current()->priority, 14);
}

TEST_F(SmRig, LightResweepSendsNoNodeInfoHeavyRediscovers) {
  fabric->reset_stats();
  auto r = request(ops::ControlAction::kResweepLight);
  EXPECT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("light sweep"), std::string::npos) << r.text;
  EXPECT_EQ(fabric->stats().count(mad::Method::kGet, mad::AttrId::kNodeInfo), 0u);
  EXPECT_GT(fabric->stats().count(mad::Method::kGet, mad::AttrId::kSwitchInfo), 0u);

  fabric->reset_stats();
  r = request(ops::ControlAction::kResweepHeavy);
  EXPECT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("heavy sweep"), std::string::npos) << r.text;
  EXPECT_GE(fabric->stats().count(mad::Method::kGet, mad::AttrId::kNodeInfo), 6u);

  // Both are in the event history.
  int light = 0, heavy = 0;
  for (const auto& e : sm->ops().events.history(100)) {
    if (e->type != ops::EventType::kSweepFinished) continue;
    const auto kind = std::get<std::string>(*e->field("kind"));
    light += kind == "light";
    heavy += kind == "heavy";
  }
  EXPECT_GE(light, 1);
  EXPECT_GE(heavy, 2);  // the first sweep and the requested one
}

TEST_F(SmRig, RerouteRecomputesRoutesWithoutDiscovery) {
  fabric->reset_stats();
  const auto r = request(ops::ControlAction::kReroute);
  EXPECT_TRUE(r.ok) << r.text;
  EXPECT_EQ(fabric->stats().count(mad::Method::kGet, mad::AttrId::kNodeInfo), 0u);
  const auto snap = sm->ops().snapshot.current();
  EXPECT_EQ(snap->recent_sweeps.back().kind, ops::SweepKind::kTargeted);
  EXPECT_EQ(snap->recent_sweeps.back().reason, "reroute");
  EXPECT_NE(log_text.str().find("REROUTE"), std::string::npos);
}

TEST_F(SmRig, SweepOffStopsPeriodicSweeps) {
  EXPECT_TRUE(request(ops::ControlAction::kSweepOff).ok);
  const auto before = sm->ops().snapshot.current()->sweeps;
  for (int i = 0; i < 50; ++i) {
    clock.advance(1s);
    sm->step(control);
  }
  EXPECT_EQ(sm->ops().snapshot.current()->sweeps, before);
  EXPECT_TRUE(request(ops::ControlAction::kSweepOn).ok);
  for (int i = 0; i < 50; ++i) {
    clock.advance(1s);
    sm->step(control);
  }
  EXPECT_GT(sm->ops().snapshot.current()->sweeps, before);
}

TEST_F(SmRig, PerfmgrCommandsReachThePerfManagerOnTheSmThread) {
  // perfmgr is FALSE by default: the status says so, the counters are refused.
  auto r = perfmgr("perfmgr");
  EXPECT_TRUE(r.ok);
  EXPECT_NE(r.text.find("state                   : Disabled"), std::string::npos) << r.text;
  r = perfmgr("perfmgr print_errors");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_id, kErrNotAvailable.code);
  EXPECT_NE(r.text.find("PerfMgr is off"), std::string::npos) << r.text;
  EXPECT_EQ(log_text.str().find("asked 'perfmgr"), std::string::npos);  // reads are not logged

  r = perfmgr("perfmgr enable");
  EXPECT_TRUE(r.ok) << r.text;
  EXPECT_TRUE(sm->perfmgr().settings().enabled);
  EXPECT_NE(log_text.str().find("asked 'perfmgr enable'"), std::string::npos);
  EXPECT_NE(perfmgr("perfmgr").text.find("Enabled"), std::string::npos);

  EXPECT_TRUE(perfmgr("perfmgr sweep_time 30").ok);
  EXPECT_EQ(perfmgr("perfmgr sweep_time").text, "30");
  r = perfmgr("perfmgr sweep_time 0");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_id, kErrPerfmgr.code);
  EXPECT_EQ(sm->perfmgr().settings().sweep_time, 30s);  // unchanged by the bad value
  EXPECT_TRUE(perfmgr("perfmgr print_errors").ok);

  // Counter reads and dumps: the SM's thread only copies the counters; the text and the
  // file are made by the receiver (the control server's thread) from that copy.
  for (std::string_view read :
       {"perfmgr print_errors", "perfmgr print_counters ha", "perfmgr dump_counters"}) {
    const auto on_sm = perfmgr_on_sm_thread(read);
    EXPECT_TRUE(on_sm.ok) << read;
    EXPECT_TRUE(on_sm.text.empty()) << read << ": " << on_sm.text;
    ASSERT_TRUE(on_sm.finish) << read;
  }
  const std::string dump = options.dump_files_dir + "/opensm_port_counters.log";
  std::filesystem::remove(dump);
  auto on_sm = perfmgr_on_sm_thread("perfmgr dump_counters mach");
  EXPECT_FALSE(std::filesystem::exists(dump));
  ASSERT_TRUE(on_sm.finish);
  const auto done = on_sm.finish();
  EXPECT_TRUE(done.ok) << done.text;
  EXPECT_EQ(done.text, "perfmgr dump_counters mach: done");
  EXPECT_TRUE(std::filesystem::exists(dump));
  const auto missing = perfmgr("perfmgr print_counters nobody");
  EXPECT_NE(missing.text.find("Node nobody not found"), std::string::npos) << missing.text;

  EXPECT_TRUE(perfmgr("perfmgr disable").ok);
  EXPECT_FALSE(sm->perfmgr().settings().enabled);
}

TEST_F(SmRig, NodeNamesFromTheMapShowAndReloadKeepsTheLastGoodMap) {
  const auto& f = *sm->ops().snapshot.current()->fabric;
  std::uint64_t b = 0, hb = 0;
  mad::Lid hb_lid = 0;
  for (const sa::SnapNode& n : f.nodes) {
    if (n.description == "b") b = n.guid();
    if (n.description == "hb") {
      hb = n.guid();
      hb_lid = n.ports[1].lid;
    }
  }
  ASSERT_NE(b, 0u);
  ASSERT_NE(hb, 0u);
  EXPECT_NE(ask("node_names").text.find("No node name map"), std::string::npos);
  std::ofstream(dir.path() + "/node-name-map")
      << fmt::format("# test map\n0x{:016x} \"spine-b\"\n0x{:x} host-b\n", b, hb);
  auto r = request(ops::ControlAction::kReloadNodeNames);
  EXPECT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find(": 2 names"), std::string::npos) << r.text;

  Answer a = ask("querylid " + std::to_string(hb_lid));
  EXPECT_NE(a.text.find("Node Desc           : hb\n"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("Node Name           : host-b\n"), std::string::npos) << a.text;
  a = ask("--json querylid " + std::to_string(hb_lid));
  EXPECT_NE(a.json.find("\"node_name\":\"host-b\""), std::string::npos) << a.json;
  a = ask("switchbalance verbose");
  EXPECT_NE(a.text.find("(spine-b)\nPort 1: 1\nPort 2: 1\n"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("(a)\n"), std::string::npos) << a.text;  // unnamed: its description
  // routes, partitions and lidbalance name nodes the same way; --json adds node_name
  // beside node_desc.
  a = ask("routes " + std::to_string(hb_lid));
  EXPECT_NE(a.text.find("(spine-b) out port"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("(host-b) port 1\n"), std::string::npos) << a.text;
  a = ask("--json routes " + std::to_string(hb_lid));
  EXPECT_NE(a.json.find("\"node_desc\":\"b\",\"node_name\":\"spine-b\""), std::string::npos)
      << a.json;
  EXPECT_NE(a.json.find("\"dest\":{"), std::string::npos) << a.json;
  EXPECT_NE(a.json.find("\"node_desc\":\"hb\",\"node_name\":\"host-b\""), std::string::npos)
      << a.json;
  a = ask("partitions");
  EXPECT_NE(a.text.find("(host-b):"), std::string::npos) << a.text;
  a = ask("--json partitions");
  EXPECT_NE(a.json.find("\"node_desc\":\"hb\",\"node_name\":\"host-b\""), std::string::npos)
      << a.json;
  {
    // lidbalance finds nothing on a line of switches; skew switch a's routes to hb's
    // LMC range (4 LIDs: 3 toward b, 1 toward ha) in a copy of the snapshot.
    auto skewed = std::make_shared<ops::OpsSnapshot>(*sm->ops().snapshot.current());
    auto fab = std::make_shared<sa::Snapshot>(*skewed->fabric);
    std::uint64_t a_guid = 0;
    for (sa::SnapNode& n : fab->nodes) {
      if (n.description == "hb") n.ports[1].lmc = 2;
      if (n.description != "a") continue;
      a_guid = n.guid();
      if (n.lft.size() < hb_lid + 4u) n.lft.resize(hb_lid + 4u, 0xFF);
      n.lft[hb_lid] = n.lft[hb_lid + 1] = n.lft[hb_lid + 2] = 2;
      n.lft[hb_lid + 3] = 1;
    }
    skewed->fabric = fab;
    auto c = parse_command("--json lidbalance");
    a = answer_read_only(*c, *skewed, sm->ops().events);
    ASSERT_TRUE(a.ok) << a.text;
    EXPECT_NE(a.text.find("Unbalanced Port Forwarding: Switch " + fmt::format("0x{:016x}", a_guid)),
              std::string::npos)
        << a.text;
    EXPECT_NE(a.text.find("(a): CA " + fmt::format("0x{:016x}", hb) +
                          " (host-b): Port 1 - 1: Port 2 - 3:"),
              std::string::npos)
        << a.text;
    EXPECT_NE(a.text.find("Dest " + fmt::format("0x{:016x}", b) + "(spine-b) - 3"),
              std::string::npos)
        << a.text;
    EXPECT_NE(a.json.find("\"node_desc\":\"hb\",\"node_name\":\"host-b\""), std::string::npos)
        << a.json;
    EXPECT_NE(a.json.find("\"switch_desc\":\"a\",\"switch_name\":\"a\""), std::string::npos)
        << a.json;
  }
  a = ask("--json node_names");
  EXPECT_NE(a.json.find("\"names\":2"), std::string::npos) << a.json;
  EXPECT_NE(a.json.find("\"name\":\"spine-b\""), std::string::npos) << a.json;

  // A broken map is refused with file:line, and the last good one stays in force.
  std::ofstream(dir.path() + "/node-name-map") << "0x1 ok\nzz \"bad\"\n";
  r = request(ops::ControlAction::kReloadNodeNames);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.text.find("node-name-map:2"), std::string::npos) << r.text;
  EXPECT_NE(ask("querylid " + std::to_string(hb_lid)).text.find("host-b"), std::string::npos);
}

TEST_F(SmRig, HandoverWithoutAStandbySaysSo) {
  const auto r = request(ops::ControlAction::kHandover);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_id, kErrNoStandby.code);
}

// permodlog needs the module loggers of a real root logger (make_logger), not a capture.
TEST(Permodlog, ShowsSetsAndReloadsTheModuleFlagsOnTheSmThread) {
  testsupport::TempDir dir;
  LogSettings ls;
  ls.file = dir.path() + "/opensm.log";
  const Logger root = make_logger(ls);
  auto d = testsupport::parse_net(kLine);
  ASSERT_TRUE(d.ok());
  FakeClock clock;
  fake::FakeFabric fabric(*d, clock);
  conf::Options o;
  o.cache_dir = dir.path() + "/cache";
  o.per_module_logging_file = dir.path() + "/per-module-logging.conf";
  sm::SubnetManager sm(fabric, clock, root, o);
  sm::ControlFlags control;
  auto permodlog = [&](std::string_view line) {
    auto c = parse_command(line);
    EXPECT_TRUE(c.ok()) << line;
    std::optional<ops::ControlReply> got;
    ops::ControlRequest r;
    r.action = ops::ControlAction::kPermodlog;
    r.words = c->args;
    if (c->number) r.arg = std::to_string(*c->number);
    r.changes = c->changes;
    r.reply = [&](ops::ControlReply rep) { got = std::move(rep); };
    EXPECT_TRUE(sm.ops().control.push(std::move(r)));
    for (int i = 0; i < 50 && !got; ++i)
      sm.step(control);
    return got.value_or(ops::ControlReply{false, 0, "no answer"});
  };
  auto r = permodlog("permodlog");
  EXPECT_TRUE(r.ok);
  EXPECT_NE(r.text.find("Per module logging file: " + o.per_module_logging_file), std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("\nrouting     0x00"), std::string::npos) << r.text;

  r = permodlog("permodlog osm_ucast_mgr.c 0x0c");
  EXPECT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "Setting routing log flags to 0x0c");
  EXPECT_EQ(module_log_flags(root, LogModule::kRouting), 0x0cu);
  EXPECT_NE(permodlog("permodlog").text.find("\nrouting     0x0c"), std::string::npos);

  // reload: the file replaces the runtime change; an unknown module is a warning.
  std::ofstream(o.per_module_logging_file) << "osm_sa.c 0x08\nosm_nosuch.c 1\n";
  r = permodlog("permodlog reload");
  EXPECT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("osm_nosuch.c"), std::string::npos) << r.text;
  EXPECT_EQ(module_log_flags(root, LogModule::kSa), 0x08u);
  EXPECT_EQ(module_log_flags(root, LogModule::kRouting), 0u);
  // A broken file is refused with file:line and the flags in force stay.
  std::ofstream(o.per_module_logging_file) << "osm_sa.c zz\n";
  r = permodlog("permodlog reload");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.text.find("per-module-logging.conf:1"), std::string::npos) << r.text;
  EXPECT_EQ(module_log_flags(root, LogModule::kSa), 0x08u);
}

// --- the socket ---------------------------------------------------------------------

class ServerRig : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = std::make_shared<ops::OpsSnapshot>();
    s->version = "9.9";
    s->options = std::make_shared<conf::Options>();
    ops.snapshot.publish(s);
    ServerSettings st;
    st.socket_path = dir.path() + "/ctl.sock";
    st.idle_timeout = 500ms;
    server = std::make_unique<ControlServer>(ops, logger, st);
    server->start();
    // A stand-in for the SM's thread: answers changing requests.
    sm_thread = std::thread([this] {
      while (!done) {
        for (auto& r : ops.control.take()) {
          // print_counters: formatting left to the server, as the real SM does.
          if (r.command.find("print_counters") != std::string::npos) {
            ops::ControlReply later;
            later.finish = [this, cmd = r.command] {
              finished_on = std::this_thread::get_id();
              return ops::ControlReply{true, 0, "formatted " + cmd};
            };
            r.reply(std::move(later));
            continue;
          }
          r.reply({true, 0, "done " + r.command});
        }
        std::this_thread::sleep_for(5ms);
      }
    });
  }
  void TearDown() override {
    done = true;
    sm_thread.join();
    server->stop();
  }
  std::string path() const { return dir.path() + "/ctl.sock"; }

  testsupport::TempDir dir;
  std::ostringstream log_text;
  Logger logger = testsupport::capture_log(log_text, "ctl", spdlog::level::info);
  ops::Ops ops;
  std::unique_ptr<ControlServer> server;
  std::atomic<bool> done{false};
  std::thread sm_thread;
  std::atomic<std::thread::id> finished_on{};
};

TEST_F(ServerRig, WorkTheSmLeavesInAReplyIsDoneOnTheServersThread) {
  Client c(path());
  c.send("perfmgr print_counters sw\n");
  EXPECT_EQ(c.answer(), "formatted perfmgr print_counters sw\n.ok\n");
  EXPECT_NE(finished_on.load(), std::thread::id{});
  EXPECT_NE(finished_on.load(), sm_thread.get_id());
  EXPECT_NE(finished_on.load(), std::this_thread::get_id());
}

TEST_F(ServerRig, AnswersAndStaysUsableAfterBadInput) {
  Client c(path());
  ASSERT_TRUE(c.ok());
  c.send("version\n");
  EXPECT_EQ(c.answer(), "ibsm 9.9\n.ok\n");
  c.send("frobnicate\n");
  EXPECT_EQ(c.answer().substr(0, 10), "IBSM-8001:");
  c.send(std::string("\x01\x02garbage\xff\n"));
  EXPECT_NE(c.answer().find("IBSM-8016"), std::string::npos);
  c.send(std::string(1 << 20, 'x') + "\n");  // 1 MiB line
  EXPECT_NE(c.answer().find("IBSM-8003"), std::string::npos);
  c.send("--json version\n");
  EXPECT_EQ(c.answer(),
            "{\"command\":\"version\",\"ok\":true,\"result\":{\"version\":\"9.9\"}}\n.ok\n");
  c.send("--json priority 99\n");
  EXPECT_EQ(
      c.answer(),
      "{\"command\":\"\",\"ok\":false,\"error\":{\"id\":\"IBSM-8002\",\"message\":\"priority 99 is "
      "above 15; usage: priority [<sm-priority>]\"}}\n.err\n");
  c.send("resweep heavy\n");  // the test runs as root or as the server's own user
  EXPECT_EQ(c.answer(), "done resweep heavy\n.ok\n");
  EXPECT_NE(log_text.str().find("sent 'resweep heavy'"), std::string::npos);
  // perfmgr goes to the SM's thread (which owns the PerfMgr) even to read; only the
  // subcommands that change it are logged.
  c.send("perfmgr print_errors\n");
  EXPECT_EQ(c.answer(), "done perfmgr print_errors\n.ok\n");
  EXPECT_EQ(log_text.str().find("sent 'perfmgr print_errors'"), std::string::npos);
  c.send("perfmgr disable\n");
  EXPECT_EQ(c.answer(), "done perfmgr disable\n.ok\n");
  EXPECT_NE(log_text.str().find("sent 'perfmgr disable'"), std::string::npos);
}

TEST_F(ServerRig, SilentAndHalfOpenConnectionsTimeOut) {
  Client silent(path());
  Client partial(path());
  partial.send("stat");  // never finished
  EXPECT_NE(silent.answer().find("IBSM-8006"), std::string::npos);
  EXPECT_NE(partial.answer().find("IBSM-8006"), std::string::npos);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (server->connections() != 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(server->connections(), 0u);
}

TEST_F(ServerRig, FollowersGetLiveEventsAndAStuckOneDropsOnlyItsOwn) {
  Client follower(path());
  Client stuck(path());
  follower.send("--json events --follow\n");
  stuck.send("events --follow\n");
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (ops.events.stats().subscribers < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  ASSERT_EQ(ops.events.stats().subscribers, 2u);
  ops.events.emit(ops::EventType::kSweepStarted, {{"kind", std::string("light")}});
  const std::string first = follower.line();
  EXPECT_NE(first.find("\"type\":\"sweep_started\""), std::string::npos) << first;
  // The stuck reader never reads: its socket buffer and then its queue fill, the
  // follower and the emitter go on, and the bus counts what the stuck one lost.
  const std::string pad(1000, 'x');
  std::size_t got = 0, dropped_lines = 0;
  for (int batch = 0; batch < 20; ++batch) {
    for (int i = 0; i < 1000; ++i)
      ops.events.emit(ops::EventType::kTrap, {{"pad", pad}});
    while (got < 1000u * static_cast<std::size_t>(batch + 1)) {
      const std::string l = follower.line();
      if (l.empty()) break;
      if (l.find("\"events_dropped\"") != std::string::npos) ++dropped_lines;
      if (l.find("\"type\":\"trap\"") != std::string::npos) ++got;
    }
  }
  EXPECT_EQ(got, 20000u);  // the follower lost nothing
  EXPECT_EQ(dropped_lines, 0u);
  // The stuck one either lost events from its queue, or the server had already cut it
  // off (its output over the cap): which comes first depends on how the threads ran.
  const auto stats = ops.events.stats();
  EXPECT_TRUE(stats.dropped > 0u || stats.subscribers < 2u)
      << "dropped " << stats.dropped << ", subscribers " << stats.subscribers;
}

// OpenSM's console on 127.0.0.1:console_port: a greeting and a prompt after each
// answer, plain text (no framing); quit closes without another prompt.
TEST(LoopbackConsole, AnswersWithAPromptAndQuitCloses) {
  testsupport::TempDir dir;
  std::ostringstream log_text;
  Logger logger = testsupport::capture_log(log_text, "ctl", spdlog::level::info);
  ops::Ops ops;
  auto s = std::make_shared<ops::OpsSnapshot>();
  s->version = "9.9";
  ops.snapshot.publish(s);
  ServerSettings st;
  st.console = "loopback";
  const std::uint16_t port = free_loopback_port();
  ASSERT_NE(port, 0);
  st.console_port = port;
  ControlServer server(ops, logger, st);
  server.start();
  const int fd = connect_loopback(port);
  ASSERT_GE(fd, 0);
  std::string got;
  auto until_prompt = [&] {
    char buf[4096];
    for (;;) {
      const auto at = got.find("ibsm $ ");
      if (at != std::string::npos) {
        std::string text = got.substr(0, at);
        got.erase(0, at + 7);
        return text;
      }
      const ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n <= 0) return std::string("<eof>");
      got.append(buf, static_cast<std::size_t>(n));
    }
  };
  auto ask = [&](std::string_view line) {
    ::send(fd, line.data(), line.size(), MSG_NOSIGNAL);
    return until_prompt();
  };
  EXPECT_EQ(until_prompt(), "ibsm console: type 'help' for the commands\n");
  EXPECT_EQ(ask("version\n"), "ibsm 9.9\n");
  EXPECT_EQ(ask("frobnicate\n").substr(0, 10), "IBSM-8001:");
  EXPECT_EQ(ask("\n"), "");  // a blank line: the prompt again
  ::send(fd, "quit\n", 5, MSG_NOSIGNAL);
  char buf[64];
  EXPECT_EQ(::read(fd, buf, sizeof(buf)), 0);  // closed, nothing more written
  ::close(fd);
  server.stop();
}

}  // namespace
}  // namespace ibsm::ctl
