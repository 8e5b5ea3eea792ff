// opensm.conf fdr10 end to end on a FakeFabric (sm/links/fdr10.hpp): the SM reads
// MLNXExtendedPortInfo on devices known to have it and writes LinkSpeedEnabled where
// a port supports FDR10 and holds the other setting; 0 sends no vendor MAD; a
// configured fabric gets nothing on the next heavy sweep; a port whose link came back
// is read again; ports without the attribute (status "attribute not supported") do
// not fail the sweep and are not asked again while their link stays up.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>

#include "sm/links/fdr10.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm::fdr10_test {
namespace {

using fake::FakeFabric;
using mad::AttrId;
using mad::Method;
using mad::MlnxExtPortInfo;

// ha (the SM) and hb on one switch. The fake's CAs are ConnectX-3 (DeviceID 0x1003),
// its switches InfiniScale IV (0xb924, no vendor attribute).
constexpr std::string_view kNet = R"(Switch 4 "s1"
[1] "ha"[1]
[2] "hb"[1]

Hca 1 "ha"
[1] "s1"[1]

Hca 1 "hb"
[1] "s1"[2]
)";

MlnxExtPortInfo fdr10_port(bool enabled) {
  MlnxExtPortInfo e;
  e.link_speed_supported = mad::kMlnxSpeedFdr10;
  e.link_speed_enabled = enabled ? mad::kMlnxSpeedFdr10 : 0;
  return e;
}

class Rig {
 public:
  explicit Rig(std::uint8_t fdr10) {
    auto d = testsupport::parse_net(kNet);
    if (!d.ok()) std::abort();
    fabric = std::make_unique<FakeFabric>(*d, clock);
    // hb supports FDR10 and has it off; ha answers without FDR10; the switch is made a
    // Switch-IB whose port 2 (to hb) has FDR10 on.
    port("hb", 1).mlnx_ext = fdr10_port(false);
    port("ha", 1).mlnx_ext = MlnxExtPortInfo{};
    fabric->node(fabric->index("s1")).info.device_id = 0xcb20;
    port("s1", 2).mlnx_ext = fdr10_port(true);
    options.cache_dir = dir.path() + "/cache";
    options.partition_config_file = dir.path() + "/partitions.conf";
    options.fdr10 = fdr10;
    sm = std::make_unique<SubnetManager>(*fabric, clock, null_logger(), options);
  }
  SweepResult sweep() {
    fabric->reset_stats();
    sm->request_heavy_sweep(HeavyReason::kForced);
    return sm->sweep(stop);
  }
  fake::FakePort& port(const char* id, mad::PortNum p) {
    return fabric->node(fabric->index(id)).ports[p];
  }
  std::uint8_t enabled(const char* id, mad::PortNum p) {
    return port(id, p).mlnx_ext->link_speed_enabled;
  }
  std::uint64_t count(Method m) const {
    return fabric->stats().count(m, AttrId::kMlnxExtendedPortInfo);
  }

  testsupport::TempDir dir{"ibsm-fdr10-test"};
  FakeClock clock;
  std::unique_ptr<FakeFabric> fabric;
  conf::Options options;
  std::unique_ptr<SubnetManager> sm;
  std::atomic<bool> stop{false};
};

TEST(Fdr10, OneEnablesItWhereSupportedAndAConfiguredFabricGetsNothingMore) {
  Rig rig(1);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.enabled("hb", 1), mad::kMlnxSpeedFdr10);
  EXPECT_EQ(rig.enabled("s1", 2), mad::kMlnxSpeedFdr10);
  EXPECT_EQ(rig.enabled("ha", 1), 0);      // no FDR10 to enable
  EXPECT_EQ(rig.count(Method::kGet), 4u);  // ha, hb, s1 ports 1 and 2
  EXPECT_EQ(rig.count(Method::kSet), 1u);  // hb only
  // The next heavy sweep reuses what the Active ports answered (s1 port 1 refused
  // the attribute: left alone too): no vendor MAD.
  const SweepResult r = rig.sweep();
  EXPECT_TRUE(r.subnet_up);
  EXPECT_EQ(rig.count(Method::kGet), 0u);
  EXPECT_EQ(rig.fabric->stats().count(Method::kSet), 0u);
}

TEST(Fdr10, TwoDisablesItWhereSupported) {
  Rig rig(2);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.enabled("hb", 1), 0);
  EXPECT_EQ(rig.enabled("s1", 2), 0);
  EXPECT_EQ(rig.count(Method::kSet), 1u);  // s1 port 2 only
}

TEST(Fdr10, ZeroSendsNoVendorMads) {
  Rig rig(0);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.count(Method::kGet), 0u);
  EXPECT_EQ(rig.count(Method::kSet), 0u);
  EXPECT_EQ(rig.enabled("hb", 1), 0);
  EXPECT_EQ(rig.enabled("s1", 2), mad::kMlnxSpeedFdr10);
}

TEST(Fdr10, APortWhoseLinkCameBackIsReadAgain) {
  Rig rig(1);
  ASSERT_TRUE(rig.sweep().subnet_up);
  // hb's HCA reset: FDR10 off again, the link retrains (Init).
  rig.port("hb", 1).mlnx_ext = fdr10_port(false);
  rig.fabric->set_link(rig.fabric->index("hb"), 1, false);
  rig.fabric->set_link(rig.fabric->index("hb"), 1, true);
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.enabled("hb", 1), mad::kMlnxSpeedFdr10);
  EXPECT_EQ(rig.count(Method::kGet), 2u);  // hb port 1 and s1 port 2, both in Init
  EXPECT_EQ(rig.count(Method::kSet), 1u);
}

TEST(Fdr10, SetRule) {
  EXPECT_FALSE(fdr10_set(Fdr10Mode::kOff, fdr10_port(false)));
  EXPECT_FALSE(fdr10_set(Fdr10Mode::kEnable, fdr10_port(true)));
  EXPECT_FALSE(fdr10_set(Fdr10Mode::kDisable, fdr10_port(false)));
  EXPECT_FALSE(fdr10_set(Fdr10Mode::kEnable, MlnxExtPortInfo{}));  // not supported
  auto on = fdr10_set(Fdr10Mode::kEnable, fdr10_port(false));
  ASSERT_TRUE(on);
  EXPECT_EQ(on->state_change_enable, 1);
  EXPECT_EQ(on->link_speed_enabled, mad::kMlnxSpeedFdr10);
  EXPECT_EQ(on->link_speed_supported, mad::kMlnxSpeedFdr10);  // the rest copied
  auto off = fdr10_set(Fdr10Mode::kDisable, fdr10_port(true));
  ASSERT_TRUE(off);
  EXPECT_EQ(off->state_change_enable, 1);
  EXPECT_EQ(off->link_speed_enabled, 0);
}

}  // namespace
}  // namespace ibsm::sm::fdr10_test
