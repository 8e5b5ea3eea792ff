// The whole plan for a rich node file on the fixture host, text and JSON,
// against reviewed golden files. IBSM_UPDATE_GOLDEN=1 rewrites them (review the diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "agent/report.hpp"
#include "plan_fixture.hpp"

namespace ibsm::agent {
namespace {

const char* const kRichNode = R"([agent]
protected_interfaces = ["ib0"]

[[ipoib]]
port = { guid = 0x0002c90300001234 }
mode = "connected"
addresses = ["10.9.0.5/16"]
pkeys = "auto"

[[ipoib.child]]
pkey = 0x0005
mode = "datagram"
addresses = ["10.5.0.5/16"]

[[roce]]
device = "mlx5_2"
default_mode = "v2"

[[soft_rdma]]
name = "siw0"
type = "siw"
netdev = "eth1"

[modules]
rdma = ["ib_uverbs", "rdma_ucm"]

[memlock]

[nfs_rdma]
server = true
)";

void check_golden(const std::string& name, const std::string& actual) {
  std::string path = std::string(IBSM_SOURCE_DIR) + "/tests/unit/agent/golden/" + name;
  if (const char* u = std::getenv("IBSM_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(path) << actual;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " missing (IBSM_UPDATE_GOLDEN=1 creates it)";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(actual, ss.str()) << "golden " << name << " differs";
}

TEST(GoldenPlan, RichHostDirect) {
  testing::PlanRun r(kRichNode);
  auto guarded = protected_interfaces(r.config, r.observed);
  check_golden("rich_host_direct.txt", render_plan(r.plan, guarded, Format::kText));
  check_golden("rich_host_direct.json", render_plan(r.plan, guarded, Format::kJson));
}

TEST(GoldenPlan, RichHostNetworkd) {
  testing::PlanRun r(kRichNode);
  r.replan(Backend::kNetworkd);
  check_golden("rich_host_networkd.txt",
               render_plan(r.plan, protected_interfaces(r.config, r.observed), Format::kText));
}

}  // namespace
}  // namespace ibsm::agent
