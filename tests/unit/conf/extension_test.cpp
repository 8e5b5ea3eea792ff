// ibsm extension keys ([ibsm], Section::kIbsm): rows of the same option table
// that OpenSM does not have. They read from opensm.conf and TOML like any key,
// are range-checked with file/line/key in the error, are written back by
// `ibsm -c` (as "#ibsm: key value" lines, comments to OpenSM) and `--convert`,
// and reload on SIGHUP when their row says so. (That Debian's OpenSM reads
// ibsm's -c output without "Unrecognized token": round_trip_test.cpp.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "conf/errors.hpp"
#include "conf/opensm_conf_reader.hpp"
#include "conf/opensm_conf_writer.hpp"
#include "conf/option_table.hpp"
#include "conf/option_value.hpp"
#include "conf/reload.hpp"
#include "conf/toml_reader.hpp"
#include "conf/toml_writer.hpp"
#include "test_util.hpp"

namespace ibsm::conf {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::invoke;
using ::testing::Not;
using testing::run_options;
using ::testing::StartsWith;
using testing::TempDir;

constexpr std::string_view kExtensionHeading = "# ibsm extensions (OpenSM ignores these keys)";

TEST(Extension, MasterSmPriorityRow) {
  const OptionRow* row = find_option("master_sm_priority");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->section, Section::kIbsm);
  EXPECT_TRUE(is_ibsm_extension(row->section));
  EXPECT_TRUE(std::holds_alternative<std::uint8_t Options::*>(row->field));
  EXPECT_EQ(format_default(*row), "0");
  EXPECT_EQ(allowed_values(*row), "0-15");
  EXPECT_EQ(row->reload, Reload::kHup);
  EXPECT_EQ(row->impl, Impl::kYes);
  EXPECT_EQ(row->cli.kind, CliKind::kArg);
  EXPECT_EQ(row->cli.long_name, "master_sm_priority");
  EXPECT_EQ(Options{}.master_sm_priority, 0);
}

TEST(Extension, OnlyTheIbsmSectionIsAnExtension) {
  for (Section s : kAllSections)
    EXPECT_EQ(is_ibsm_extension(s), s == Section::kIbsm) << section_name(s);
  EXPECT_EQ(section_name(Section::kIbsm), "ibsm");
  EXPECT_EQ(kAllSections.back(), Section::kIbsm);
}

TEST(Extension, ReadsFromOpensmConfWithoutWarningsEvenStrict) {
  Options o;
  auto r = apply_opensm_conf("sm_priority 3\nmaster_sm_priority 12\n", "f.conf", o, true);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->empty());
  EXPECT_EQ(o.master_sm_priority, 12);
  EXPECT_EQ(o.sm_priority, 3);
}

TEST(Extension, OutOfRangeInOpensmConfNamesFileLineKeyAndRange) {
  for (const char* value : {"16", "-1", "0x10", "255"}) {
    Options o;
    auto r = apply_opensm_conf(
        "# comment\nsm_priority 3\nmaster_sm_priority " + std::string(value) + "\n",
        "/etc/opensm/opensm.conf", o, false);
    ASSERT_FALSE(r.ok()) << value;
    EXPECT_EQ(r.error().id, kBadValue);
    EXPECT_THAT(r.error().message,
                AllOf(StartsWith("/etc/opensm/opensm.conf:3: "), HasSubstr("master_sm_priority"),
                      HasSubstr(std::string("'") + value + "'"), HasSubstr("0-15")))
        << value;
    EXPECT_EQ(o.master_sm_priority, 0);
  }
}

TEST(Extension, NotANumberInOpensmConfIsAnError) {
  Options o;
  auto r = apply_opensm_conf("master_sm_priority high\n", "f.conf", o, false);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, AllOf(StartsWith("f.conf:1: "), HasSubstr("master_sm_priority"),
                                       HasSubstr("not a number")));
}

TEST(Extension, ReadsFromTheIbsmTomlTable) {
  Options o;
  auto r =
      apply_toml("[handover]\nsm_priority = 2\n[ibsm]\nmaster_sm_priority = 15\n", "ibsm.toml", o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(o.master_sm_priority, 15);
  EXPECT_EQ(o.sm_priority, 2);
}

TEST(Extension, OutOfRangeInTomlNamesPositionKeyAndRange) {
  Options o;
  auto r = apply_toml("[ibsm]\nmaster_sm_priority = 16\n", "ibsm.toml", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kBadValue);
  EXPECT_THAT(r.error().message, AllOf(StartsWith("ibsm.toml:2:"),
                                       HasSubstr("ibsm.master_sm_priority"), HasSubstr("0-15")));
}

TEST(Extension, TomlKeyOutsideTheIbsmTableIsAnError) {
  Options o;
  auto r = apply_toml("[handover]\nmaster_sm_priority = 5\n", "ibsm.toml", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kTomlUnknownKey);
  EXPECT_THAT(r.error().message, AllOf(StartsWith("ibsm.toml:2:"), HasSubstr("belongs in [ibsm]")));
}

// ibsm-only options live in TOML and on the command line.
TEST(Extension, HasACommandLineFlag) {
  EXPECT_EQ(run_options(invoke({"--master_sm_priority", "3"})).master_sm_priority, 3);
  EXPECT_EQ(run_options(invoke({"-master_sm_priority=0x0c"})).master_sm_priority, 12);
  auto r = invoke({"--master_sm_priority", "16"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kBadValue);
}

TEST(Extension, WrittenOpensmConfHasItsOwnLastSectionAndReadsBack) {
  Options o;
  o.master_sm_priority = 12;
  const std::string text = write_opensm_conf(o);
  const auto heading = text.find(kExtensionHeading);
  ASSERT_NE(heading, std::string::npos);
  const auto line = text.find("\n#ibsm: master_sm_priority 12\n");
  ASSERT_NE(line, std::string::npos);
  EXPECT_GT(line, heading);
  // Every OpenSM key comes before the extension section.
  EXPECT_LT(text.find("\nlog_prefix "), heading);
  Options back;
  auto r = apply_opensm_conf(text, "written", back, true);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->empty());
  EXPECT_EQ(back, o);
}

// Written whatever the value: the file stays a complete record, and OpenSM
// ignores the key either way.
TEST(Extension, WrittenOpensmConfHasTheKeyAtItsDefaultToo) {
  const std::string text = write_opensm_conf(Options{});
  EXPECT_THAT(text, HasSubstr(kExtensionHeading));
  EXPECT_THAT(text, HasSubstr("\n#ibsm: master_sm_priority 0\n"));
  // No ibsm key on a line OpenSM would read.
  EXPECT_THAT(text, Not(HasSubstr("\nmaster_sm_priority")));
}

// OpenSM cuts lines at '#': "#ibsm:" lines are comments to it, keys to ibsm.
TEST(Extension, IbsmLinesAreReadAsKeys) {
  Options o;
  auto r = apply_opensm_conf("#ibsm: master_sm_priority 11 # why\n# master_sm_priority 3\n",
                             "f.conf", o, true);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->empty());
  EXPECT_EQ(o.master_sm_priority, 11);
}

