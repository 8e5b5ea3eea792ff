// opensm.conf reading rules (OpenSM 3.3.23's osm_subn_parse_conf_file).
#include "conf/opensm_conf_reader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "conf/errors.hpp"

namespace ibsm::conf {
namespace {

using ::testing::HasSubstr;

Options apply_ok(std::string_view text, std::vector<Warning>* warnings = nullptr) {
  Options o;
  auto r = apply_opensm_conf(text, "test.conf", o, false);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (r.ok() && warnings) *warnings = *r;
  return o;
}

Error apply_err(std::string_view text, bool strict = false) {
  Options o;
  auto r = apply_opensm_conf(text, "test.conf", o, strict);
  EXPECT_FALSE(r.ok());
  return r.ok() ? Error{} : r.error();
}

TEST(OpensmConfReader, OnlyLiteralTrueIsTrue) {
  EXPECT_TRUE(apply_ok("reassign_lids TRUE\n").reassign_lids);
  EXPECT_FALSE(apply_ok("keep_pkey_indexes true\n").keep_pkey_indexes);
  EXPECT_FALSE(apply_ok("keep_pkey_indexes 1\n").keep_pkey_indexes);
  EXPECT_FALSE(apply_ok("keep_pkey_indexes yes\n").keep_pkey_indexes);
  EXPECT_FALSE(apply_ok("keep_pkey_indexes FALSE\n").keep_pkey_indexes);
}

TEST(OpensmConfReader, NonCanonicalBooleanIsReadAsFalseWithAWarning) {
  std::vector<Warning> w;
  apply_ok("\nreassign_lids true\n", &w);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_THAT(w[0].message, HasSubstr("test.conf:2"));
  EXPECT_EQ(w[0].id, kNonCanonicalBoolean);
  EXPECT_THAT(w[0].message, HasSubstr("read as FALSE"));
}

TEST(OpensmConfReader, IntegersAreBaseZero) {
  EXPECT_EQ(apply_ok("sweep_interval 0x1f\n").sweep_interval, 31u);
  EXPECT_EQ(apply_ok("sweep_interval 017\n").sweep_interval, 15u);
  EXPECT_EQ(apply_ok("sweep_interval 17\n").sweep_interval, 17u);
  EXPECT_EQ(apply_ok("sweep_interval 0\n").sweep_interval, 0u);
  EXPECT_EQ(apply_ok("subnet_prefix 0xfe80000000000001\n").subnet_prefix, 0xfe80000000000001ULL);
  EXPECT_EQ(apply_ok("qos_high_limit -1\n").qos_high_limit, -1);
  EXPECT_EQ(apply_ok("qos_high_limit 12\n").qos_high_limit, 12);
}

TEST(OpensmConfReader, NullClearsAString) {
  const Options o = apply_ok("partition_config_file (null)\n");
  EXPECT_EQ(o.partition_config_file, "");
  EXPECT_EQ(apply_ok("routing_engine updn,minhop\n").routing_engine, "updn,minhop");
}

TEST(OpensmConfReader, LaterLinesOverride) {
  EXPECT_EQ(apply_ok("sm_priority 3\nsm_priority 7\n").sm_priority, 7);
}

TEST(OpensmConfReader, CommentsStartAnywhereAndQuotesAreRemoved) {
  const Options o = apply_ok(
      "# heading\n"
      "  sm_priority 5   # trailing comment\n"
      "log_file \"/tmp/x y.log\"\n"
      "dump_files_dir '/tmp/d'\r\n");
  EXPECT_EQ(o.sm_priority, 5);
  EXPECT_EQ(o.log_file, "/tmp/x y.log");
  EXPECT_EQ(o.dump_files_dir, "/tmp/d");
}

TEST(OpensmConfReader, UnknownKeyIsAWarningWithLineNumber) {
  std::vector<Warning> w;
  const Options o = apply_ok("sm_priority 2\n\nno_such_key 5\n", &w);
  EXPECT_EQ(o.sm_priority, 2);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].id, kUnknownKey);
  EXPECT_THAT(w[0].message, HasSubstr("test.conf:3"));
  EXPECT_THAT(w[0].message, HasSubstr("no_such_key"));
}

