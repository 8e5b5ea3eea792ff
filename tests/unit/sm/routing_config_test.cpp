// sm/routing_config: every route-balancing key of opensm.conf reaches the EngineConfig the
// engines get (files read and parsed, flags copied), and a bad hop_weights_file line is a
// warning naming the file and line.
#include "sm/routes/routing_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "conf/opensm_conf_reader.hpp"
#include "routing/errors.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsm::sm {
namespace {

std::string write(const testsupport::TempDir& dir, const std::string& name,
                  const std::string& text) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(RoutingConfig, BalanceKeysReachTheEngineConfig) {
  testsupport::TempDir dir;
  const std::string order = write(dir, "order", "0x0000000000000011\n0x0000000000000012\n");
  const std::string ignore = write(dir, "ignore", "0x0000000000000021 # a TCA\n");
  const std::string ids = write(dir, "ids", "0x0000000000000031 7\n");
  const std::string weights =
      write(dir, "weights", "0x0000000000000041 3 10\nnot a line\n0x0000000000000042 1 2\n");
  conf::Options options;
  const std::string conf_text = "guid_routing_order_file " + order +
                                "\n"
                                "guid_routing_order_no_scatter TRUE\n"
                                "port_shifting TRUE\n"
                                "scatter_ports 7\n"
                                "hop_weights_file " +
                                weights +
                                "\n"
                                "port_prof_ignore_file " +
                                ignore +
                                "\n"
                                "port_profile_switch_nodes TRUE\n"
                                "connect_roots TRUE\n"
                                "ids_guid_file " +
                                ids + "\n";
  auto applied = conf::apply_opensm_conf(conf_text, "opensm.conf", options, false);
  ASSERT_TRUE(applied.ok()) << to_string(applied.error());

  const EngineSettings s = make_engine_settings(options, {"minhop"}, 8);
  const routing::EngineConfig& c = s.config;
  EXPECT_EQ(c.routing_order_guids, (std::vector<std::uint64_t>{0x11, 0x12}));
  EXPECT_TRUE(c.routing_order_no_scatter);
  EXPECT_TRUE(c.port_shifting);
  EXPECT_EQ(c.scatter_seed, 7U);
  ASSERT_EQ(c.hop_weights.size(), 2U);
  EXPECT_EQ(c.hop_weights[0].switch_guid, 0x41U);
  EXPECT_EQ(c.hop_weights[0].port, 3);
  EXPECT_EQ(c.hop_weights[0].weight, 10);
  EXPECT_EQ(c.hop_weights[1].switch_guid, 0x42U);
  EXPECT_EQ(c.balance_ignored_guids, (std::vector<std::uint64_t>{0x21}));
  EXPECT_TRUE(c.port_profile_switch_nodes);
  EXPECT_TRUE(c.connect_roots);
  ASSERT_EQ(c.guid_ids.size(), 1U);
  EXPECT_EQ(c.guid_ids[0], (std::pair<std::uint64_t, std::uint64_t>{0x31, 7}));
  ASSERT_EQ(s.warnings.size(), 1U);
  EXPECT_EQ(s.warnings[0].id, routing::kErrHopWeightsFile);
  EXPECT_NE(s.warnings[0].message.find(weights + ":2:"), std::string::npos)
      << s.warnings[0].message;
}

TEST(RoutingConfig, TopologyEngineKeysAndFilesReachTheEngineConfig) {
  testsupport::TempDir dir;
  const std::string cn = write(dir, "cn", "0x0000000000000051\n0x0000000000000052\n");
  const std::string io = write(dir, "io", "0x0000000000000061\nbad\n");
  const std::string torus = write(dir, "torus", "torus 4 4 1\n");
  const std::string order = write(dir, "order", "0x0000000000000071 3 4 1 2\n");
  const std::string lfts = write(dir, "lfts", "Unicast lids [0-1] of switch ...\n");
  const std::string matrix = write(dir, "matrix", "Switch: guid 0x1\n");
  conf::Options options;
  const std::string conf_text = "cn_guid_file " + cn + "\nio_guid_file " + io +
                                "\nquasi_ftree_indexing TRUE\nmax_reverse_hops 2\n"
                                "torus_config " +
                                torus + "\nport_search_ordering_file " + order + "\nlfts_file " +
                                lfts + "\nlid_matrix_dump_file " + matrix + "\n";
  auto applied = conf::apply_opensm_conf(conf_text, "opensm.conf", options, false);
  ASSERT_TRUE(applied.ok()) << to_string(applied.error());

  const EngineSettings s = make_engine_settings(options, {"ftree", "torus-2QoS", "dor", "file"}, 8);
  const routing::EngineConfig& c = s.config;
  EXPECT_EQ(c.cn_guids, (std::vector<std::uint64_t>{0x51, 0x52}));
  EXPECT_EQ(c.io_guids, (std::vector<std::uint64_t>{0x61}));
  EXPECT_TRUE(c.quasi_ftree_indexing);
  EXPECT_EQ(c.max_reverse_hops, 2U);
  EXPECT_EQ(c.torus_config.path, torus);
  EXPECT_EQ(c.torus_config.text, "torus 4 4 1\n");
  EXPECT_EQ(c.port_search_ordering.path, order);
  EXPECT_EQ(c.lfts.path, lfts);
  EXPECT_EQ(c.lid_matrix.text, "Switch: guid 0x1\n");
  ASSERT_EQ(s.warnings.size(), 1U) << "the bad line of io_guid_file";
  EXPECT_EQ(s.warnings[0].id, routing::kErrGuidFile);
  EXPECT_NE(s.warnings[0].message.find(io + ":2:"), std::string::npos) << s.warnings[0].message;

  // Files only some engine reads are read only when that engine is in -R.
  const EngineSettings minhop = make_engine_settings(options, {"minhop"}, 8);
  EXPECT_FALSE(minhop.config.torus_config.configured());
  EXPECT_FALSE(minhop.config.lfts.configured());
}

TEST(RoutingConfig, UnreadableEngineFileKeepsItsPathAndWarns) {
  conf::Options options;
  options.torus_config = "/nonexistent/torus-2QoS.conf";
  const EngineSettings s = make_engine_settings(options, {"torus-2QoS"}, 8);
  EXPECT_TRUE(s.config.torus_config.configured());
  EXPECT_TRUE(s.config.torus_config.text.empty());
  ASSERT_EQ(s.warnings.size(), 1U);
  EXPECT_EQ(s.warnings[0].id, routing::kErrRoutingFileUnreadable);
}

TEST(RoutingConfig, BalanceKeysOffByDefault) {
  const EngineSettings s = make_engine_settings(conf::Options{}, {"minhop"}, 8);
  EXPECT_TRUE(s.config.routing_order_guids.empty());
  EXPECT_FALSE(s.config.port_shifting);
  EXPECT_EQ(s.config.scatter_seed, 0U);
  EXPECT_TRUE(s.config.hop_weights.empty());
  EXPECT_TRUE(s.warnings.empty());
}

TEST(RoutingConfig, UnreadableHopWeightsFileIsAWarning) {
  conf::Options options;
  options.hop_weights_file = "/nonexistent/ibsm-hop-weights";
  const EngineSettings s = make_engine_settings(options, {"minhop"}, 8);
  EXPECT_TRUE(s.config.hop_weights.empty());
  ASSERT_EQ(s.warnings.size(), 1U);
  EXPECT_EQ(s.warnings[0].id, routing::kErrHopWeightsFile);
}

}  // namespace
}  // namespace ibsm::sm
