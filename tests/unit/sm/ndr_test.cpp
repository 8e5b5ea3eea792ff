// NDR and XDR hardware on a FakeFabric (OpenSM issue 38, fixed by its PR 39): a
// Quantum-2-like switch that fills PortInfo's extended-speed fields only for a Get
// with SMSupportsExtendedSpeeds (attribute modifier bit 31), ConnectX-7-like HCAs and
// an XDR switch and HCAs that always fill them, a 2x-width NDR link and XDR links.
// The SM must read the real speeds, enable them, report the right PathRecord rates
// and MTU, and dump them; contradictory speed fields bring the link up all the same.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "mad/attr/port_speeds.hpp"
#include "sa/path_resolver.hpp"
#include "sm/fabric/subnet_dump.hpp"
#include "sm/publish/sa_snapshot.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm::ndr_test {
namespace {

using fake::FakeFabric;
using mad::PortInfo;

// q2: the NDR switch of issue 38. x8: an XDR switch. cx7a/cx7b: NDR HCAs (cx7b on a
// 2x-width link), cx8a/cx8b: XDR HCAs. The SM runs on cx7a.
constexpr std::string_view kNet = R"(Switch 3 "q2"
[1] "cx7a"[1]
[2] "cx7b"[1]
[3] "x8"[1]

Switch 3 "x8"
[1] "q2"[3]
[2] "cx8a"[1]
[3] "cx8b"[1]

Hca 1 "cx7a"
[1] "q2"[1]

Hca 1 "cx7b"
[1] "q2"[2]

Hca 1 "cx8a"
[1] "x8"[2]

Hca 1 "cx8b"
[1] "x8"[3]
)";

constexpr std::uint8_t kWidth1x = 1, kWidth4x = 2, kWidth2x = 16;

// The speed part of an NDR port (IBA 14.2.5.6 with the IBA 1.5 additions): classic
// SDR-QDR supported and QDR shown active, EDR/HDR/NDR supported, NDR active.
void make_ndr(PortInfo& pi, bool caps, std::uint8_t width_active) {
  if (caps) {
    pi.capability_mask |= mad::kCapIsExtendedSpeedsSupported | mad::kCapHasCapabilityMask2;
    pi.capability_mask2 |= mad::kCap2IsLinkWidth2xSupported | mad::kCap2IsLinkSpeedHdrSupported |
                           mad::kCap2IsLinkSpeedNdrSupported;
  }
  pi.link_speed_supported = 7;
  pi.link_speed_enabled = 7;
  pi.link_speed_active = 4;
  pi.link_speed_ext_supported = mad::kSpeedExtEdr | mad::kSpeedExtHdr | mad::kSpeedExtNdr;
  pi.link_speed_ext_enabled = mad::kSpeedExtNdr;  // less than supported: the SM widens it
  pi.link_speed_ext_active = mad::kSpeedExtNdr;
  pi.link_width_supported = kWidth1x | kWidth2x | kWidth4x;
  pi.link_width_enabled = pi.link_width_supported;
  pi.link_width_active = width_active;
  pi.mtu_cap = 5;  // 4096
}

void make_xdr(PortInfo& pi, bool caps) {
  make_ndr(pi, caps, kWidth4x);
  if (caps) {
    pi.capability_mask2 |= mad::kCap2IsExtendedSpeeds2Supported | mad::kCap2IsLinkSpeedXdrSupported;
  }
  pi.link_speed_ext_active = 0;
  pi.link_speed_ext_supported2 = mad::kSpeedExt2Xdr;
  pi.link_speed_ext_enabled2 = mad::kSpeedExt2Xdr;
  pi.link_speed_ext_active2 = mad::kSpeedExt2Xdr;
}