TEST(OpensmConfReader, UnknownKeyIsAnErrorWhenStrict) {
  const Error e = apply_err("no_such_key 5\n", true);
  EXPECT_EQ(e.id, kUnknownKey);
  EXPECT_THAT(e.message, HasSubstr("test.conf:1"));
}

TEST(OpensmConfReader, OutOfRangeValueNamesLineKeyValueAndRange) {
  const Error e = apply_err("\n\nsm_priority 16\n");
  EXPECT_EQ(e.id, kBadValue);
  EXPECT_THAT(e.message, HasSubstr("test.conf:3"));
  EXPECT_THAT(e.message, HasSubstr("sm_priority"));
  EXPECT_THAT(e.message, HasSubstr("'16'"));
  EXPECT_THAT(e.message, HasSubstr("0-15"));
}

TEST(OpensmConfReader, MalformedNumbersAreErrors) {
  EXPECT_EQ(apply_err("sweep_interval ten\n").id, kBadValue);
  EXPECT_EQ(apply_err("sweep_interval 10s\n").id, kBadValue);
  EXPECT_EQ(apply_err("sweep_interval -1\n").id, kBadValue);
  EXPECT_EQ(apply_err("sweep_interval 08\n").id, kBadValue);           // octal has no 8
  EXPECT_EQ(apply_err("sweep_interval 0x100000000\n").id, kBadValue);  // > 32 bits
  EXPECT_EQ(apply_err("subnet_prefix 0x1fe80000000000000\n").id, kBadValue);
  EXPECT_EQ(apply_err("qos_high_limit -2\n").id, kBadValue);
}

TEST(OpensmConfReader, ChoicesAreChecked) {
  EXPECT_EQ(apply_ok("part_enforce off\n").part_enforce, "off");
  const Error e = apply_err("part_enforce maybe\n");
  EXPECT_THAT(e.message, HasSubstr("both, in, out, off"));
}

TEST(OpensmConfReader, MKeyTakesAny64BitValue) {
  EXPECT_EQ(apply_ok("m_key 0x0000000000000000\n").m_key, 0u);
  EXPECT_EQ(apply_ok("m_key 0x10\n").m_key, 0x10u);
  EXPECT_EQ(apply_err("m_key 0x1ffffffffffffffff\n").id, kBadValue);
}

TEST(OpensmConfReader, CongestionControlTextKeysAreSyntaxChecked) {
  EXPECT_EQ(apply_ok("cc_cct 1:2,3:4\n").cc_cct, "1:2,3:4");
  EXPECT_EQ(apply_ok("cc_ca_cong_setting_ccti_timer 3 100\n").cc_ca_cong_setting_ccti_timer,
            "3 100");
  EXPECT_EQ(apply_err("cc_sw_cong_setting_credit_starvation_return_delay 5\n").id, kBadValue);
  EXPECT_EQ(apply_err("cc_sw_cong_setting_victim_mask 0xZZ\n").id, kBadValue);
}

TEST(OpensmConfReader, DimnPortsFileIsAnAliasOfPortSearchOrderingFile) {
  EXPECT_EQ(apply_ok("dimn_ports_file /tmp/p\n").port_search_ordering_file, "/tmp/p");
}

TEST(OpensmConfReader, KeyWithoutValueIsIgnoredWithWarning) {
  std::vector<Warning> w;
  EXPECT_EQ(apply_ok("sm_priority\n", &w).sm_priority, 0);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].id, kMissingValue);
  EXPECT_THAT(w[0].message, HasSubstr("no value"));
}

TEST(OpensmConfReader, OverlongLineIsAnError) {
  EXPECT_EQ(apply_err("log_file /" + std::string(2000, 'a') + "\n").id, kLineTooLong);
}

}  // namespace
}  // namespace ibsm::conf
