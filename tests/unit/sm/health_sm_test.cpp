// Fabric health carried out by the SubnetManager (sm/health/health_monitor.hpp) on a
// FakeFabric with a FakeClock: a flapping inter-switch link isolated (no LFT entry
// through it, every route still complete, only routes that used it moved), `report`
// leaving the LFTs alone, the SM's own link never acted on, a host's link reported,
// clearing putting the link back, the dump file, port-error traps counted, Sets
// refused (seterr) and answers with impossible values (illegal).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/text.hpp"
#include "mad/attr/notice.hpp"
#include "mad/smp.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/builders.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm {
namespace {

using fake::FakeFabric;

// Four leaves with two hosts each, two spines; leaf l's port 3 goes to spine0 (whose
// port l+1 faces it). The SM runs on h0_0, behind leaf0 port 1.
constexpr PortNum kLeafToSpine0 = 3;

struct Rig {
  using Keys = std::vector<std::pair<std::string, std::string>>;
  explicit Rig(const Keys& keys = {}) : desc(testsupport::two_level_fat_tree(4, 2, 2)) {
    fabric = std::make_unique<FakeFabric>(desc, clock);
    options.cache_dir = dir.path() + "/cache";
    options.dump_files_dir = dir.path();
    options.hm_num_flapping_sweeps = 2;
    options.hm_num_flapping_sweeps_window = 5;
    for (const auto& [k, v] : keys) {
      if (k == "hm_sw_flapping_action") options.hm_sw_flapping_action = v;
      if (k == "hm_ca_flapping_action") options.hm_ca_flapping_action = v;
      if (k == "hm_sw_manual_action") options.hm_sw_manual_action = v;
      if (k == "hm_sw_noisy_action") options.hm_sw_noisy_action = v;
      if (k == "hm_sw_seterr_action") options.hm_sw_seterr_action = v;
      if (k == "policy") {
        options.hm_ports_health_policy_file = dir.path() + "/health-policy";
        std::ofstream(options.hm_ports_health_policy_file) << v;
      }
    }
    options.hm_num_traps = 3;
    sm = std::make_unique<SubnetManager>(*fabric, clock, null_logger(), options);
  }
  SweepResult sweep() { return sm->sweep(stop); }
  std::uint32_t index(const std::string& id) const { return fabric->index(id); }
  Guid guid(const std::string& id) const { return fabric->node(index(id)).info.node_guid; }
  std::vector<std::vector<PortNum>> lfts() const {
    std::vector<std::vector<PortNum>> out;
    for (std::uint32_t i = 0; i < fabric->size(); ++i)
      out.push_back(fabric->node(i).lft);
    return out;
  }
  std::size_t entries_to(const std::string& sw, PortNum port) const {
    std::size_t n = 0;
    for (PortNum p : fabric->node(index(sw)).lft)
      n += p == port ? 1 : 0;
    return n;
  }
  std::string routes() const {
    std::string s;
    for (const auto& line : fabric->check_routes())
      s += line + "\n";
    return s;
  }
  // Down and up again, with a sweep after each: one flap the SM sees.
  void flap(const std::string& node, PortNum port) {
    fabric->set_link(index(node), port, false);
    ASSERT_TRUE(sweep().subnet_up);
    fabric->set_link(index(node), port, true);
    ASSERT_TRUE(sweep().subnet_up);
  }
  ops::HealthStatusPtr health() const { return sm->ops().snapshot.current()->health; }
  std::string dump() const {
    std::ifstream in(dir.path() + "/opensm-unhealthy-ports.dump");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // ibsm-ctl health clear GUID PORT, carried out by the next turn of the loop.
  ops::ControlReply clear(Guid g, PortNum p) {
    ops::ControlReply got;
    ops::ControlRequest r;
    r.action = ops::ControlAction::kHealthClear;
    r.words = {hex_guid(g), std::to_string(p)};
    r.reply = [&got](ops::ControlReply rep) { got = std::move(rep); };
    sm->ops().control.push(std::move(r));
    ControlFlags flags;
    sm->step(flags);
    return got;
  }
  std::size_t events(ops::EventType t) const {
    std::size_t n = 0;
    for (const ops::EventPtr& e : sm->ops().events.history(1000))
      n += e->type == t ? 1 : 0;
    return n;
  }

  FakeClock clock;
  testsupport::TempDir dir;
  testsupport::Fabric desc;
  std::unique_ptr<FakeFabric> fabric;
  conf::Options options;
  std::atomic<bool> stop{false};
  std::unique_ptr<SubnetManager> sm;
};

// Whether, by the LFTs `lft`, the route from switch `from` to `lid` leaves through one
// of the two ends of the link (a, pa)-(b, pb).
bool route_crosses(const Rig& rig, const std::vector<std::vector<PortNum>>& lft, std::uint32_t from,
                   Lid lid, std::uint32_t a, PortNum pa, std::uint32_t b, PortNum pb) {
  std::uint32_t cur = from;
  for (int hop = 0; hop < 16; ++hop) {
    if (lid >= lft[cur].size()) return false;
    const PortNum out = lft[cur][lid];
    if (out == 0 || out == 0xFF) return false;
    if ((cur == a && out == pa) || (cur == b && out == pb)) return true;
    const auto next = rig.desc.peer({cur, out});
    if (!next || !rig.fabric->node(next->node).is_switch()) return false;
    cur = next->node;
  }
  return false;
}

TEST(HealthSm, FlappingInterSwitchLinkIsIsolatedAndClearedBack) {
  Rig rig(Rig::Keys{{"hm_sw_flapping_action", "isolate"}});
  ASSERT_TRUE(rig.sweep().subnet_up);
  ASSERT_GT(rig.entries_to("leaf1", kLeafToSpine0), 0u);
  rig.flap("leaf1", kLeafToSpine0);
  EXPECT_TRUE(rig.health()->ports.empty()) << "one flap of two";
  rig.flap("leaf1", kLeafToSpine0);
  const auto h = rig.health();
  ASSERT_EQ(h->ports.size(), 1u);
  const ops::UnhealthyPort& u = h->ports[0];
  EXPECT_EQ(u.condition, "flapping");
  EXPECT_EQ(u.action, "isolate");
  EXPECT_EQ(h->isolated, 1u);
  // Both ends named, whichever end the judge saw first.
  const bool leaf_end = u.node_guid == rig.guid("leaf1");
  EXPECT_EQ(leaf_end ? u.remote_guid : u.node_guid, rig.guid("spine0"));
  EXPECT_EQ(leaf_end ? u.port : u.remote_port, kLeafToSpine0);
  // The link is up and Active, but no route crosses it; every route still arrives.
  EXPECT_TRUE(rig.fabric->inactive_ports().empty());
  EXPECT_EQ(rig.entries_to("leaf1", kLeafToSpine0), 0u);
  EXPECT_EQ(rig.entries_to("spine0", 2), 0u);
  EXPECT_EQ(rig.routes(), "");
  EXPECT_EQ(rig.events(ops::EventType::kPortUnhealthy), 1u);
  const std::string dump = rig.dump();
  EXPECT_NE(dump.find(fmt::format("{} {} \"", hex_guid(u.node_guid), u.port)), std::string::npos)
      << dump;
  EXPECT_NE(dump.find("flapping isolate"), std::string::npos) << dump;
  // Quiet sweeps keep it isolated: one decision, not one a sweep.
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.entries_to("leaf1", kLeafToSpine0), 0u);

