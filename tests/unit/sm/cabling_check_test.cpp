// The cabling check as a component (sm/cabling_check/), without a SubnetManager: the
// Fabric a FakeFabric's discovery builds turned into cabling's DiscoveredFabric (peers,
// widths, speeds, FDR10), compared with the cabling helper's files of the issue's
// acceptance case (tests/unit/cabling/data/), a broken file refused with its ID and
// file:line while the last good one stays, and the OpsSeam's topology_deviation event.
#include <gtest/gtest.h>

#include <fstream>

#include "cabling/errors.hpp"
#include "mad/attr/port_speeds.hpp"
#include "sm/cabling_check/cabling_check.hpp"
#include "sm/cabling_check/discovered_fabric.hpp"
#include "sm/publish/ops_seam.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/sm/component_rig.hpp"

namespace ibsm::sm::cabling_check {
namespace {

using cabling::Deviation;
using cabling::DeviationEnd;
using cabling::DeviationKind;

std::string data_file(const std::string& name) {
  return std::string(CABLING_DATA_DIR) + "/" + name;
}

testsupport::Fabric net(const std::string& name) {
  auto f = testsupport::load_net_file(data_file(name));
  EXPECT_TRUE(f.ok()) << name;
  return f.ok() ? *f : testsupport::Fabric{};
}

// The model's port `num` of the node whose NodeDescription is `name`.
Port& model_port(Fabric& f, const std::string& name, PortNum num) {
  for (NodeIndex i = 0; i < f.size(); ++i)
    if (f.node(i).description == name) return f.node(i).ports[num];
  ADD_FAILURE() << "no node " << name;
  return f.node(0).ports[0];
}

// ibsim's `w=1` on spine1[1] - leaf1[3]: both ends train at 1x (the fake ignores w=).
void one_lane(Fabric& f) {
  model_port(f, "spine1", 1).info.link_width_active = 1;
  model_port(f, "leaf1", 3).info.link_width_active = 1;
}

struct Rig : testrig::ComponentRig {
  explicit Rig(const std::string& netfile) : ComponentRig(net(netfile)) { discover(); }
  std::ostringstream check_log;
  CablingCheck check{testsupport::capture_log(check_log, "cabling")};
};

TEST(CablingCheck, AcceptanceCaseOnTheFakeFabric) {
  Rig r("faulty.net");
  one_lane(r.model);
  ASSERT_TRUE(r.check.load(data_file("healthy.ibnetdiscover")).ok());
  const auto s = r.check.check(r.model, {});
  const DeviationEnd h1{0x100000, 1, "h1"}, h2{0x100002, 1, "h2"}, h3{0x100004, 1, "h3"};
  const std::vector<Deviation> want = {
      {DeviationKind::kWrongNode, h3, {0x200002, 5, "leaf1"}, "\"leaf2\"[1]", "\"leaf1\"[5]"},
      {DeviationKind::kWidthMismatch, {0x200000, 1, "spine1"}, {0x200002, 3, "leaf1"}, "4x", "1x"},
      {DeviationKind::kMissingLink,
       {0x200001, 2, "spine2"},
       {0x200003, 4, "leaf2"},
       "\"leaf2\"[4]",
       "no link"},
      {DeviationKind::kWrongPort, {0x200002, 1, "leaf1"}, h2, "\"leaf1\"[2]", "\"leaf1\"[1]"},
      {DeviationKind::kWrongPort, {0x200002, 2, "leaf1"}, h1, "\"leaf1\"[1]", "\"leaf1\"[2]"},
  };
  EXPECT_EQ(s->deviations, want) << cabling::deviations_json(s->deviations);
  EXPECT_TRUE(s->checked && s->file_loaded && s->file_ok);
  // The fake's ports support 1x and 4x at SDR: the 1x cable is the one degraded link.
  ASSERT_EQ(s->degraded.size(), 1u) << cabling::deviations_json(s->degraded);
  EXPECT_EQ(s->degraded[0].kind, DeviationKind::kWidthMismatch);
  EXPECT_EQ(kinds_summary(s->deviations),
            "missing_link=1,wrong_port=2,wrong_node=1,width_mismatch=1");
}

TEST(CablingCheck, HealthyFabricAgainstItsOwnFilesHasNothing) {
  Rig r("healthy.net");
  for (const char* f : {"healthy.ibnetdiscover", "healthy.csv", "healthy.net"}) {
    ASSERT_TRUE(r.check.load(data_file(f)).ok()) << f;
    const auto s = r.check.check(r.model, {});
    EXPECT_TRUE(s->deviations.empty()) << f << ": " << cabling::deviations_json(s->deviations);
    EXPECT_TRUE(s->degraded.empty()) << cabling::deviations_json(s->degraded);
  }
}

TEST(CablingCheck, DegradedLinksWithoutAFile) {
  Rig r("healthy.net");
  one_lane(r.model);
  ASSERT_TRUE(r.check.load("").ok());
  const auto s = r.check.check(r.model, {});
  EXPECT_FALSE(s->file_loaded);
  EXPECT_TRUE(s->deviations.empty());
  ASSERT_EQ(s->degraded.size(), 1u);
  EXPECT_EQ(s->degraded[0].local, (DeviationEnd{0x200000, 1, "spine1"}));
  EXPECT_EQ(s->degraded[0].remote, (DeviationEnd{0x200002, 3, "leaf1"}));
}

TEST(CablingCheck, BrokenFileIsRefusedWithFileLineAndTheLastGoodStays) {
  Rig r("faulty.net");
  testsupport::TempDir dir;
  const std::string bad = dir.path() + "/topo.ibnetdiscover";
  std::ofstream(bad)
      << "Switch 8 \"S-0000000000200003\"\n[1] \"H-0000000000100004\"[1]\nbogus line\n";
  // None at start: the error, and no comparison.
  auto st = r.check.load(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().id, cabling::kErrTopoSyntax);
  EXPECT_NE(st.error().message.find(bad + ":"), std::string::npos) << st.error().message;
  EXPECT_FALSE(r.check.status()->file_loaded);
  EXPECT_TRUE(r.check.check(r.model, {})->deviations.empty());
  // A good file, then the bad one: the good one stays in force.
  ASSERT_TRUE(r.check.load(data_file("healthy.ibnetdiscover")).ok());
  ASSERT_FALSE(r.check.load(bad).ok());
  const auto s = r.check.check(r.model, {});
  EXPECT_FALSE(s->file_ok);
  EXPECT_TRUE(s->file_loaded);
  EXPECT_NE(s->error.find("IBSM-9102"), std::string::npos) << s->error;
  EXPECT_EQ(s->deviations.size(), 4u);  // the acceptance case less the 1x cable
  EXPECT_NE(r.check_log.str().find("the last good topology file stays in force"),
            std::string::npos);
  // An empty topo_config_file drops the file and its deviations.
  ASSERT_TRUE(r.check.load("").ok());
  EXPECT_TRUE(r.check.status()->deviations.empty());
  EXPECT_TRUE(r.check.check(r.model, {})->deviations.empty());
}

TEST(DiscoveredFabric, PeersTypesAndPortGuidsOfTheModel) {
  Rig r("healthy.net");
  const cabling::DiscoveredFabric d = discovered_fabric(r.model);
  ASSERT_EQ(d.nodes.size(), 8u);
  for (const auto& n : d.nodes) {
    if (n.name == "h3") {
      EXPECT_EQ(n.type, cabling::NodeType::kCa);
      ASSERT_EQ(n.ports.size(), 1u);
      EXPECT_EQ(n.ports[0].port_guid, 0x100005u);
      EXPECT_EQ(n.ports[0].peer_guid, 0x200003u);
      EXPECT_EQ(n.ports[0].peer_port, 1);
      EXPECT_EQ(n.ports[0].width_active, 4);
      EXPECT_EQ(n.ports[0].speed_active, cabling::Speed::kSdr);
      EXPECT_EQ(n.ports[0].width_supported, cabling::width_bit(1) | cabling::width_bit(4));
    }
    if (n.name == "leaf2") {
      EXPECT_EQ(n.type, cabling::NodeType::kSwitch);
      EXPECT_GE(n.ports.size(), 4u);  // every present port, linked or not
      for (const auto& p : n.ports) {
        EXPECT_EQ(p.port_guid, 0u);  // a switch's external ports have none of their own
        if (p.num > 4) {
          EXPECT_EQ(p.peer_guid, 0u);
        }
      }
    }
  }
}

TEST(DiscoveredFabric, ExtendedSpeedsCountOnlyWhereTheCapabilitySaysSo) {
  Port p;
  p.num = 1;
  p.present = true;
  p.info.link_width_active = 2;
  p.info.link_width_supported = 3;
  p.info.link_width_enabled = 3;
  p.info.link_speed_active = 4;  // QDR
  p.info.link_speed_supported = 7;
  p.info.link_speed_enabled = 15;    // "what is supported"
  p.info.link_speed_ext_active = 2;  // EDR
  p.info.link_speed_ext_supported = 3;
  p.info.link_speed_ext_enabled = 31;
  mad::PortInfo no_ext;
  mad::PortInfo ext;
  ext.capability_mask = mad::kCapIsExtendedSpeedsSupported;
  auto d = discovered_port(p, no_ext);
  EXPECT_EQ(d.speed_active, cabling::Speed::kQdr);
  EXPECT_EQ(d.speed_enabled, cabling::speeds_from_iba(7));
  d = discovered_port(p, ext);
  EXPECT_EQ(d.speed_active, cabling::Speed::kEdr);
  EXPECT_EQ(d.speed_supported, cabling::speeds_from_iba(7, 3));
  EXPECT_EQ(d.speed_enabled, cabling::speeds_from_iba(7, 3));
  EXPECT_EQ(d.width_active, 4);
  // FDR10 comes from MLNXExtendedPortInfo, on a QDR-signalling port.
  p.info.link_speed_ext_active = 0;
  p.mlnx_ext = mad::MlnxExtPortInfo{};
  p.mlnx_ext->link_speed_supported = mad::kMlnxSpeedFdr10;
  p.mlnx_ext->link_speed_active = mad::kMlnxSpeedFdr10;
  d = discovered_port(p, ext);
  EXPECT_EQ(d.speed_active, cabling::Speed::kFdr10);
  EXPECT_NE(d.speed_supported & cabling::speed_bit(cabling::Speed::kFdr10), 0);
}

TEST(CablingCheck, TheSeamAnnouncesEachChangedListOnce) {
  publish::OpsSeam seam;
  auto status = [](std::vector<Deviation> list) {
    auto s = std::make_shared<ops::CablingStatus>();
    s->file = "/etc/opensm/topo";
    s->deviations = std::move(list);
    s->checked = true;
    return s;
  };
  const Deviation d{DeviationKind::kExtraLink, {1, 1, "a"}, {2, 2, "b"}, "no link", "link"};
  seam.cabling_status(status({}), true, "");                // nothing before, nothing now: no event
  seam.cabling_status(status({d}), false, "extra_link=1");  // a reload: no event
  seam.cabling_status(status({d}), true, "extra_link=1");
  seam.cabling_status(status({d}), true, "extra_link=1");  // the same list again
  seam.cabling_status(status({}), true, "");               // back to none
  const auto evs = seam.ops().events.history(100);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0]->type, ops::EventType::kTopologyDeviation);
  EXPECT_EQ(std::get<std::uint64_t>(*evs[0]->field("deviations")), 1u);
  EXPECT_EQ(std::get<std::string>(*evs[0]->field("kinds")), "extra_link=1");
  EXPECT_EQ(std::get<std::uint64_t>(*evs[1]->field("deviations")), 0u);
  seam.publish(ops::OpsSnapshot{}, conf::Options{});
  ASSERT_TRUE(seam.ops().snapshot.current()->cabling);
  EXPECT_TRUE(seam.ops().snapshot.current()->cabling->deviations.empty());
}

}  // namespace
}  // namespace ibsm::sm::cabling_check