class Rig {
 public:
  Rig() {
    auto d = testsupport::parse_net(kNet);
    if (!d.ok()) std::abort();
    fake::FakeOptions fo;
    fo.sm_node = "cx7a";
    fo.ca_mtu_cap = 5;
    fabric = std::make_unique<FakeFabric>(*d, clock, fo);
    fabric->node(fabric->index("q2")).ext_speeds_only_with_bit31 = true;
    // Capabilities: a switch's port 0, a CA's own port.
    make_ndr(port("q2", 0).info, true, kWidth4x);
    make_ndr(port("q2", 1).info, false, kWidth4x);
    make_ndr(port("q2", 2).info, false, kWidth2x);
    make_ndr(port("q2", 3).info, false, kWidth4x);
    make_ndr(port("cx7a", 1).info, true, kWidth4x);
    make_ndr(port("cx7b", 1).info, true, kWidth2x);
    make_xdr(port("x8", 0).info, true);
    make_ndr(port("x8", 1).info, false, kWidth4x);  // to q2: NDR
    make_xdr(port("x8", 2).info, false);
    make_xdr(port("x8", 3).info, false);
    make_xdr(port("cx8a", 1).info, true);
    make_xdr(port("cx8b", 1).info, true);
    options.cache_dir = dir.path() + "/cache";
    options.partition_config_file = dir.path() + "/partitions.conf";
    fabric->on_request([this](const mad::Smp& smp) {
      if (smp.attr_id() == mad::AttrId::kPortInfo && smp.method() == mad::Method::kGet)
        (((smp.attr_mod() & mad::kSmSupportsExtendedSpeeds) != 0) ? gets_ext : gets_plain)++;
    });
  }
  void start(Logger log = null_logger()) {
    sm = std::make_unique<SubnetManager>(*fabric, clock, std::move(log), options);
  }
  SweepResult sweep() {
    sm->request_heavy_sweep(HeavyReason::kForced);
    return sm->sweep(stop);
  }
  fake::FakePort& port(const char* id, mad::PortNum p) {
    return fabric->node(fabric->index(id)).ports[p];
  }
  // The PathRecord the SA gives from `a` to `b` (both CA port 1).
  std::optional<sa::ResolvedPath> path(const char* a, const char* b) const {
    const sa::SnapshotPtr& snap = sm->sa().snapshot();
    if (snap == nullptr) return std::nullopt;
    const sa::PathResolver resolver(*snap, sa_settings(options));
    const Fabric& f = sm->fabric();
    const NodeIndex na = find(a), nb = find(b);
    if (na == kNoNode || nb == kNoNode) return std::nullopt;
    auto p = resolver.resolve({na, 1}, f.node(na).ports[1].lid, {nb, 1}, f.node(nb).ports[1].lid,
                              sa::PathQuery{}, 0);
    if (p) p->params.rate = resolver.reported_rate(*p);
    return p;
  }
  NodeIndex find(const char* id) const {
    const Fabric& f = sm->fabric();
    for (NodeIndex i = 0; i < f.size(); ++i)
      if (f.node(i).description == id) return i;
    return kNoNode;
  }

  testsupport::TempDir dir{"ibsm-ndr-test"};
  FakeClock clock;
  std::unique_ptr<FakeFabric> fabric;
  conf::Options options;
  std::unique_ptr<SubnetManager> sm;
  std::atomic<bool> stop{false};
  unsigned gets_ext = 0, gets_plain = 0;
};

// IBA 15.2.5.16 rate codes.
constexpr std::uint8_t kRate200 = 17, kRate400 = 21, kRate800 = 23;

// After the first sweep, and after a heavy sweep of the Active fabric, which sends no
// PortInfo Set whose answer would carry the extended speeds: only the Gets do.
class NdrSweeps : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Ndr, NdrSweeps, ::testing::Values(1, 2));

TEST_P(NdrSweeps, PathRecordsCarryTheExtendedRatesOfNdrTwoXAndXdrLinks) {
  Rig rig;
  rig.start();
  for (int i = 0; i < GetParam(); ++i)
    ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_TRUE(rig.fabric->inactive_ports().empty());
  // cx7a -> cx7b crosses the 2x NDR link: 2 x 100 Gb/s.
  auto p = rig.path("cx7a", "cx7b");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->params.rate, kRate200);
  EXPECT_EQ(p->params.mtu, 5);  // 4096 on every port of the way
  // cx7a -> cx8a: NDR 4x from q2 on (the XDR switch's port to q2 runs NDR).
  p = rig.path("cx7a", "cx8a");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->params.rate, kRate400);
  // cx8a -> cx8b: XDR 4x all the way.
  p = rig.path("cx8a", "cx8b");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->params.rate, kRate800);
  EXPECT_EQ(p->params.mtu, 5);
}

TEST(Ndr, PortInfoGetsAskForExtendedSpeedsWhereAdvertised) {
  Rig rig;
  rig.start();
  ASSERT_TRUE(rig.sweep().subnet_up);
  // The switches' external ports are read with bit 31 from the start (port 0 first);
  // the CA ports answer a plain Get advertising extended speeds and are read again.
  EXPECT_GT(rig.gets_ext, 0u);
  const Fabric& f = rig.sm->fabric();
  const Node& q2 = f.node(rig.find("q2"));
  for (mad::PortNum p = 1; p <= 3; ++p) {
    EXPECT_EQ(q2.ports[p].info.link_speed_ext_supported,
              mad::kSpeedExtEdr | mad::kSpeedExtHdr | mad::kSpeedExtNdr)
        << "q2 port " << int{p};
    EXPECT_EQ(q2.ports[p].info.link_speed_ext_active, mad::kSpeedExtNdr);
  }
  // LinkSpeedExtEnabled 31 went out with bit 31, so q2 (which takes it only then)
  // now enables every speed it supports.
  EXPECT_EQ(rig.port("q2", 1).info.link_speed_ext_enabled,
            mad::kSpeedExtEdr | mad::kSpeedExtHdr | mad::kSpeedExtNdr);
  EXPECT_EQ(rig.port("cx7a", 1).info.link_speed_ext_enabled,
            mad::kSpeedExtEdr | mad::kSpeedExtHdr | mad::kSpeedExtNdr);
  const Node& x8 = f.node(rig.find("x8"));
  EXPECT_EQ(x8.ports[2].info.link_speed_ext_active2, mad::kSpeedExt2Xdr);
  // Plain Gets went to the switches' port 0 and, once each, to the HCA ports.
  EXPECT_EQ(rig.gets_plain, 2u + 4u);
  // The next heavy sweep knows the HCA ports: one Get each, with bit 31.
  rig.gets_ext = rig.gets_plain = 0;
  ASSERT_TRUE(rig.sweep().subnet_up);
  EXPECT_EQ(rig.gets_plain, 2u);
  EXPECT_GT(rig.gets_ext, 0u);
}