  const ops::ControlReply r = rig.clear(u.node_guid, u.port);
  EXPECT_TRUE(r.ok) << r.text;
  ASSERT_TRUE(rig.sweep().subnet_up);  // the reroute the clear asked for
  EXPECT_GT(rig.entries_to("leaf1", kLeafToSpine0), 0u);
  EXPECT_EQ(rig.routes(), "");
  EXPECT_TRUE(rig.health()->ports.empty());
  EXPECT_EQ(rig.events(ops::EventType::kPortHealthy), 1u);
  EXPECT_EQ(rig.dump().find("flapping"), std::string::npos);
  // A port that is not unhealthy: an error with its ID.
  const ops::ControlReply again = rig.clear(u.node_guid, u.port);
  EXPECT_FALSE(again.ok);
  EXPECT_EQ(again.error_id, 2807);
}

TEST(HealthSm, ReportLeavesTheLftsAlone) {
  Rig rig;  // hm_sw_flapping_action report (the default)
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto before = rig.lfts();
  rig.flap("leaf1", kLeafToSpine0);
  rig.flap("leaf1", kLeafToSpine0);
  ASSERT_EQ(rig.health()->ports.size(), 1u);
  EXPECT_EQ(rig.health()->ports[0].action, "report");
  EXPECT_EQ(rig.lfts(), before);
  EXPECT_GT(rig.entries_to("leaf1", kLeafToSpine0), 0u);
}

TEST(HealthSm, ManualIsolationMovesOnlyTheRoutesThatUsedTheLink) {
  Rig probe;
  const std::string policy =
      fmt::format("{} {} UNHEALTHY\n", hex_guid(probe.guid("leaf1")), kLeafToSpine0);
  Rig rig({{"hm_sw_manual_action", "isolate"}, {"policy", ""}});
  ASSERT_TRUE(rig.sweep().subnet_up);  // the policy file is read after SUBNET UP: empty
  const auto before = rig.lfts();
  std::ofstream(rig.options.hm_ports_health_policy_file) << policy;
  ControlFlags flags;
  flags.heavy_sweep = true;  // SIGHUP: the policy re-read, then a heavy sweep
  rig.sm->step(flags);
  ASSERT_EQ(rig.health()->ports.size(), 1u) << rig.health()->policy_error;
  EXPECT_EQ(rig.health()->ports[0].condition, "manual");
  EXPECT_EQ(rig.health()->ports[0].action, "isolate");
  // The sweep after the decision routes without the link.
  if (rig.entries_to("leaf1", kLeafToSpine0) != 0) {
    ASSERT_TRUE(rig.sweep().subnet_up);
  }
  EXPECT_EQ(rig.entries_to("leaf1", kLeafToSpine0), 0u);
  EXPECT_EQ(rig.routes(), "");
  const auto after = rig.lfts();
  const std::uint32_t leaf1 = rig.index("leaf1");
  const std::uint32_t spine0 = rig.index("spine0");
  std::size_t moved = 0;
  for (std::uint32_t s = 0; s < rig.fabric->size(); ++s) {
    if (!rig.fabric->node(s).is_switch()) continue;
    for (Lid l = 1; l < before[s].size() && l < after[s].size(); ++l) {
      if (before[s][l] == after[s][l]) continue;
      ++moved;
      EXPECT_TRUE(route_crosses(rig, before, s, l, leaf1, kLeafToSpine0, spine0, 2))
          << "switch " << s << " LID " << l << " moved without using the isolated link";
    }
  }
  EXPECT_GT(moved, 0u);
}

TEST(HealthSm, TheSmOwnLinkAndAHostLinkAreReportedNeverIsolated) {
  Rig probe;
  // leaf0 port 1 faces h0_0, the SM's own port.
  const std::string policy = fmt::format("{} 1 UNHEALTHY\n", hex_guid(probe.guid("leaf0")));
  Rig rig({{"hm_sw_manual_action", "isolate"},
           {"hm_sw_flapping_action", "isolate"},
           {"hm_ca_flapping_action", "isolate"},
           {"policy", policy}});
  ASSERT_TRUE(rig.sweep().subnet_up);
  const auto before = rig.lfts();
  ASSERT_TRUE(rig.sweep().subnet_up);  // the manual condition, decided at a sweep
  // h1_0 behind leaf1 port 1: a host's only link.
  rig.flap("leaf1", 1);
  rig.flap("leaf1", 1);
  const auto h = rig.health();
  ASSERT_EQ(h->ports.size(), 2u);
  for (const ops::UnhealthyPort& u : h->ports) {
    EXPECT_EQ(u.action, "report") << u.node_name << " " << int(u.port);
    EXPECT_EQ(u.asked, "isolate");
    if (u.node_guid == rig.guid("leaf0")) {
      EXPECT_EQ(u.downgrade, "sm_path");
    }
  }
  EXPECT_EQ(h->isolated, 0u);
  EXPECT_EQ(rig.routes(), "");
  EXPECT_GT(rig.entries_to("leaf0", 1), 0u);
}

TEST(HealthSm, PortErrorTrapsCountEvenWhenTheFilterDropsThem) {
  Rig rig(Rig::Keys{{"hm_sw_noisy_action", "report"}});
  ASSERT_TRUE(rig.sweep().subnet_up);
  const std::uint32_t leaf2 = rig.index("leaf2");
  const Lid lid = rig.fabric->node(leaf2).ports[0].info.lid;
  ASSERT_NE(lid, 0);
  const Lid forger = rig.fabric->node(rig.index("h1_0")).ports[1].info.lid;
  ASSERT_NE(forger, 0);
  // The same trap three times: the repeat filter drops the second and third (no
  // event, no sweep), the noisy condition counts all three (hm_num_traps 3). First
  // forged by a host about leaf2's port (not counted), then from leaf2 itself.
  const auto send = [&](Lid from) {
    for (std::uint32_t i = 0; i < 3; ++i) {
      mad::Notice n;
      n.is_generic = true;
      n.type = 1;
      n.trap_number = 129;
      n.issuer_lid = lid;
      n.details[2] = static_cast<std::uint8_t>(lid >> 8);
      n.details[3] = static_cast<std::uint8_t>(lid);
      n.details[4] = 4;
      mad::Smp trap =
          mad::Smp::request(mad::Method::kTrap, mad::AttrId::kNotice, 0, mad::Lid{1}, 0x700 + i);
      trap.set_attribute(n);
      rig.fabric->inject(trap, from);
    }
    ControlFlags flags;
    const auto until = rig.clock.now() + std::chrono::seconds(1);
    while (rig.clock.now() < until)
      (void)rig.sm->step(flags);
  };
  send(forger);
  EXPECT_TRUE(rig.health()->ports.empty()) << "a node reports only its own ports";
  send(lid);
  const auto h = rig.health();
  ASSERT_EQ(h->ports.size(), 1u);
  EXPECT_EQ(h->ports[0].condition, "noisy");
  EXPECT_EQ(h->ports[0].node_guid, rig.guid("leaf2"));
  EXPECT_EQ(h->ports[0].port, 4);
}

}  // namespace
}  // namespace ibsm::sm

