// ibsm.toml reading, writing and --convert.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "conf/errors.hpp"
#include "conf/toml_reader.hpp"
#include "conf/toml_writer.hpp"
#include "test_util.hpp"

namespace ibsm::conf {
namespace {

using ::testing::HasSubstr;

Result<std::vector<Warning>> apply_text(std::string_view text, Options& o) {
  return apply_toml(text, "ibsm.toml", o);
}

TEST(Toml, ReadsOptionsFromTheirSections) {
  Options o;
  auto r = apply_text(
      "[handover]\nsm_priority = 7\n"
      "[device]\nsubnet_prefix = \"0xfe80000000000001\"\npacket_life_time = 0x13\n"
      "[sweep]\nreassign_lids = true\n"
      "[routing]\nrouting_engine = \"updn,minhop\"\n"
      "[partitions]\npartition_config_file = \"\"\n",
      o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(o.sm_priority, 7);
  EXPECT_EQ(o.subnet_prefix, 0xfe80000000000001ULL);
  EXPECT_EQ(o.packet_life_time, 0x13);
  EXPECT_TRUE(o.reassign_lids);
  EXPECT_EQ(o.routing_engine, "updn,minhop");
  EXPECT_EQ(o.partition_config_file, "");
}

TEST(Toml, SyntaxErrorNamesLineAndColumn) {
  Options o;
  auto r = apply_text("[handover]\nsm_priority = = 3\n", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kTomlSyntax);
  EXPECT_THAT(r.error().message, HasSubstr("ibsm.toml:2:"));
}

TEST(Toml, WrongTypeNamesPositionAndKey) {
  Options o;
  auto r = apply_text("[sweep]\n\nreassign_lids = \"TRUE\"\n", o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("ibsm.toml:3:"));
  EXPECT_THAT(r.error().message, HasSubstr("sweep.reassign_lids"));
  EXPECT_THAT(r.error().message, HasSubstr("boolean"));
}

TEST(Toml, OutOfRangeNamesKeyAndRange) {
  Options o;
  auto r = apply_text("[handover]\nsm_priority = 99\n", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kBadValue);
  EXPECT_THAT(r.error().message, HasSubstr("ibsm.toml:2:"));
  EXPECT_THAT(r.error().message, HasSubstr("handover.sm_priority"));
  EXPECT_THAT(r.error().message, HasSubstr("0-15"));
}

TEST(Toml, UnknownKeysAndSectionsAreErrors) {
  Options o;
  auto r1 = apply_text("[handover]\nsm_prio = 3\n", o);
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.error().id, kTomlUnknownKey);
  EXPECT_THAT(r1.error().message, HasSubstr("handover.sm_prio"));

  auto r2 = apply_text("[nonsense]\nx = 1\n", o);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().id, kTomlUnknownKey);

  auto r3 = apply_text("sm_priority = 3\n", o);
  ASSERT_FALSE(r3.ok());
  EXPECT_THAT(r3.error().message, HasSubstr("belongs in [handover]"));
}

TEST(Toml, KeyInWrongSectionIsAnError) {
  Options o;
  auto r = apply_text("[device]\nsm_priority = 3\n", o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("belongs in [handover]"));
}

TEST(Toml, WrittenTomlReadsBackEqual) {
  Options o;
  o.sm_priority = 4;
  o.guid = 0xffffffffffffffffULL;
  o.routing_engine = "ftree";
  o.log_prefix = "quote\" and \\ backslash";
  o.qos_high_limit = -1;
  o.qos_ca_high_limit = 3;
  o.console = "local";
  o.cc_sw_cong_setting_control_map = 0x1f;
  Options back;
  auto r = apply_text(write_toml(o), back);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(back, o);
}

TEST(Toml, ConvertPrintsTheTomlOfAnOpensmConf) {
  testing::TempDir dir;
  const auto conf = dir.write("opensm.conf", "sm_priority 11\nrouting_engine updn\n");
  auto r = testing::invoke({"--convert", conf});
  ASSERT_TRUE(r.ok()) << to_string(r.error());
  ASSERT_TRUE(std::holds_alternative<ExitNow>(*r));
  const auto& out = std::get<ExitNow>(*r);
  EXPECT_EQ(out.code, 0);
  EXPECT_THAT(out.out, HasSubstr("sm_priority = 11"));
  Options back;
  ASSERT_TRUE(apply_text(out.out, back).ok());
  EXPECT_EQ(back.sm_priority, 11);
  EXPECT_EQ(back.routing_engine, "updn");
}

TEST(Toml, ConfigFlagReadsTomlByExtension) {
  testing::TempDir dir;
  const auto toml = dir.write("ibsm.toml", "[handover]\nsm_priority = 12\n");
  const Options o = testing::run_options(testing::invoke({"-F", toml}));
  EXPECT_EQ(o.sm_priority, 12);
}

}  // namespace
}  // namespace ibsm::conf
