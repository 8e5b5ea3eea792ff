// The option table covers OpenSM 3.3.23's keys with its defaults.
#include "conf/option_table.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "conf/option_value.hpp"

namespace ibsm::conf {
namespace {

// key -> value of the comment-free OpenSM 3.3.23 default dump in data/.
std::map<std::string, std::string> opensm_defaults() {
  const char* dir = std::getenv("IBSM_CONF_TEST_DATA");
  std::ifstream in(std::string(dir ? dir : ".") + "/opensm-3.3.23-defaults.conf");
  std::map<std::string, std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    const auto sp = line.find(' ');
    if (sp == std::string::npos) continue;
    out[line.substr(0, sp)] = line.substr(sp + 1);
  }
  return out;
}

// The OpenSM-parity checks cover the OpenSM rows only; ibsm's extension rows
// have their own defaults and are checked in extension_test.cpp.
std::vector<const OptionRow*> opensm_rows() {
  std::vector<const OptionRow*> out;
  for (const auto& row : option_rows()) {
    if (!is_ibsm_extension(row.section)) out.push_back(&row);
  }
  return out;
}

TEST(OptionTable, Has160OpensmKeysAndNoKeyTwice) {
  std::set<std::string_view> keys;
  for (const auto& row : option_rows())
    keys.insert(row.key);
  EXPECT_EQ(opensm_rows().size(), 160u);
  EXPECT_EQ(keys.size(), option_rows().size());
}

TEST(OptionTable, KeysAndDefaultsMatchOpensm3323) {
  const auto expected = opensm_defaults();
  ASSERT_EQ(expected.size(), 160u) << "fixture missing (IBSM_CONF_TEST_DATA)";
  for (const OptionRow* row : opensm_rows()) {
    auto it = expected.find(std::string(row->key));
    ASSERT_NE(it, expected.end()) << row->key << " is not an OpenSM 3.3.23 key";
    EXPECT_EQ(format_default(*row), it->second) << row->key;
  }
}

TEST(OptionTable, ExtensionKeysAreNotOpensmKeys) {
  const auto opensm = opensm_defaults();
  ASSERT_EQ(opensm.size(), 160u) << "fixture missing (IBSM_CONF_TEST_DATA)";
  for (const auto& row : option_rows()) {
    if (!is_ibsm_extension(row.section)) continue;
    EXPECT_FALSE(opensm.contains(std::string(row.key)))
        << row.key << " is an OpenSM key; its row belongs in an OpenSM section";
  }
}

// A written opensm.conf lists OpenSM's keys in OpenSM's dump order; the
// extension rows follow them all.
TEST(OptionTable, ExtensionRowsComeAfterEveryOpensmRow) {
  bool seen_extension = false;
  for (const auto& row : option_rows()) {
    if (is_ibsm_extension(row.section)) {
      seen_extension = true;
    } else {
      EXPECT_FALSE(seen_extension) << row.key << " follows an extension row";
    }
  }
}

TEST(OptionTable, FiftyOneKeysNeedARestart) {
  int restart = 0;
  for (const OptionRow* row : opensm_rows())
    restart += row->reload == Reload::kRestart;
  EXPECT_EQ(restart, 51);  // OpenSM 3.3.23's keys without can_update
}

TEST(OptionTable, AgreedKeysAreImplemented) {
  const std::set<std::string_view> agreed = {"guid",
                                             "m_key",
                                             "sm_key",
                                             "subnet_prefix",
                                             "lmc",
                                             "vl_stall_count",
                                             "leaf_vl_stall_count",
                                             "head_of_queue_lifetime",
                                             "leaf_head_of_queue_lifetime",
                                             "max_op_vls",
                                             "subnet_timeout",
                                             "partition_config_file",
                                             "part_enforce",
                                             "allow_both_pkeys",
                                             "sweep_interval",
                                             "reassign_lids",
                                             "force_heavy_sweep",
                                             "routing_engine",
                                             "sm_priority",
                                             "max_wire_smps",
                                             "transaction_timeout",
                                             "transaction_retries",
                                             "daemon",
                                             "log_flags",
                                             "force_log_flush",
                                             "log_file",
                                             "log_max_size",
                                             "accum_log_file",
                                             "dump_files_dir",
                                             "no_clients_rereg",
                                             "log_prefix"};
  std::set<std::string_view> implemented;
  for (const auto& row : option_rows()) {
    if (row.impl == Impl::kYes) implemented.insert(row.key);
  }
  // At least the agreed set; flipping another row to kYes needs no change here.
  for (auto key : agreed)
    EXPECT_TRUE(implemented.contains(key)) << key;
}

TEST(OptionTable, EveryRowHasHelp) {
  for (const auto& row : option_rows())
    EXPECT_FALSE(row.help.empty()) << row.key;
}

TEST(OptionTable, DefaultOptionsAreDefaultForEveryRow) {
  const Options o;
  for (const auto& row : option_rows())
    EXPECT_TRUE(is_default(row, o)) << row.key;
}

}  // namespace
}  // namespace ibsm::conf