namespace ibsm::sm {
namespace {

cabling::Deviation deviation(cabling::DeviationKind k, Guid g, PortNum p) {
  cabling::Deviation d;
  d.kind = k;
  d.local.guid = g;
  d.local.port = p;
  return d;
}

TEST(HealthSm, TopoConfigEnabledLeavesOnlyMiswiredSwitchLinksOut) {
  Rig rig;
  ASSERT_TRUE(rig.sweep().subnet_up);
  const Fabric& f = rig.sm->fabric();
  health::HealthMonitor m(null_logger(), rig.clock);
  m.after_subnet_up(f);
  using K = cabling::DeviationKind;
  const std::vector<cabling::Deviation> devs = {
      deviation(K::kWrongPort, rig.guid("leaf1"), kLeafToSpine0),
      deviation(K::kWidthMismatch, rig.guid("leaf2"), kLeafToSpine0),  // reported only
      deviation(K::kWrongNode, rig.guid("leaf0"), 1),                  // the SM's own link
      deviation(K::kExtraLink, rig.guid("leaf3"), 2),                  // a host's link
  };
  EXPECT_TRUE(m.enforce_cabling(f, devs, true));
  EXPECT_EQ(m.exclusions(), (LinkExclusions{{rig.guid("leaf1"), kLeafToSpine0}}));
  EXPECT_FALSE(m.enforce_cabling(f, devs, true)) << "unchanged";
  EXPECT_TRUE(m.enforce_cabling(f, devs, false));
  EXPECT_TRUE(m.exclusions().empty());
}

}  // namespace
}  // namespace ibsm::sm

