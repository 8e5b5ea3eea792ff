// The command line: OpenSM's flags, getopt_long_only spellings, refusals,
// precedence defaults < default file < -F file < flags.
#include "conf/invocation.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "conf/errors.hpp"
#include "test_util.hpp"

namespace ibsm::conf {
namespace {

using ::testing::HasSubstr;
using testing::invoke;
using testing::run_options;
using testing::TempDir;

Error invoke_err(std::vector<std::string> args) {
  auto r = invoke(std::move(args));
  EXPECT_FALSE(r.ok());
  return r.ok() ? Error{} : r.error();
}

TEST(Invocation, NoArgumentsGiveDefaults) {
  const Options o = run_options(invoke({}));
  EXPECT_EQ(o, Options{});
}

TEST(Invocation, ShortAndLongForms) {
  EXPECT_EQ(run_options(invoke({"-p", "5"})).sm_priority, 5);
  EXPECT_EQ(run_options(invoke({"-p5"})).sm_priority, 5);
  EXPECT_EQ(run_options(invoke({"--priority", "6"})).sm_priority, 6);
  EXPECT_EQ(run_options(invoke({"--priority=7"})).sm_priority, 7);
  EXPECT_EQ(run_options(invoke({"-s", "0"})).sweep_interval, 0u);
  EXPECT_EQ(run_options(invoke({"--retries", "9"})).transaction_retries, 9u);
}

TEST(Invocation, SingleDashLongOptionsAsGetoptLongOnly) {
  EXPECT_TRUE(run_options(invoke({"-once"})).once);
  EXPECT_EQ(run_options(invoke({"-guid", "0x1234"})).guid, 0x1234u);
  EXPECT_EQ(run_options(invoke({"-priority", "3"})).sm_priority, 3);
  EXPECT_EQ(run_options(invoke({"-sweep=4"})).sweep_interval, 4u);
  EXPECT_EQ(run_options(invoke({"-subnet_prefix", "fe80000000000002"})).subnet_prefix,
            0xfe80000000000002ULL);
}

TEST(Invocation, UnambiguousPrefixesSelectTheLongOption) {
  EXPECT_EQ(run_options(invoke({"--prio", "2"})).sm_priority, 2);
  EXPECT_EQ(run_options(invoke({"-swe", "8"})).sweep_interval, 8u);
  const Error e = invoke_err({"--con", "x"});
  EXPECT_EQ(e.id, kBadCommandLine);
  EXPECT_THAT(e.message, HasSubstr("ambiguous"));
}

TEST(Invocation, GuidAndSmKeyAreHexWithOptional0x) {
  EXPECT_EQ(run_options(invoke({"-g", "0002c90300001234"})).guid, 0x0002c90300001234ULL);
  EXPECT_EQ(run_options(invoke({"-g", "0x10"})).guid, 0x10u);
  EXPECT_EQ(run_options(invoke({"-k", "10"})).sm_key, 0x10u);
}

TEST(Invocation, VerbosityFlags) {
  EXPECT_EQ(run_options(invoke({"-v"})).log_flags, 0x07);
  EXPECT_EQ(run_options(invoke({"-v", "-v"})).log_flags, 0x0f);
  EXPECT_EQ(run_options(invoke({"-vvv"})).log_flags, 0x1f);
  const Options big_v = run_options(invoke({"-V"}));
  EXPECT_EQ(big_v.log_flags, 0xff);
  EXPECT_TRUE(big_v.force_log_flush);
  EXPECT_EQ(run_options(invoke({"-D", "0x41"})).log_flags, 0x41);
  EXPECT_EQ(run_options(invoke({"-D", "0x01", "-v"})).log_flags, 0x03);
  EXPECT_TRUE(run_options(invoke({"-d", "2"})).force_log_flush);
}

TEST(Invocation, LoggingAndDaemonFlags) {
  const Options o = run_options(invoke(
      {"-f", "stdout", "-L", "10", "-e", "-B", "-J", "/run/ibsm.pid", "--log_prefix", "fab1"}));
  EXPECT_EQ(o.log_file, "stdout");
  EXPECT_EQ(o.log_max_size, 10u);
  EXPECT_FALSE(o.accum_log_file);
  EXPECT_TRUE(o.daemon);
  EXPECT_EQ(o.pidfile, "/run/ibsm.pid");
  EXPECT_EQ(o.log_prefix, "fab1");
}

TEST(Invocation, RoutingAndPartitionFlags) {
  const Options o = run_options(
      invoke({"-R", "minhop,no_fallback", "-P", "/tmp/p.conf", "-Z", "in", "-l", "2", "-r"}));
  EXPECT_EQ(o.routing_engine, "minhop,no_fallback");
  EXPECT_EQ(o.partition_config_file, "/tmp/p.conf");
  EXPECT_EQ(o.part_enforce, "in");
  EXPECT_EQ(o.lmc, 2);
  EXPECT_TRUE(o.reassign_lids);
}

TEST(Invocation, BadFlagValuesNameFlagAndRange) {
  Error e = invoke_err({"-p", "16"});
  EXPECT_EQ(e.id, kBadValue);
  EXPECT_THAT(e.message, HasSubstr("-p"));
  EXPECT_THAT(e.message, HasSubstr("0-15"));
  e = invoke_err({"--lmc", "8"});
  EXPECT_THAT(e.message, HasSubstr("0-7"));
  e = invoke_err({"-Z", "sideways"});
  EXPECT_EQ(e.id, kBadValue);
}

TEST(Invocation, UnimplementedFlagsAreRefusedByName) {
  EXPECT_EQ(invoke_err({"-d", "5"}).id, kUnimplementedFlag);
}

// -d N as OpenSM's main.c: each debug mode sets its option.
TEST(Invocation, DebugModesSetTheirOptions) {
  const Options zero = run_options(invoke({"-d", "0"}));
  EXPECT_TRUE(zero.ignore_other_sm);
  EXPECT_FALSE(zero.disable_multicast);
  EXPECT_TRUE(run_options(invoke({"-d", "1"})).single_thread);
  EXPECT_TRUE(run_options(invoke({"-d2"})).force_log_flush);
  EXPECT_TRUE(run_options(invoke({"--debug", "3"})).disable_multicast);
  EXPECT_TRUE(run_options(invoke({"-debug=0x3"})).disable_multicast);
  const Options both = run_options(invoke({"-d", "0", "-d", "3"}));
  EXPECT_TRUE(both.ignore_other_sm && both.disable_multicast);
  EXPECT_EQ(invoke_err({"-d", "zero"}).id, kBadValue);
}

TEST(Invocation, UnknownDebugModeIsIgnoredWithAWarning) {
  auto r = invoke({"-d", "7"});
  ASSERT_TRUE(r.ok());
  const auto& run = std::get<conf::Run>(*r);
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_EQ(run.warnings[0].id, kDebugModeIgnored);
  EXPECT_THAT(run.warnings[0].message, HasSubstr("-d"));
  EXPECT_EQ(run.options, run_options(invoke({})));
}

// OpenSM's getopt table has "V" and "D" as long options too.
TEST(Invocation, LongVAndD) {
  const Options v = run_options(invoke({"--V"}));
  EXPECT_EQ(v.log_flags, 0xff);
  EXPECT_TRUE(v.force_log_flush);
  EXPECT_EQ(run_options(invoke({"--D", "0x0f"})).log_flags, 0x0f);
  EXPECT_EQ(run_options(invoke({"--D=0x07"})).log_flags, 0x07);
  EXPECT_EQ(run_options(invoke({"-D", "0x03"})).log_flags, 0x03);
  EXPECT_EQ(run_options(invoke({"-V"})).log_flags, 0xff);
}

TEST(Invocation, ConsoleFlagsAsOpenSmAndSocketRefused) {
  const Options o = run_options(invoke({"-q", "loopback", "-C", "10123"}));
  EXPECT_EQ(o.console, "loopback");
  EXPECT_EQ(o.console_port, 10123);
  EXPECT_EQ(run_options(invoke({"--console", "local"})).console, "local");
  const Error e = invoke_err({"-q", "socket"});
  EXPECT_EQ(e.id, kConsoleSocketRefused);
  EXPECT_THAT(e.message, HasSubstr("ibsm-ctl"));
  EXPECT_EQ(invoke_err({"-q", "everywhere"}).id, kBadValue);
  EXPECT_EQ(invoke_err({"-C", "0"}).id, kBadValue);
}

TEST(Invocation, CtlAndEventsFlagsSetTheirKeys) {
  const Options o =
      run_options(invoke({"--ctl-socket", "/tmp/x.sock", "--events-file", "/tmp/ev"}));
  EXPECT_EQ(o.ctl_socket, "/tmp/x.sock");
  EXPECT_EQ(o.events_file, "/tmp/ev");
}

TEST(Invocation, PerfmgrFlagsSetTheirKeys) {
  const Options o = run_options(invoke({"--perfmgr", "--perfmgr_sweep_time_s", "7"}));
  EXPECT_TRUE(o.perfmgr);
  EXPECT_EQ(o.perfmgr_sweep_time_s, 7);
  EXPECT_FALSE(run_options(invoke({})).perfmgr);
}

// Issue 27: -N, --congestion_control, --cc_key and --prefix_routes_file act.
TEST(Invocation, NoPartEnforceTurnsPartEnforceOffAsOpensm) {
  const Options o = run_options(invoke({"-N"}));
  EXPECT_TRUE(o.no_partition_enforcement);
  EXPECT_EQ(o.part_enforce, "off");  // osm_subn_verify_config: -c writes both
  EXPECT_EQ(run_options(invoke({"--no_part_enforce", "-Z", "in"})).part_enforce, "off");
  EXPECT_EQ(run_options(invoke({"-Z", "in"})).part_enforce, "in");
}

TEST(Invocation, CongestionAndPrefixRouteFlagsSetTheirKeys) {
  const Options o = run_options(invoke({"--congestion_control", "--cc_key", "0x1234",
                                        "--prefix_routes_file", "/etc/ibsm/routes.conf"}));
  EXPECT_TRUE(o.congestion_control);
  EXPECT_EQ(o.cc_key, 0x1234u);
  EXPECT_EQ(o.prefix_routes_file, "/etc/ibsm/routes.conf");
  EXPECT_EQ(run_options(invoke({"--cc_key", "10"})).cc_key, 10u);  // strtoull base 0
}

TEST(Invocation, QosFlagSetsQos) {
  EXPECT_TRUE(run_options(invoke({"-Q"})).qos);
  EXPECT_TRUE(run_options(invoke({"--qos"})).qos);
  EXPECT_FALSE(run_options(invoke({})).qos);
}

TEST(Invocation, RoutingEngineFlagsSetTheirKeys) {
  const Options o =
      run_options(invoke({"-R", "nue,lash", "--nue_max_num_vls", "4", "--lash_start_vl", "2"}));
  EXPECT_EQ(o.nue_max_num_vls, 4);
  EXPECT_EQ(o.lash_start_vl, 2);
}

TEST(Invocation, StayOnFatalClearsExitOnFatal) {
  auto r = invoke({"-y"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(std::holds_alternative<conf::Run>(*r));
  EXPECT_FALSE(std::get<conf::Run>(*r).options.exit_on_fatal);
  r = invoke({});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(std::get<conf::Run>(*r).options.exit_on_fatal);
}

TEST(Invocation, QosPolicyFileFlagIsTaken) {
  auto r = invoke({"-Q", "-Y", "/etc/site/qos-policy.conf"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(std::holds_alternative<conf::Run>(*r));
  const auto& o = std::get<conf::Run>(*r).options;
  EXPECT_TRUE(o.qos);
  EXPECT_EQ(o.qos_policy_file, "/etc/site/qos-policy.conf");
  r = invoke({"--qos_policy_file", "/q.conf"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(std::get<conf::Run>(*r).options.qos_policy_file, "/q.conf");
}

TEST(Invocation, ElectionFlagsSetTheirKeys) {
  auto r = invoke({"-I", "-x"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(std::holds_alternative<conf::Run>(*r));
  const auto& o = std::get<conf::Run>(*r).options;
  EXPECT_TRUE(o.sm_inactive);
  EXPECT_TRUE(o.honor_guid2lid_file);
  EXPECT_TRUE(o.given.contains("sm_inactive"));
}

TEST(Invocation, UnknownFlagsAndStrayArgumentsAreErrors) {
  EXPECT_EQ(invoke_err({"--frobnicate"}).id, kBadCommandLine);
  EXPECT_EQ(invoke_err({"stray"}).id, kBadCommandLine);
  EXPECT_EQ(invoke_err({"-p"}).id, kBadCommandLine);  // missing argument
}

TEST(Invocation, HelpAndVersionExitZero) {
  for (const char* flag : {"-h", "--help", "-?", "-help"}) {
    auto r = invoke({flag});
    ASSERT_TRUE(r.ok()) << flag;
    ASSERT_TRUE(std::holds_alternative<ExitNow>(*r)) << flag;
    EXPECT_EQ(std::get<ExitNow>(*r).code, 0);
    EXPECT_THAT(std::get<ExitNow>(*r).out, HasSubstr("--priority"));
    EXPECT_THAT(std::get<ExitNow>(*r).out, HasSubstr("(not implemented)"));
  }
  auto v = invoke({"--version"});
  ASSERT_TRUE(v.ok());
  EXPECT_THAT(std::get<ExitNow>(*v).out, HasSubstr("ibsm"));
}

TEST(Invocation, PrecedenceDefaultsThenDefaultFileThenConfigFileThenFlags) {
  TempDir dir;
  Environment env = testing::test_env();
  env.default_config_file =
      dir.write("default.conf", "sm_priority 1\nsweep_interval 20\nlmc 1\nlog_flags 0x07\n");
  const auto file = dir.write("f.conf", "sm_priority 2\nsweep_interval 30\n");

  Options o = run_options(invoke({"-F", file, "-p", "3"}, env));
  EXPECT_EQ(o.sm_priority, 3);       // flag wins
  EXPECT_EQ(o.sweep_interval, 30u);  // -F file over default file
  EXPECT_EQ(o.lmc, 1);               // default file over compiled default
  EXPECT_EQ(o.transaction_timeout, 200u);
  EXPECT_EQ(o.config_file, file);
  // -v shifts the flags loaded from the files, as in OpenSM.
  EXPECT_EQ(run_options(invoke({"-v"}, env)).log_flags, 0x0f);
  // Flags before -F still win over the file: the file is read first.
  EXPECT_EQ(run_options(invoke({"-p", "4", "-F", file}, env)).sm_priority, 4);
}

TEST(Invocation, EnvironmentSetsCacheAndTmpDirs) {
  Environment env = testing::test_env();
  env.vars["OSM_CACHE_DIR"] = "/tmp/cache";
  env.vars["OSM_TMP_DIR"] = "/tmp/tmp";
  const Options o = run_options(invoke({}, env));
  EXPECT_EQ(o.cache_dir, "/tmp/cache");
  EXPECT_EQ(o.tmp_dir, "/tmp/tmp");
  EXPECT_EQ(run_options(invoke({})).cache_dir, "/var/cache/opensm");
}

// Every OpenSM key acts now (none is "[not implemented]"): a file of them gives no
// warning, and OpenSM's event plugins, which cannot load into ibsm, are refused by name.
TEST(Invocation, KeysInTheFileActAndEventPluginsAreRefused) {
  TempDir dir;
  const auto ok = dir.write("ok.conf", "qos TRUE\nsm_priority 3\nperfmgr_redir TRUE\n");
  auto r = invoke({"-F", ok});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(std::get<conf::Run>(*r).warnings.empty());
  const auto plugin = dir.write("plugin.conf", "qos TRUE\nevent_plugin_name x\n");
  const Error e = invoke_err({"-F", plugin});
  EXPECT_EQ(e.id, kEventPluginRefused);
  EXPECT_THAT(e.message, HasSubstr("event_plugin_name"));
}

TEST(Invocation, TrapAndFatalKeysAreImplementedAndReachTheOptions) {
  TempDir dir;
  const auto file = dir.write("f.conf",
                              "sweep_on_trap FALSE\nbabbling_port_policy TRUE\nexit_on_fatal "
                              "FALSE\nlmc_esp0 TRUE\nsingle_thread TRUE\nmax_msg_fifo_timeout "
                              "5000\n");
  auto r = invoke({"-F", file});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& run = std::get<conf::Run>(*r);
  EXPECT_TRUE(run.warnings.empty()) << run.warnings[0].message;
  const Options& o = run.options;
  EXPECT_FALSE(o.sweep_on_trap);
  EXPECT_TRUE(o.babbling_port_policy);
  EXPECT_FALSE(o.exit_on_fatal);
  EXPECT_TRUE(o.lmc_esp0);
  EXPECT_TRUE(o.single_thread);
  EXPECT_EQ(o.max_msg_fifo_timeout, 5000u);
}

TEST(Invocation, ConfigFileErrorsStopStartUp) {
  TempDir dir;
  const auto file = dir.write("f.conf", "sm_priority 99\n");
  const Error e = invoke_err({"-F", file});
  EXPECT_EQ(e.id, kBadValue);
  EXPECT_THAT(e.message, HasSubstr(file + ":1"));
  EXPECT_EQ(invoke_err({"-F", dir.path("missing.conf")}).id, kFileUnreadable);
}

TEST(Invocation, EventPluginsAreRefusedNamingTheEventStream) {
  TempDir dir;
  for (const char* line : {"event_plugin_name osmeventplugin\n", "event_plugin_options x\n"}) {
    const auto file = dir.write("f.conf", line);
    const Error e = invoke_err({"-F", file});
    EXPECT_EQ(e.id, kEventPluginRefused) << line;
    EXPECT_THAT(e.message, HasSubstr("ibsm-ctl events"));
    EXPECT_THAT(e.message, HasSubstr("metrics"));
  }
}

TEST(Invocation, StrictMakesUnknownKeysErrors) {
  TempDir dir;
  const auto file = dir.write("f.conf", "bogus_key 1\n");
  auto lenient = invoke({"-F", file});
  ASSERT_TRUE(lenient.ok());
  EXPECT_EQ(std::get<conf::Run>(*lenient).warnings.size(), 1u);
  EXPECT_EQ(invoke_err({"--strict", "-F", file}).id, kUnknownKey);
}

TEST(Invocation, CreateConfigWritesTheMergedConfiguration) {
  TempDir dir;
  const auto file = dir.write("f.conf", "sweep_interval 30\n");
  const auto out = dir.path("out.conf");
  auto r = invoke({"-F", file, "-p", "9", "-c", out});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(std::holds_alternative<ExitNow>(*r));
  EXPECT_EQ(perform(std::get<ExitNow>(*r)), 0);
  const std::string text = testing::slurp(out);
  EXPECT_THAT(text, HasSubstr("\nsm_priority 9\n"));
  EXPECT_THAT(text, HasSubstr("\nsweep_interval 30\n"));
  // and it reads back
  const Options o = run_options(invoke({"-F", out}));
  EXPECT_EQ(o.sm_priority, 9);
  EXPECT_EQ(o.sweep_interval, 30u);
}

TEST(Invocation, CreateConfigToAnUnwritablePathFails) {
  auto r = invoke({"-c", "/nonexistent-dir/x.conf"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(perform(std::get<ExitNow>(*r)), 1);
}

}  // namespace
}  // namespace ibsm::conf
