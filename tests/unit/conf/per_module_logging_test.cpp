// per_module_logging_file and the module loggers: OpenSM's file format, its module
// names mapped onto ibsm's subsystems, file:line diagnostics, the runtime API
// (`permodlog`), and what reaches the log file.
#include "conf/per_module_logging.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include "common/log_modules.hpp"
#include "conf/errors.hpp"
#include "test_util.hpp"

namespace ibsm::conf {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::slurp;
using ::testing::StartsWith;
using testing::TempDir;

TEST(PerModuleLogging, OpensmFileReadsOntoIbsmModules) {
  auto r = parse_per_module_logging(
      "# per-module levels\n"
      "\n"
      "osm_sa.c 0x0f\n"
      "osm_inform.c=0x10\n"    // '=' as OpenSM's delimiter; same module as osm_sa.c
      "osm_ucast_ftree.c,8\n"  // ',' too; decimal
      "  osm_lid_mgr.c\t017 # octal, then a comment\n"
      "discovery 0x04\n",  // ibsm's own name
      "pml.conf");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->warnings.empty());
  EXPECT_EQ(r->flags_of(LogModule::kSa), 0x1fu);
  EXPECT_EQ(r->flags_of(LogModule::kRouting), 0x08u);
  EXPECT_EQ(r->flags_of(LogModule::kLid), 017u);
  EXPECT_EQ(r->flags_of(LogModule::kDiscovery), 0x04u);
  EXPECT_EQ(r->flags_of(LogModule::kMain), 0u);
}

TEST(PerModuleLogging, UnknownModuleIsAWarningNamingTheLineAndTheRestApplies) {
  auto r = parse_per_module_logging("osm_nonsense.c 0x0f\nosm_sa.c 0x08\n", "pml.conf");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].id, kPerModuleLogUnknownModule);
  EXPECT_THAT(r->warnings[0].message,
              AllOf(StartsWith("pml.conf:1: "), HasSubstr("osm_nonsense.c")));
  EXPECT_EQ(r->flags_of(LogModule::kSa), 0x08u);
}

TEST(PerModuleLogging, ExtraTextAfterTheLevelIsAWarning) {
  auto r = parse_per_module_logging("osm_sa.c 0x08 junk\nosm_sm.c 0x08 #fine\n", "p");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_THAT(r->warnings[0].message, StartsWith("p:1: "));
}

TEST(PerModuleLogging, BadLevelsRefuseTheFileNamingTheLine) {
  for (const char* text : {"osm_sa.c\n", "osm_sa.c # none\n", "osm_sa.c 0x100\n", "osm_sa.c high\n",
                           "osm_sa.c -1\n", "osm_sa.c 0x\n"}) {
    auto r = parse_per_module_logging(std::string("# c\n") + text, "pml.conf");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().id, kPerModuleLogSyntax);
    EXPECT_THAT(r.error().message, StartsWith("pml.conf:2: ")) << text;
  }
}

TEST(PerModuleLogging, MissingFileMeansNone) {
  TempDir dir;
  auto none = load_per_module_logging(dir.path("absent.conf"));
  ASSERT_TRUE(none.ok());
  for (const auto& m : log_modules())
    EXPECT_EQ(none->flags_of(m.id), 0u);
}

TEST(PerModuleLogging, EveryOpensmModuleMapsOntoOneIbsmModule) {
  // OpenSM 3.3.23's 91 module names (osm_subnet.c module_name_str).
  std::size_t n = 0;
  for (const auto& m : log_modules()) {
    n += m.opensm_modules.size();
    EXPECT_EQ(find_log_module(m.name), m.id) << m.name;
    for (auto f : m.opensm_modules)
      EXPECT_EQ(find_log_module(f), m.id) << f;
  }
  EXPECT_EQ(n, 91u);
  EXPECT_FALSE(find_log_module("osm_nothing.c").has_value());
}

LogSettings file_at(const std::string& path, unsigned flags) {
  LogSettings s;
  s.file = path;
  s.flags = flags;
  return s;
}

// A module logs with log_flags OR its own flags; the others keep the global level.
TEST(ModuleLoggers, ModuleFlagsAddToTheGlobalLevel) {
  TempDir dir;
  const auto path = dir.path("opensm.log");
  auto root = make_logger(file_at(path, 0x03));
  auto sa = module_logger(root, LogModule::kSa);
  auto routing = module_logger(root, LogModule::kRouting);
  EXPECT_EQ(sa, module_logger(root, LogModule::kSa));  // one logger per module
  sa->debug("sa debug before");
  ASSERT_TRUE(set_module_log_flags(root, LogModule::kSa, 0x08));
  EXPECT_EQ(module_log_flags(root, LogModule::kSa), 0x08u);
  sa->debug("sa debug after");
  sa->trace("sa trace after");
  routing->debug("routing debug");
  routing->info("routing info");
  root->debug("root debug");
  root->flush();
  const std::string text = slurp(path);
  EXPECT_THAT(text, Not(HasSubstr("sa debug before")));
  EXPECT_THAT(text, HasSubstr("0x04 -> sa debug after"));
  EXPECT_THAT(text, HasSubstr("0x08 -> sa trace after"));
  EXPECT_THAT(text, Not(HasSubstr("routing debug")));
  EXPECT_THAT(text, HasSubstr("routing info"));
  EXPECT_THAT(text, Not(HasSubstr("root debug")));
}