namespace ibsm::sm {
namespace {

// The unhealthy ports of the dump file, as "GUID PORT condition action" (the name left
// out), in the dump's order.
std::vector<std::string> dumped(const Rig& rig) {
  std::vector<std::string> out;
  std::istringstream in(rig.dump());
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto q1 = line.find('"');
    const auto q2 = line.find('"', q1 + 1);
    if (q1 == std::string::npos || q2 == std::string::npos) continue;
    std::istringstream rest(line.substr(q2 + 1));
    std::string condition, action;
    rest >> condition >> action;
    out.push_back(line.substr(0, q1) + condition + " " + action);
  }
  return out;
}

// leaf2 refuses every Set (status 0x1C, nothing carried out): its LFT blocks, its
// SwitchInfo and its ports' PortInfo fail in every heavy sweep (and every sweep is heavy:
// each leaves errors). With hm_sw_seterr_action report, its ports turn unhealthy with
// seterr in the 5th sweep (hm_num_set_err_sweeps 5 of hm_num_set_err_sweeps_window 7),
// not before; the switch's own tables count at port 0.
TEST(HealthSm, RefusedSetsInEnoughSweepsAreSetErrors) {
  Rig rig(Rig::Keys{{"hm_sw_seterr_action", "report"}});
  rig.fabric->faults(rig.index("leaf2")).set_status = 0x1C;
  for (int i = 1; i < 5; ++i) {
    const SweepResult r = rig.sweep();
    EXPECT_TRUE(r.heavy) << i;
    EXPECT_FALSE(r.subnet_up) << i;
    EXPECT_EQ(rig.events(ops::EventType::kPortUnhealthy), 0u) << i;
  }
  rig.sweep();
  const std::vector<std::string> ports = dumped(rig);
  ASSERT_FALSE(ports.empty()) << rig.dump();
  const std::string leaf2 = hex_guid(rig.guid("leaf2"));
  EXPECT_NE(std::find(ports.begin(), ports.end(), leaf2 + " 0 seterr report"), ports.end())
      << rig.dump();
  for (const std::string& p : ports) {
    EXPECT_EQ(p.rfind(leaf2 + " ", 0), 0u) << p;  // leaf2's ports only
    EXPECT_NE(p.find(" seterr report"), std::string::npos) << p;
  }
  EXPECT_EQ(rig.events(ops::EventType::kPortUnhealthy), ports.size());
  // The Sets go through again: the sweep brings the subnet up, and the ports stay
  // unhealthy until cleared.
  rig.fabric->faults(rig.index("leaf2")).set_status.reset();
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.health()->ports.size(), ports.size());
  EXPECT_EQ(rig.routes(), "");
}