TEST(Extension, IbsmLineWithABadValueIsAnErrorNamingTheLine) {
  Options o;
  auto r = apply_opensm_conf("\n#ibsm: master_sm_priority 40\n", "f.conf", o, false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kBadValue);
  EXPECT_THAT(r.error().message, AllOf(StartsWith("f.conf:2: "), HasSubstr("master_sm_priority")));
}

// OpenSM would not see an OpenSM key hidden in a comment; ibsm must not read it either.
TEST(Extension, OpensmKeyOnAnIbsmLineIsIgnoredWithAWarning) {
  Options o;
  auto r = apply_opensm_conf("#ibsm: sm_priority 9\n", "f.conf", o, false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(o.sm_priority, 0);
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].id, kOpensmKeyInIbsmLine);
  EXPECT_THAT((*r)[0].message, AllOf(StartsWith("f.conf:1: "), HasSubstr("sm_priority")));
}

TEST(Extension, UnknownKeyOnAnIbsmLineIsAnUnknownKey) {
  Options o;
  auto r = apply_opensm_conf("#ibsm: no_such_key 1\n", "f.conf", o, false);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].id, kUnknownKey);
}

TEST(Extension, WrittenTomlHasTheIbsmTableAndReadsBack) {
  Options o;
  o.master_sm_priority = 9;
  const std::string text = write_toml(o);
  EXPECT_THAT(text, HasSubstr("\n[ibsm]\n"));
  EXPECT_THAT(text, HasSubstr("\nmaster_sm_priority = 9\n"));
  Options back;
  auto r = apply_toml(text, "written.toml", back);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(back, o);
}

TEST(Extension, ConfigFileAndCreateConfig) {
  TempDir dir;
  const auto file = dir.write("f.conf", "master_sm_priority 7\n");
  EXPECT_EQ(run_options(invoke({"-F", file, "--strict"})).master_sm_priority, 7);

  const auto toml = dir.write("f.toml", "[ibsm]\nmaster_sm_priority = 6\n");
  EXPECT_EQ(run_options(invoke({"-F", toml})).master_sm_priority, 6);

  const auto out = dir.path("out.conf");
  auto r = invoke({"-F", file, "-c", out});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(std::holds_alternative<ExitNow>(*r));
  EXPECT_EQ(perform(std::get<ExitNow>(*r)), 0);
  EXPECT_THAT(testing::slurp(out), HasSubstr("\n#ibsm: master_sm_priority 7\n"));
  // And back: the -c output read by ibsm gives the same value.
  EXPECT_EQ(run_options(invoke({"-F", out, "--strict"})).master_sm_priority, 7);
}

TEST(Extension, OutOfRangeInAConfigFileStopsTheStart) {
  TempDir dir;
  const auto file = dir.write("f.conf", "sm_priority 3\nmaster_sm_priority 99\n");
  auto r = invoke({"-F", file});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().id, kBadValue);
  EXPECT_THAT(r.error().message,
              AllOf(HasSubstr(file + ":2: "), HasSubstr("master_sm_priority"), HasSubstr("0-15")));
}

TEST(Extension, ConvertPrintsTheIbsmTable) {
  TempDir dir;
  const auto file = dir.write("f.conf", "master_sm_priority 4\n");
  auto r = invoke({"--convert", file});
  ASSERT_TRUE(r.ok()) << to_string(r.error());
  ASSERT_TRUE(std::holds_alternative<ExitNow>(*r));
  EXPECT_THAT(std::get<ExitNow>(*r).out, HasSubstr("[ibsm]\n"));
  EXPECT_THAT(std::get<ExitNow>(*r).out, HasSubstr("\nmaster_sm_priority = 4\n"));
}

TEST(Extension, SighupAppliesAChange) {
  TempDir dir;
  const auto file = dir.write("f.conf", "master_sm_priority 0\n");
  auto started = invoke({"-F", file});
  ASSERT_TRUE(started.ok());
  const conf::Run run = std::get<conf::Run>(*started);
  dir.write("f.conf", "master_sm_priority 14\n");
  auto r = reload_config(run.options, run.file_values, run.config_files);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->options.master_sm_priority, 14);
  EXPECT_THAT(r->changed, ElementsAre("master_sm_priority 0 -> 14"));
  EXPECT_TRUE(r->need_restart.empty());
}

}  // namespace
}  // namespace ibsm::conf
