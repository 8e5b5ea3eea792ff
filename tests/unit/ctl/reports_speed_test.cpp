// ctl/reports/ports.cpp: querylid and portstatus name each port's lane speed and width
// with the one decoder of PortInfo's speed fields (mad/attr/port_speeds.hpp), so XDR
// (LinkSpeedExtActive2, IBA 1.7) shows as OpenSM's other speeds do, and a switch's
// external ports go by port 0's capabilities.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <spdlog/fmt/fmt.h>

#include "ctl/command.hpp"
#include "ctl/reports/reports.hpp"
#include "mad/attr/port_speeds.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::ctl {
namespace {

constexpr std::string_view kTwoHosts = R"(Switch 3 "sw"
[1] "h1"[1]
[2] "h2"[1]

Hca 1 "h1"
[1] "sw"[1]

Hca 1 "h2"
[1] "sw"[2]
)";

class SpeedRig : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = testsupport::parse_net(kTwoHosts);
    ASSERT_TRUE(d.ok());
    fabric = std::make_unique<fake::FakeFabric>(*d, clock);
    options.cache_dir = dir.path() + "/cache";
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
  // The published snapshot with h1's port 1 and its peer, switch port 1, running on 4X
  // at the speed `speed`'s fields give, with `speed`'s capabilities (the switch's on
  // its port 0, which speaks for its external ports).
  std::shared_ptr<ops::OpsSnapshot> with_link(const mad::PortInfo& speed) {
    auto s = std::make_shared<ops::OpsSnapshot>(*sm->ops().snapshot.current());
    auto f = std::make_shared<sa::Snapshot>(*s->fabric);
    auto set = [&](mad::PortInfo& pi) {
      pi.capability_mask = speed.capability_mask;
      pi.capability_mask2 = speed.capability_mask2;
      pi.link_speed_active = speed.link_speed_active;
      pi.link_speed_ext_active = speed.link_speed_ext_active;
      pi.link_speed_ext_active2 = speed.link_speed_ext_active2;
      pi.link_width_active = 2;  // 4X
    };
    for (sa::SnapNode& n : f->nodes) {
      if (n.description == "h1") {
        set(n.ports[1].info);
        h1_lid = n.ports[1].lid;
      }
      if (n.description == "sw") {
        set(n.ports[0].info);  // the switch's capabilities
        set(n.ports[1].info);
      }
    }
    s->fabric = f;
    return s;
  }
  Answer ask(const ops::OpsSnapshot& s, std::string_view line) {
    auto c = parse_command(line);
    EXPECT_TRUE(c.ok()) << line;
    return answer_read_only(*c, s, sm->ops().events);
  }

  FakeClock clock;
  testsupport::TempDir dir;
  std::ostringstream log_text;
  Logger logger = testsupport::capture_log(log_text, "sm", spdlog::level::info);
  std::unique_ptr<fake::FakeFabric> fabric;
  conf::Options options;
  sm::ControlFlags control;
  std::unique_ptr<sm::SubnetManager> sm;
  mad::Lid h1_lid = 0;
};

mad::PortInfo xdr() {
  mad::PortInfo pi;
  pi.capability_mask = mad::kCapIsExtendedSpeedsSupported | mad::kCapHasCapabilityMask2;
  pi.capability_mask2 = mad::kCap2IsExtendedSpeeds2Supported;
  pi.link_speed_active = 4;
  pi.link_speed_ext_active = 0;
  pi.link_speed_ext_active2 = mad::kSpeedExt2Xdr;
  return pi;
}

mad::PortInfo ndr() {
  mad::PortInfo pi;
  pi.capability_mask = mad::kCapIsExtendedSpeedsSupported;
  pi.link_speed_active = 4;
  pi.link_speed_ext_active = mad::kSpeedExtNdr;
  return pi;
}

TEST_F(SpeedRig, QueryLidNamesAnXdrLinksSpeed) {
  const auto s = with_link(xdr());
  const Answer a = ask(*s, "querylid " + std::to_string(h1_lid));
  ASSERT_TRUE(a.ok) << a.text;
  EXPECT_NE(a.text.find("   Port 1 state        : Active (OK), 4X 212.5 Gbps\n"), std::string::npos)
      << a.text;
  const Answer j = ask(*s, "--json querylid " + std::to_string(h1_lid));
  EXPECT_NE(j.json.find("\"width\":\"4X\",\"speed\":\"212.5 Gbps\""), std::string::npos) << j.json;
}

TEST_F(SpeedRig, PortStatusCountsXdrAndNdrLinksByTheirSpeed) {
  auto a = ask(*with_link(xdr()), "portstatus");
  ASSERT_TRUE(a.ok) << a.text;
  EXPECT_NE(a.text.find("   2 at 212.5 Gbps\n"), std::string::npos) << a.text;
  EXPECT_EQ(a.text.find("unknown speed"), std::string::npos) << a.text;
  a = ask(*with_link(ndr()), "portstatus");
  EXPECT_NE(a.text.find("   2 at 106.25 Gbps\n"), std::string::npos) << a.text;
}

TEST_F(SpeedRig, ExtendedSpeedsCountOnlyWhereTheCapabilitiesSayThePortHasThem) {
  // The fields without CapabilityMask.IsExtendedSpeedsSupported mean nothing: the
  // classic speed (QDR) is the port's, in querylid as in portstatus.
  mad::PortInfo stale = ndr();
  stale.capability_mask = 0;
  const auto s = with_link(stale);
  const Answer a = ask(*s, "querylid " + std::to_string(h1_lid));
  EXPECT_NE(a.text.find("   Port 1 state        : Active (OK), 4X 10.0 Gbps\n"), std::string::npos)
      << a.text;
  const Answer all = ask(*s, "portstatus");
  EXPECT_NE(all.text.find("   2 at 10.0 Gbps\n"), std::string::npos) << all.text;
  EXPECT_EQ(all.text.find("106.25"), std::string::npos) << all.text;
}

}  // namespace
}  // namespace ibsm::ctl