// hm_sw_seterr_action is ignore by default (as NVIDIA's SM): refused Sets decide nothing.
TEST(HealthSm, RefusedSetsAreIgnoredByDefault) {
  Rig rig;
  rig.fabric->faults(rig.index("leaf2")).set_status = 0x1C;
  for (int i = 0; i < 8; ++i)
    EXPECT_FALSE(rig.sweep().subnet_up) << i;
  EXPECT_TRUE(dumped(rig).empty()) << rig.dump();
  EXPECT_EQ(rig.events(ops::EventType::kPortUnhealthy), 0u);
}

// Answers with impossible values (hm_num_illegal 1, hm_{sw,ca}_illegal_action report by
// default): a NodeInfo with NumPorts 0 and GUID 0 counts against the switch port it was
// probed through; a PortInfo whose LinkWidthActive is two widths, against its port.
TEST(HealthSm, ImpossibleAnswersAreIllegal) {
  Rig rig;
  rig.fabric->faults(rig.index("h2_0")).garbage = fake::Garbage::kBadNodeInfo;
  rig.fabric->node(rig.index("h3_1")).ports[1].info.link_width_active = 3;  // 1x and 4x
  rig.sweep();
  const std::vector<std::string> ports = dumped(rig);
  const auto h2_0 = *rig.desc.peer({rig.index("h2_0"), 1});
  ASSERT_EQ(rig.fabric->node(h2_0.node).id, "leaf2");
  std::vector<std::string> want{
      fmt::format("{} {} illegal report", hex_guid(rig.guid("leaf2")), h2_0.port),
      fmt::format("{} 1 illegal report", hex_guid(rig.guid("h3_1")))};
  std::vector<std::string> got = ports;
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want) << rig.dump();
  EXPECT_EQ(rig.events(ops::EventType::kPortUnhealthy), 2u);
  // Counted once: further sweeps decide nothing more.
  rig.sweep();
  EXPECT_EQ(rig.events(ops::EventType::kPortUnhealthy), 2u);
}

}  // namespace
}  // namespace ibsm::sm
