// The daemon's composition root (daemon/): what an operator sees of the pid file, the
// signals, and the wiring of ctl/ and metrics/ settings from the options.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "conf/errors.hpp"
#include "conf/options.hpp"
#include "daemon/operator_side.hpp"
#include "daemon/pidfile.hpp"
#include "daemon/signals.hpp"
#include "metrics/errors.hpp"
#include "tests/support/log_capture.hpp"

namespace ibsm::daemon {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ibsm-daemon-test.XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(DaemonPidfile, WritesThePidAndRemovesTheFileOnExit) {
  TempDir dir;
  const auto path = dir.path() / "ibsm.pid";
  {
    std::ofstream(path) << "stale 12345\n";  // an old file of that name is replaced
    Pidfile pidfile(path.string());
    ASSERT_TRUE(pidfile.write().ok());
    EXPECT_EQ(read_file(path), std::to_string(::getpid()) + "\n");
  }
  EXPECT_FALSE(fs::exists(path));
}

// The attacker of docs/security.md's "Files the SM writes" row: whoever can write in
// the pid file's directory plants a link there to a file root owns. The SM replaces
// the link; the file it pointed at keeps its contents.
TEST(DaemonPidfile, ALinkPlantedAtTheNameIsReplacedNotFollowed) {
  TempDir dir;
  const auto victim = dir.path() / "victim";
  std::ofstream(victim) << "precious\n";
  const auto path = dir.path() / "ibsm.pid";
  fs::create_symlink(victim, path);
  Pidfile pidfile(path.string());
  ASSERT_TRUE(pidfile.write().ok());
  EXPECT_EQ(read_file(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(path));
  EXPECT_EQ(read_file(path), std::to_string(::getpid()) + "\n");
}

TEST(DaemonPidfile, AFileThatCannotBeWrittenIsAnErrorNamingIt) {
  TempDir dir;
  const auto path = dir.path() / "missing-dir" / "ibsm.pid";
  Pidfile pidfile(path.string());
  auto st = pidfile.write();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().id, conf::kPidfileUnwritable);
  EXPECT_NE(st.error().message.find(path.string()), std::string::npos) << st.error().message;
}

TEST(DaemonPidfile, NoPathWritesNothing) {
  Pidfile pidfile("");
  EXPECT_TRUE(pidfile.write().ok());
}

TEST(DaemonSignals, EachSignalSetsItsFlagOnly) {
  sm::ControlFlags control;
  SignalRouting routing(control);
  ASSERT_EQ(::raise(SIGHUP), 0);
  EXPECT_TRUE(control.heavy_sweep.load());
  EXPECT_FALSE(control.stop.load());
  ASSERT_EQ(::raise(SIGUSR1), 0);
  EXPECT_TRUE(control.reopen_log.load());
  ASSERT_EQ(::raise(SIGUSR2), 0);
  EXPECT_TRUE(control.handover.load());
  EXPECT_FALSE(control.stop.load());
  ASSERT_EQ(::raise(SIGTERM), 0);
  EXPECT_TRUE(control.stop.load());
  control.stop.store(false);
  ASSERT_EQ(::raise(SIGINT), 0);
  EXPECT_TRUE(control.stop.load());
  ASSERT_EQ(::raise(SIGPIPE), 0);  // ignored: a closed peer does not end the daemon
}

TEST(DaemonSignals, AfterTheRunSignalsReachNoFlags) {
  sm::ControlFlags control;
  { SignalRouting routing(control); }
  ASSERT_EQ(::raise(SIGHUP), 0);
  ASSERT_EQ(::raise(SIGTERM), 0);  // handled, not fatal, and the old flags stay untouched
  EXPECT_FALSE(control.heavy_sweep.load());
  EXPECT_FALSE(control.stop.load());
}

TEST(DaemonOperatorSide, MetricsListenIsCheckedBeforeTheStart) {
  conf::Options options;
  auto none = metrics_listen_address(options);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  options.metrics_listen = "127.0.0.1:9683";
  auto at = metrics_listen_address(options);
  ASSERT_TRUE(at.ok());
  EXPECT_TRUE(at->has_value());
  options.metrics_listen = "nonsense";
  auto bad = metrics_listen_address(options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().id, metrics::kErrMetricsListen);
}

TEST(DaemonOperatorSide, CtlSettingsFollowTheOptions) {
  std::ostringstream out;
  auto log = testsupport::capture_log(out);
  conf::Options options;
  options.ctl_socket = "none";
  options.ctl_group = "ibadmin";
  options.console = "loopback";
  options.console_port = 10001;
  options.ctl_idle_timeout = 7;
  options.ctl_max_connections = 9;
  auto s = ctl_server_settings(options, log);
  EXPECT_EQ(s.socket_path, "");
  EXPECT_EQ(s.group, "ibadmin");
  EXPECT_EQ(s.console, "loopback");
  EXPECT_EQ(s.console_port, 10001);
  EXPECT_EQ(s.idle_timeout, std::chrono::seconds(7));
  EXPECT_EQ(s.max_connections, 9u);
  EXPECT_EQ(out.str(), "");
  options.ctl_socket = "/tmp/x.sock";
  EXPECT_EQ(ctl_server_settings(options, log).socket_path, "/tmp/x.sock");
}

TEST(DaemonOperatorSide, ALocalConsoleIsNotStartedInTheBackground) {
  std::ostringstream out;
  auto log = testsupport::capture_log(out);
  conf::Options options;
  options.ctl_socket = "none";
  options.console = "local";
  options.daemon = true;
  EXPECT_EQ(ctl_server_settings(options, log).console, "off");
  EXPECT_EQ(out.str(), "warning console local needs ibsm in the foreground; not started (-B)\n");
  options.daemon = false;
  EXPECT_EQ(ctl_server_settings(options, log).console, "local");
}

}  // namespace
}  // namespace ibsm::daemon
