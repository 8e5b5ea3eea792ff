// topology (ctl/reports/topology.cpp) and slurm_topology_file (sm/publish/) on an SM
// brought up on the fake fabric: the command's arguments, topology.conf with the hosts
// under the leaf they hang off, JSON, rails, RE2 filters and their refusals; the file
// written after SUBNET UP, and left alone while the fabric does not change.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include "common/atomic_file.hpp"
#include "ctl/command.hpp"
#include "ctl/errors.hpp"
#include "ctl/reports/reports.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::ctl {
namespace {

// Two leaves under one spine; h1 has a second HCA on leaf2, "bad name" has a blank only.
constexpr std::string_view kSlurmNet = R"(Switch 4 "spine"
[1] "leaf1"[4]
[2] "leaf2"[4]

Switch 4 "leaf1"
[1] "h1a"[1]
[2] "h2"[1]
[4] "spine"[1]

Switch 4 "leaf2"
[1] "h3"[1]
[2] "h1b"[1]
[4] "spine"[2]

Hca 1 "h1a"
[1] "leaf1"[1]

Hca 1 "h2"
[1] "leaf1"[2]

Hca 1 "h3"
[1] "leaf2"[1]

Hca 1 "h1b"
[1] "leaf2"[2]
)";

TEST(TopologyCommand, ParsesItsOptions) {
  auto c = parse_command("topology --format json --rail 1 --include ^h --include x --exclude h3");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->id, CommandId::kTopology);
  EXPECT_FALSE(c->changes);
  EXPECT_TRUE(c->topology.json_format);
  EXPECT_EQ(c->topology.rail, 1u);
  EXPECT_EQ(c->topology.include, (std::vector<std::string>{"^h", "x"}));
  EXPECT_EQ(c->topology.exclude, (std::vector<std::string>{"h3"}));
  EXPECT_TRUE(parse_command("topology --ports")->topology.all_ports);
  EXPECT_TRUE(parse_command("topology --json")->json);  // the flag after the command
  for (const char* bad : {"topology --format yaml", "topology --rail", "topology --rail x",
                          "topology --rail 1 --ports", "topology nodes", "topology --rail 256"}) {
    auto r = parse_command(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().id, kErrBadArgument) << bad;
  }
}

class TopologyRig : public ::testing::Test {
 protected:
  void start(const std::string& net) {
    auto d = testsupport::parse_net(net);
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
  Answer ask(std::string_view line) {
    auto c = parse_command(line);
    EXPECT_TRUE(c.ok()) << line;
    return answer_read_only(*c, *sm->ops().snapshot.current(), sm->ops().events);
  }
  void heavy_sweep() {
    const auto before = sm->ops().snapshot.current()->heavy_sweeps;
    sm->request_heavy_sweep(sm::HeavyReason::kForced);
    for (int i = 0; i < 200 && sm->ops().snapshot.current()->heavy_sweeps == before; ++i)
      sm->step(control);
    ASSERT_GT(sm->ops().snapshot.current()->heavy_sweeps, before);
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

TEST_F(TopologyRig, HostsUnderTheLeafTheyHangOffAndOneTop) {
  start(std::string(kSlurmNet));
  const Answer a = ask("topology");
  ASSERT_TRUE(a.ok) << a.text;
  // h1a and h1b are two hosts here (names differ); the spine is the only one above.
  // Hostlist order: the prefix "h" of h2 before the lone name h1a.
  EXPECT_NE(a.text.find("SwitchName=leaf1 Nodes=h2,h1a\n"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("SwitchName=leaf2 Nodes=h3,h1b\n"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("SwitchName=spine Switches=leaf[1-2]\n"), std::string::npos) << a.text;
  EXPECT_EQ(a.text.find("ibsm_top"), std::string::npos) << a.text;
  const Answer j = ask("topology --format json");
  EXPECT_EQ(j.text, j.json + "\n");
  EXPECT_NE(j.json.find(R"("top":"spine","virtual_top":false,"hosts":4)"), std::string::npos)
      << j.json;
  EXPECT_EQ(ask("--json topology").json, j.json);
}

TEST_F(TopologyRig, FiltersAreRe2AndBadPatternsAreRefused) {
  start(std::string(kSlurmNet));
  Answer a = ask("topology --exclude ^h1 --include h");
  ASSERT_TRUE(a.ok) << a.text;
  EXPECT_NE(a.text.find("SwitchName=leaf1 Nodes=h2\n"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("; 2 hosts excluded by pattern"), std::string::npos) << a.text;
  a = ask("topology --include (");
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.error, kErrPattern);
}

TEST_F(TopologyRig, RailsOfOneHostNamedAlike) {
  std::string net(kSlurmNet);
  // Both HCAs of h1 say "h1 mlx5_N": one host with two rails.
  for (auto [from, to] : {std::pair{"\"h1a\"", "\"h1 mlx5_0\""}, {"\"h1b\"", "\"h1 mlx5_1\""}})
    for (std::size_t at; (at = net.find(from)) != std::string::npos;)
      net.replace(at, std::string_view(from).size(), to);
  start(net);
  EXPECT_NE(ask("topology").text.find("SwitchName=leaf1 Nodes=h[1-2]\n"), std::string::npos);
  EXPECT_NE(ask("topology --rail 1").text.find("SwitchName=leaf2 Nodes=h1\n"), std::string::npos);
  const std::string all = ask("topology --ports").text;
  EXPECT_NE(all.find("SwitchName=leaf1 Nodes=h[1-2]\n"), std::string::npos) << all;
  EXPECT_NE(all.find("SwitchName=leaf2 Nodes=h[1,3]\n"), std::string::npos) << all;
}

TEST_F(TopologyRig, SlurmTopologyFileIsWrittenAfterSubnetUpAndOnlyWhenItChanges) {
  options.slurm_topology_file = dir.path() + "/topology.conf";
  start(std::string(kSlurmNet));
  auto first = read_file(options.slurm_topology_file);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, ask("topology").text);
  // The same fabric: the file is left alone (an operator's mark stays).
  ASSERT_TRUE(write_file_atomically(options.slurm_topology_file, *first + "# mark\n").ok());
  heavy_sweep();
  EXPECT_EQ(*read_file(options.slurm_topology_file), *first + "# mark\n");
}

}  // namespace
}  // namespace ibsm::ctl