TEST_P(NdrSweeps, SubnetDumpShowsTwoXWidthAndXdrSpeed) {
  Rig rig;
  rig.start();
  for (int i = 0; i < GetParam(); ++i)
    ASSERT_TRUE(rig.sweep().subnet_up);
  std::ostringstream out;
  write_subnet_lst(out, rig.sm->fabric());
  const std::string lst = out.str();
  const auto line_with = [&](const std::string& a, const std::string& b) {
    std::istringstream in(lst);
    for (std::string line; std::getline(in, line);)
      if (line.find("{" + a + "}") != std::string::npos &&
          line.find("{" + b + "}") != std::string::npos)
        return line;
    return std::string();
  };
  EXPECT_NE(line_with("cx7b", "q2").find("PHY=2x LOG=ACT SPD=100"), std::string::npos) << lst;
  EXPECT_NE(line_with("cx8a", "x8").find("PHY=4x LOG=ACT SPD=200"), std::string::npos) << lst;
  EXPECT_NE(line_with("q2", "x8").find("PHY=4x LOG=ACT SPD=100"), std::string::npos) << lst;
}

// Bad input: extended speeds advertised but none supported even with bit 31, and an
// active code naming two speeds. The links come up at what the fields agree on, with
// one log line per port naming it and the fields.
TEST(Ndr, ContradictorySpeedFieldsBringTheLinkUpAndNameThePort) {
  Rig rig;
  rig.port("cx7b", 1).info.link_speed_ext_supported = 0;
  rig.port("cx8b", 1).info.link_speed_ext_active2 = 0;
  rig.port("cx8b", 1).info.link_speed_ext_active = 3;
  std::ostringstream log;
  rig.start(testsupport::capture_log(log));
  const SweepResult r = rig.sweep();
  EXPECT_TRUE(r.subnet_up);
  EXPECT_TRUE(rig.fabric->inactive_ports().empty());
  const std::string text = log.str();
  std::size_t lines = 0;
  for (std::size_t at = text.find("IBSM-1010"); at != std::string::npos;
       at = text.find("IBSM-1010", at + 1))
    ++lines;
  EXPECT_EQ(lines, 2u) << text;
  EXPECT_NE(text.find("(cx7b) port 1"), std::string::npos) << text;
  EXPECT_NE(text.find("IsExtendedSpeedsSupported but LinkSpeedExtSupported 0"), std::string::npos);
  EXPECT_NE(text.find("(cx8b) port 1"), std::string::npos) << text;
  EXPECT_NE(text.find("LinkSpeedExtActive 3"), std::string::npos);
  // What the SA reports for them: the classic QDR speed of their lanes.
  auto p = rig.path("cx7a", "cx7b");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->params.rate, 6);  // QDR 2x: 20 Gb/s
  p = rig.path("cx8a", "cx8b");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->params.rate, 7);  // QDR 4x: 40 Gb/s
}

// A fabric whose every port shows the same contradiction (ibsim advertises extended
// speeds and supports none) logs the first ports one by one and counts the rest in one
// line, rather than a line per port on every heavy sweep.
TEST(Ndr, ContradictionOnEveryPortIsLoggedForTheFirstPortsAndCounted) {
  Rig rig;
  std::size_t ports = 0;
  for (const char* id : {"q2", "cx7a", "cx7b", "x8", "cx8a", "cx8b"}) {
    auto& node = rig.fabric->node(rig.fabric->index(id));
    for (mad::PortNum p = 1; p < node.ports.size(); ++p) {
      node.ports[p].info.link_speed_ext_supported = 0;
      node.ports[p].info.link_speed_ext_supported2 = 0;
      ++ports;
    }
  }
  ASSERT_GT(ports, 8u);
  std::ostringstream log;
  rig.start(testsupport::capture_log(log));
  EXPECT_TRUE(rig.sweep().subnet_up);
  EXPECT_TRUE(rig.fabric->inactive_ports().empty());
  const std::string text = log.str();
  std::size_t lines = 0;
  for (std::size_t at = text.find("IBSM-1010"); at != std::string::npos;
       at = text.find("IBSM-1010", at + 1))
    ++lines;
  EXPECT_EQ(lines, 9u) << text;
  EXPECT_NE(text.find("IBSM-1010: " + std::to_string(ports - 8) + " more ports"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace ibsm::sm::ndr_test
