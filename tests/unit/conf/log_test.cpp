// The OpenSM-like log file: line shape, size limit, reopen, syslog filter.
#include "common/log.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "conf/log_settings.hpp"
#include "test_util.hpp"

namespace ibsm {
namespace {

using conf::testing::slurp;
using conf::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

LogSettings file_settings(const std::string& path) {
  LogSettings s;
  s.file = path;
  return s;
}

TEST(Log, LineShapeFollowsOpensm) {
  TempDir dir;
  const auto path = dir.path("opensm.log");
  {
    auto log = make_logger(file_settings(path));
    log->info("SUBNET UP");
    log->error("bad thing");
    log->flush();
  }
  const std::string text = slurp(path);
  const std::regex line(
      R"([A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2} \d{6} \[[0-9A-F]{4,}\] 0x02 -> SUBNET UP\n)");
  EXPECT_TRUE(std::regex_search(text, line)) << text;
  EXPECT_THAT(text, HasSubstr("0x01 -> bad thing"));
}

TEST(Log, FlagsSelectLevels) {
  TempDir dir;
  const auto path = dir.path("opensm.log");
  LogSettings s = file_settings(path);
  s.flags = 0x01;
  {
    auto log = make_logger(s);
    log->info("hidden info");
    log->error("shown error");
    log->flush();
  }
  EXPECT_THAT(slurp(path), Not(HasSubstr("hidden info")));
  EXPECT_THAT(slurp(path), HasSubstr("shown error"));
}

TEST(Log, AccumulateAppendsEraseTruncates) {
  TempDir dir;
  const auto path = dir.write("opensm.log", "old line\n");
  make_logger(file_settings(path))->flush();
  EXPECT_THAT(slurp(path), HasSubstr("old line"));
  LogSettings erase = file_settings(path);
  erase.accumulate = false;
  make_logger(erase)->flush();
  EXPECT_THAT(slurp(path), Not(HasSubstr("old line")));
}

TEST(Log, ExceedingMaxSizeTruncatesAndContinues) {
  TempDir dir;
  const auto path = dir.path("opensm.log");
  LogSettings s = file_settings(path);
  s.max_bytes = 300;
  s.flush_each = true;
  auto log = make_logger(s);
  for (int i = 0; i < 20; ++i)
    log->info("message number {}", i);
  log->flush();
  const auto size = std::filesystem::file_size(path);
  EXPECT_LE(size, 300u + 80u);
  EXPECT_THAT(slurp(path), HasSubstr("message number 19"));
  EXPECT_THAT(slurp(path), Not(HasSubstr("message number 0\n")));
}

TEST(Log, ReopenFollowsLogrotate) {
  TempDir dir;
  const auto path = dir.path("opensm.log");
  auto log = make_logger(file_settings(path));
  log->info("before rotate");
  log->flush();
  std::filesystem::rename(path, path + ".1");
  ASSERT_TRUE(reopen_log(log));
  log->info("after rotate");
  log->flush();
  EXPECT_THAT(slurp(path), HasSubstr("after rotate"));
  EXPECT_THAT(slurp(path), Not(HasSubstr("before rotate")));
  EXPECT_THAT(slurp(path + ".1"), HasSubstr("before rotate"));
}

TEST(Log, ImportantSinkGetsErrorsAndSystemEventsOnly) {
  TempDir dir;
  std::ostringstream important;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(important);
  sink->set_pattern("%v");
  LogSettings s = file_settings(dir.path("opensm.log"));
  s.flags = 0x01;  // file: errors only
  auto log = make_logger(s, sink);
  log->info("routine info");
  log->error("link failure");
  log_sys_event(log, "SUBNET UP");
  log->flush();
  EXPECT_THAT(important.str(), HasSubstr("link failure"));
  EXPECT_THAT(important.str(), HasSubstr("SUBNET UP"));
  EXPECT_THAT(important.str(), Not(HasSubstr("routine info")));
}

TEST(Log, UpdateSettingsChangesLevelAtRunTime) {
  TempDir dir;
  const auto path = dir.path("opensm.log");
  auto log = make_logger(file_settings(path));
  log->debug("verbose one");
  LogSettings more = file_settings(path);
  more.flags = 0x07;
  update_log_settings(log, more);
  log->debug("verbose two");
  log->flush();
  EXPECT_THAT(slurp(path), Not(HasSubstr("verbose one")));
  EXPECT_THAT(slurp(path), HasSubstr("verbose two"));
}

TEST(Log, SettingsFromOptions) {
  conf::Options o;
  o.log_file = "/tmp/x.log";
  o.log_flags = 0x0f;
  o.accum_log_file = false;
  o.force_log_flush = true;
  o.log_max_size = 2;
  o.log_prefix = "fabA";
  const LogSettings s = conf::log_settings(o);
  EXPECT_EQ(s.file, "/tmp/x.log");
  EXPECT_EQ(s.flags, 0x0fu);
  EXPECT_FALSE(s.accumulate);
  EXPECT_TRUE(s.flush_each);
  EXPECT_EQ(s.max_bytes, 2u * 1024 * 1024);
  EXPECT_TRUE(s.syslog);
  EXPECT_EQ(s.syslog_prefix, "fabA");
}

TEST(Log, UnopenableFileThrowsAtStartUp) {
  EXPECT_THROW(make_logger(file_settings("/nonexistent-dir/x.log")), std::runtime_error);
}

}  // namespace
}  // namespace ibsm