// The root logger is the main module's: its flags raise what the root logs.
TEST(ModuleLoggers, MainModuleIsTheRootLogger) {
  TempDir dir;
  const auto path = dir.path("opensm.log");
  auto root = make_logger(file_at(path, 0x03));
  EXPECT_EQ(module_logger(root, LogModule::kMain), root);
  root->debug("root debug before");
  set_module_log_flags(root, LogModule::kMain, 0x04);
  root->debug("root debug after");
  module_logger(root, LogModule::kSa)->debug("sa debug");
  update_log_settings(root, file_at(path, 0x03));  // SIGHUP keeps the module's flags
  root->debug("root debug after sighup");
  set_module_log_flags(root, LogModule::kMain, 0);
  root->debug("root debug reset");
  root->flush();
  const std::string text = slurp(path);
  EXPECT_THAT(text, Not(HasSubstr("root debug before")));
  EXPECT_THAT(text, HasSubstr("root debug after"));
  EXPECT_THAT(text, HasSubstr("root debug after sighup"));
  EXPECT_THAT(text, Not(HasSubstr("sa debug")));
  EXPECT_THAT(text, Not(HasSubstr("root debug reset")));
}

TEST(ModuleLoggers, SighupLevelsReachModuleLoggers) {
  TempDir dir;
  const auto path = dir.path("opensm.log");
  auto root = make_logger(file_at(path, 0x03));
  auto mad = module_logger(root, LogModule::kMad);
  update_log_settings(root, file_at(path, 0x01));
  mad->info("hidden info");
  mad->error("shown error");
  update_log_settings(root, file_at(path, 0x07));
  mad->debug("shown verbose");
  root->flush();
  EXPECT_THAT(slurp(path), Not(HasSubstr("hidden info")));
  EXPECT_THAT(slurp(path), HasSubstr("shown error"));
  EXPECT_THAT(slurp(path), HasSubstr("shown verbose"));
}

TEST(ModuleLoggers, ApplyingAFileResetsModulesItDoesNotName) {
  TempDir dir;
  auto root = make_logger(file_at(dir.path("l"), 0x03));
  set_module_log_flags(root, LogModule::kQos, 0x0f);
  auto levels = parse_per_module_logging("osm_sa.c 0x04\n", "p");
  ASSERT_TRUE(levels.ok());
  apply_per_module_logging(root, *levels);
  EXPECT_EQ(module_log_flags(root, LogModule::kQos), 0u);
  EXPECT_EQ(module_log_flags(root, LogModule::kSa), 0x04u);
  EXPECT_THAT(format_per_module_logging(root), HasSubstr("sa          0x04"));
  reset_module_log_flags(root);
  EXPECT_EQ(module_log_flags(root, LogModule::kSa), 0u);
}

// A file in error leaves the levels in force; a good one replaces them.
TEST(ModuleLoggers, ReloadKeepsTheLevelsInForceWhenTheFileIsInError) {
  TempDir dir;
  auto root = make_logger(file_at(dir.path("l"), 0x03));
  const auto path = dir.write("pml.conf", "osm_sa.c 0x08\n");
  ASSERT_TRUE(reload_per_module_logging(root, path).ok());
  EXPECT_EQ(module_log_flags(root, LogModule::kSa), 0x08u);
  dir.write("pml.conf", "osm_sa.c 0x04\nosm_sm.c\n");
  auto bad = reload_per_module_logging(root, path);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, StartsWith(path + ":2: "));
  EXPECT_EQ(module_log_flags(root, LogModule::kSa), 0x08u);
  dir.write("pml.conf", "osm_sm.c 0x04\n");
  ASSERT_TRUE(reload_per_module_logging(root, path).ok());
  EXPECT_EQ(module_log_flags(root, LogModule::kSa), 0u);
  EXPECT_EQ(module_log_flags(root, LogModule::kMain), 0x04u);
}

// Loggers not made by make_logger (tests' capture loggers) serve every module.
TEST(ModuleLoggers, OtherLoggersServeEveryModuleThemselves) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  auto plain = std::make_shared<spdlog::logger>("t", sink);
  EXPECT_EQ(module_logger(plain, LogModule::kSa), plain);
  EXPECT_FALSE(set_module_log_flags(plain, LogModule::kSa, 0x08));
  EXPECT_EQ(module_log_flags(plain, LogModule::kSa), 0u);
}

}  // namespace
}  // namespace ibsm::conf
