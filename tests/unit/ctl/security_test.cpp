// ctl/: the control surfaces against a hostile local user (issue 38, docs/security.md).
// Identity from the kernel only (SO_PEERCRED, SO_PEERGROUPS) or the console token; the
// loopback console read-only without it, also against connect-send-close races; keys
// redacted in dump_conf for anyone but root; dump_portguid patterns in linear time;
// the socket set-up removes only a stale socket; refusals logged at a bounded rate on
// the injected clock; a worker survives a job that throws.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "common/clock.hpp"
#include "ctl/access_policy.hpp"
#include "ctl/command.hpp"
#include "ctl/console_token.hpp"
#include "ctl/errors.hpp"
#include "ctl/port_patterns.hpp"
#include "ctl/refusal_log.hpp"
#include "ctl/reports/reports.hpp"
#include "ctl/server.hpp"
#include "ctl/socket_setup.hpp"
#include "ctl/worker_pool.hpp"
#include "sm/subnet_manager.hpp"
#include "tests/fake/fake_fabric.hpp"
#include "tests/support/log_capture.hpp"
#include "tests/support/net_file.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/ctl/socket_client.hpp"

namespace ibsm::ctl {
namespace {

using namespace std::chrono_literals;

std::size_t occurrences(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

template <typename Pred>
bool within_10s(Pred pred, std::chrono::seconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

// Every command that changes the SM or the fabric (ctl/command.cpp: cmd.changes),
// each with its arguments.
const std::vector<std::string>& changing_commands() {
  static const std::vector<std::string> cmds = {
      "loglevel 0xff",
      "permodlog reload",
      "permodlog osm_lid_mgr.c 0xff",
      "priority 15",
      "resweep heavy",
      "resweep light",
      "reroute",
      "sweep off",
      "sweep on",
      "logflush on",
      "update_desc",
      "handover",
      "node_names reload",
      "dump_portguid file /tmp/ibsm-security-test-portguids .",
      "perfmgr enable",
      "perfmgr disable",
      "perfmgr clear_counters",
      "perfmgr dump_counters",
      "perfmgr dump_counters mach",
      "perfmgr set_rm_nodes",
      "perfmgr clear_rm_nodes",
      "perfmgr set_query_cpi",
      "perfmgr clear_query_cpi",
      "perfmgr clear_redir",
      "perfmgr sweep_time 5",
      "perfmgr xmit_wait_threshold 9",
      "health clear 0x0000000000000001 1",
  };
  return cmds;
}

TEST(ChangingCommands, TheListIsEveryChangingCommandOfTheParser) {
  for (const auto& line : changing_commands()) {
    auto c = parse_command(line);
    ASSERT_TRUE(c.ok()) << line;
    EXPECT_TRUE(c->changes) << line;
  }
  // Every command name that can change something appears in the list.
  for (const CommandSpec& s : command_specs()) {
    const bool listed =
        std::any_of(changing_commands().begin(), changing_commands().end(),
                    [&](const std::string& l) { return l.substr(0, l.find(' ')) == s.name; });
    const bool never_changes =
        s.id == CommandId::kHelp || s.id == CommandId::kQuit || s.id == CommandId::kStatus ||
        s.id == CommandId::kQueryLid || s.id == CommandId::kPortStatus ||
        s.id == CommandId::kSwitchBalance || s.id == CommandId::kLidBalance ||
        s.id == CommandId::kDumpConf || s.id == CommandId::kVersion || s.id == CommandId::kRoutes ||
        s.id == CommandId::kPartitions || s.id == CommandId::kEvents ||
        s.id == CommandId::kTopoDiff || s.id == CommandId::kDegraded ||
        s.id == CommandId::kTopology;
    EXPECT_TRUE(listed || never_changes) << s.name;
  }
}

// --- the access rule ----------------------------------------------------------------

TEST(AccessPolicy, GroupMembersReadRootChangesAndSeesKeys) {
  const Peer member = decide_access(1000, {100, 4242}, 0, 4242u);
  EXPECT_TRUE(member.may_read);
  EXPECT_FALSE(member.may_change);
  EXPECT_FALSE(member.sees_secrets);
  const Peer stranger = decide_access(1000, {100}, 0, 4242u);
  EXPECT_FALSE(stranger.may_read);
  const Peer root = decide_access(0, {}, 0, std::nullopt);
  EXPECT_TRUE(root.may_change && root.sees_secrets);
  const Peer own = decide_access(500, {}, 500, std::nullopt);  // ibsm run as uid 500
  EXPECT_TRUE(own.may_change && own.sees_secrets);
}

TEST(AccessPolicy, TheLoopbackConsoleReadsOnlyUntilItShowsTheToken) {
  const Peer anon = console_peer("127.0.0.1:40000");
  EXPECT_TRUE(anon.may_read);
  EXPECT_FALSE(anon.may_change);
  EXPECT_FALSE(anon.sees_secrets);
  const Peer auth = console_authenticated(anon);
  EXPECT_TRUE(auth.may_change && auth.sees_secrets);
  EXPECT_NE(auth.describe.find("127.0.0.1:40000"), std::string::npos);
}

TEST(AccessPolicy, PeerGroupsComeFromTheKernelWhateverTheirNumber) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  const auto groups = peer_groups(sv[0]);
  ASSERT_TRUE(groups.has_value()) << "SO_PEERGROUPS (Linux >= 4.13)";
  std::vector<gid_t> mine(static_cast<std::size_t>(std::max(::getgroups(0, nullptr), 0)));
  ::getgroups(static_cast<int>(mine.size()), mine.data());
  EXPECT_EQ(groups->size(), mine.size());
  const Peer p = unix_peer(sv[0], ::geteuid(), std::nullopt);
  EXPECT_EQ(p.uid, ::geteuid());
  EXPECT_TRUE(p.known);
  EXPECT_NE(p.describe.find(fmt::format("pid {}", ::getpid())), std::string::npos);
  ::close(sv[0]);
  ::close(sv[1]);
}

// --- the console token --------------------------------------------------------------

TEST(ConsoleToken, ComparedWholeAndWrittenForItsOwnerOnly) {
  auto t = make_console_token();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->size(), kConsoleTokenHex);
  EXPECT_NE(*t, *make_console_token());
  EXPECT_TRUE(token_matches(*t, *t));
  EXPECT_FALSE(token_matches(t->substr(0, 63), *t));
  EXPECT_FALSE(token_matches(*t + "0", *t));
  EXPECT_FALSE(token_matches("", *t));
  EXPECT_FALSE(token_matches("", ""));  // no token: nothing matches
  std::string wrong = *t;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  EXPECT_FALSE(token_matches(wrong, *t));

  EXPECT_EQ(auth_line_token("auth abc"), std::optional<std::string_view>("abc"));
  EXPECT_EQ(auth_line_token("  auth\tabc  \r"), std::optional<std::string_view>("abc"));
  EXPECT_EQ(auth_line_token("auth"), std::optional<std::string_view>(""));
  EXPECT_FALSE(auth_line_token("author x").has_value());
  EXPECT_FALSE(auth_line_token("status").has_value());

  testsupport::TempDir dir;
  const std::string path = dir.path() + "/c.token";
  { std::ofstream(path) << "old\n"; }
  ::chmod(path.c_str(), 0644);
  ASSERT_TRUE(write_console_token(path, *t).ok());
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  std::string read;
  std::ifstream(path) >> read;
  EXPECT_EQ(read, *t);
  EXPECT_FALSE(write_console_token(dir.path() + "/no/such/dir", *t).ok());
}

// --- socket set-up ------------------------------------------------------------------

// A socket bound at `path`; listening if `listen_backlog` >= 0, else left unbound by
// anyone (closed: the file stays, stale).
int bind_at(const std::string& path, int listen_backlog) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof(a.sun_path), "%s", path.c_str());
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  if (listen_backlog >= 0) {
    EXPECT_EQ(::listen(fd, listen_backlog), 0);
    return fd;
  }
  ::close(fd);
  return -1;
}

TEST(SocketSetup, AStaleSocketIsReplaced) {
  testsupport::TempDir dir;
  const std::string path = dir.path() + "/ctl.sock";
  bind_at(path, -1);
  EXPECT_EQ(probe_socket_path(path).state, SocketPathState::kStale);
  bool replaced = false;
  auto fd = open_unix_listener(path, 8, &replaced);
  ASSERT_TRUE(fd.ok()) << to_string(fd.error());
  EXPECT_TRUE(replaced);
  EXPECT_EQ(probe_socket_path(path).state, SocketPathState::kLive);
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u);
  ::close(*fd);
}

TEST(SocketSetup, ALiveServersSocketIsNeverRemovedEvenWithItsBacklogFull) {
  testsupport::TempDir dir;
  const std::string path = dir.path() + "/ctl.sock";
  const int live = bind_at(path, 0);
  // Fill its backlog: connects that nobody accepts, until the kernel says EAGAIN.
  std::vector<int> waiting;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof(a.sun_path), "%s", path.c_str());
  for (int i = 0; i < 64; ++i) {
    const int c = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    const int rc = ::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    waiting.push_back(c);
    if (rc != 0 && errno == EAGAIN) break;
  }
  EXPECT_EQ(probe_socket_path(path).state, SocketPathState::kLive);
  auto fd = open_unix_listener(path, 8, nullptr);
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.error().id, kErrSocketSetup);
  EXPECT_NE(fd.error().message.find(path), std::string::npos);
  // Still the live server's: a new client reaches it once the backlog drains.
  for (int c : waiting)
    ::close(c);
  const int accepted_before = ::accept4(live, nullptr, nullptr, SOCK_NONBLOCK);
  if (accepted_before >= 0) ::close(accepted_before);
  Client probe(path);
  EXPECT_TRUE(probe.ok());
  ::close(live);
}

TEST(SocketSetup, WhatIsNotASocketIsRefusedNotRemoved) {
  testsupport::TempDir dir;
  const std::string file = dir.path() + "/ctl.sock";
  { std::ofstream(file) << "precious\n"; }
  EXPECT_EQ(probe_socket_path(file).state, SocketPathState::kNotSocket);
  auto fd = open_unix_listener(file, 8, nullptr);
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.error().message.find("not a socket"), std::string::npos) << fd.error().message;
  std::string kept;
  std::ifstream(file) >> kept;
  EXPECT_EQ(kept, "precious");
  // A link to a stale socket is a link: not followed, not removed.
  const std::string stale = dir.path() + "/stale.sock";
  bind_at(stale, -1);
  const std::string link = dir.path() + "/link.sock";
  ASSERT_EQ(::symlink(stale.c_str(), link.c_str()), 0);
  EXPECT_EQ(probe_socket_path(link).state, SocketPathState::kNotSocket);
  EXPECT_FALSE(open_unix_listener(link, 8, nullptr).ok());
  struct stat st {};
  EXPECT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(::lstat(stale.c_str(), &st), 0);
}

TEST(SocketSetup, TheProcessUmaskIsNotTouched) {
  testsupport::TempDir dir;
  const mode_t before = ::umask(027);
  auto fd = open_unix_listener(dir.path() + "/ctl.sock", 8, nullptr);
  const mode_t during = ::umask(before);
  EXPECT_EQ(during, 027u);
  ASSERT_TRUE(fd.ok());
  struct stat st {};
  ASSERT_EQ(::lstat((dir.path() + "/ctl.sock").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u);
  ::close(*fd);
}

// The socket's name appears only once it listens (it is bound under a temporary name and
// linked in): whoever sees the name can connect, and nothing else is left beside it.
TEST(SocketSetup, TheNameAppearsListeningAndAloneInItsDirectory) {
  testsupport::TempDir dir;
  const std::string path = dir.path() + "/ctl.sock";
  auto fd = open_unix_listener(path, 8, nullptr);
  ASSERT_TRUE(fd.ok()) << fd.error().message;
  EXPECT_EQ(probe_socket_path(path).state, SocketPathState::kLive);
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"ctl.sock"});
  ::close(*fd);
}

// --- dump_portguid's patterns -------------------------------------------------------

TEST(PortPatterns, CatastrophicBacktrackingPatternsTakeLinearTime) {
  const std::string desc = std::string(60, 'a') + "!";
  for (const std::string p : {"(a+)+$", "(a|a)*b", "(a*)*b", "((a+)+)+c", "(.*a){20}x"}) {
    const auto t0 = std::chrono::steady_clock::now();
    auto pats = DescriptionPatterns::compile({p});
    ASSERT_TRUE(pats.ok()) << p << ": " << pats.error().message;
    bool m = false;
    for (int i = 0; i < 1000; ++i)
      m = pats->matches(desc) || m;
    EXPECT_FALSE(m) << p;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s) << p;
  }
}

TEST(PortPatterns, PosixExtendedSyntaxAndRefusalsWithTheirId) {
  auto ok = [](std::string p, std::string_view text) {
    auto c = DescriptionPatterns::compile({std::move(p)});
    EXPECT_TRUE(c.ok());
    return c.ok() && c->matches(text);
  };
  EXPECT_TRUE(ok("^sw[[:digit:]]+ ", "sw12 leaf"));
  EXPECT_FALSE(ok("^sw[[:digit:]]+$", "sw12 leaf"));
  EXPECT_TRUE(ok("leaf|spine", "a spine"));
  EXPECT_TRUE(ok("a{2,3}", "xaax"));
  EXPECT_TRUE(ok(".", "anything"));
  EXPECT_TRUE(ok("\\.", "h1.mlx5"));
  EXPECT_TRUE(ok("[.]", "h1.mlx5"));
  EXPECT_TRUE(ok("[]a]", "x]"));
  for (const std::string bad :
       {"(ab", "a{2000}", "[[.a.]]", "[x[=a=]]", "(a)\\1", "(?=a)", "x{1000}{1000}"}) {
    auto c = DescriptionPatterns::compile({bad});
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.error().id, kErrPattern) << bad;
  }
  auto longer = DescriptionPatterns::compile({std::string(kMaxPatternBytes + 1, 'a')});
  ASSERT_FALSE(longer.ok());
  EXPECT_EQ(longer.error().id, kErrPattern);
}

// --- on a fabric: dump_portguid and dump_conf -----------------------------------------

// The NodeDescription of "hb" is 60 'a's and a '!': std::regex's backtracking took
// exponential time on `(a+)+$` against it.
constexpr std::string_view kNet = R"(Switch 2 "S"
[1] "ha"[1]
[2] "hb"[1]

Hca 1 "ha" # "host-a mlx5_0"
[1] "S"[1]

Hca 1 "hb" # "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"
[1] "S"[2]
)";

class HostileFabric : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = testsupport::parse_net(kNet);
    ASSERT_TRUE(d.ok());
    fabric = std::make_unique<fake::FakeFabric>(*d, clock);
    options.cache_dir = dir.path() + "/cache";
    options.m_key = 0x1122334455667788;
    options.sm_key = 0x2233445566778899;
    options.sa_key = 0x33445566778899aa;
    options.cc_key = 0x445566778899aabb;
    sm = std::make_unique<sm::SubnetManager>(*fabric, clock, logger, options);
    for (int i = 0; i < 200 && !(snap() && snap()->fabric); ++i)
      sm->step(control);
    ASSERT_TRUE(snap() && snap()->fabric);
  }
  std::shared_ptr<const ops::OpsSnapshot> snap() const { return sm->ops().snapshot.current(); }
  Answer ask(std::string_view line, bool secrets = false) {
    auto c = parse_command(line);
    EXPECT_TRUE(c.ok()) << line;
    return answer_read_only(*c, *snap(), sm->ops().events, secrets);
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

TEST_F(HostileFabric, ACatastrophicPatternIsAnsweredWithinASecond) {
  for (const std::string p : {"(a+)+$", "(a|a)*b", "(a|aa)*c"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const Answer a = ask("dump_portguid " + p);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s) << p;
    EXPECT_TRUE(a.ok) << a.text;
    EXPECT_EQ(a.text, "") << p;  // nothing matches
  }
  const Answer hit = ask("dump_portguid ^host-a");
  ASSERT_TRUE(hit.ok);
  EXPECT_EQ(occurrences(hit.text, "\n"), 1u) << hit.text;
  const Answer long_one = ask("dump_portguid ^a{60}!$");  // the description is there
  ASSERT_TRUE(long_one.ok);
  EXPECT_EQ(occurrences(long_one.text, "\n"), 1u) << long_one.text;
  const Answer refused = ask("dump_portguid (a)\\1");
  EXPECT_FALSE(refused.ok);
  EXPECT_EQ(refused.error, kErrPattern);
}

TEST_F(HostileFabric, DumpConfRedactsEveryKeyForAnyoneButRoot) {
  const Answer member = ask("dump_conf");
  ASSERT_TRUE(member.ok);
  for (const std::string_view v :
       {"1122334455667788", "2233445566778899", "33445566778899aa", "445566778899aabb"}) {
    EXPECT_EQ(member.text.find(v), std::string::npos) << v;
    EXPECT_EQ(member.json.find(v), std::string::npos) << v;
  }
  for (const std::string_view k : {"\nm_key <redacted>\n", "\nsm_key <redacted>\n",
                                   "\nsa_key <redacted>\n", "\ncc_key <redacted>\n"})
    EXPECT_NE(member.text.find(k), std::string::npos) << k;
  EXPECT_NE(member.text.find("\nm_key_lease_period 0\n"), std::string::npos);  // not a key
  const Answer root = ask("dump_conf", true);
  EXPECT_NE(root.text.find("m_key 0x1122334455667788"), std::string::npos);
  EXPECT_NE(root.text.find("cc_key 0x445566778899aabb"), std::string::npos);
}

TEST(Redaction, EverySecretLineWhateverItsForm) {
  EXPECT_TRUE(is_secret_option("m_key"));
  EXPECT_TRUE(is_secret_option("some_future_key"));
  EXPECT_TRUE(is_secret_option("console_secret"));
  EXPECT_FALSE(is_secret_option("m_key_lease_period"));
  EXPECT_FALSE(is_secret_option("allow_both_pkeys"));
  EXPECT_EQ(redact_secrets("# m_key comment\nm_key 0x1\n#ibsm: x_key 5\nsm_priority 1\nsa_key\n"),
            "# m_key comment\nm_key <redacted>\n#ibsm: x_key <redacted>\nsm_priority 1\nsa_key\n");
}

// --- the server: the loopback console and the Unix socket against a local attacker ---

// A FakeClock that the test thread may move while the server's thread reads it.
class SharedClock final : public Clock {
 public:
  TimePoint now() const override { return TimePoint(Duration(ticks_.load())); }
  void sleep_for(Duration d) const override { ticks_ += d.count(); }
  void advance(Duration d) { ticks_ += d.count(); }

 private:
  mutable std::atomic<Duration::rep> ticks_{Duration(1000s).count()};
};

class HostileConsole : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = std::make_shared<ops::OpsSnapshot>();
    s->version = "9.9";
    auto o = std::make_shared<conf::Options>();
    o->m_key = 0x1122334455667788;
    s->options = o;
    ops.snapshot.publish(s);
    ServerSettings st;
    st.socket_path = dir.path() + "/ctl.sock";
    st.console = "loopback";
    st.console_port = free_loopback_port();
    ASSERT_NE(st.console_port, 0);
    port = st.console_port;
    server = std::make_unique<ControlServer>(ops, logger, st, clock);
    server->start();
    std::ifstream(dir.path() + "/ctl.console-token") >> token;
    ASSERT_EQ(token.size(), kConsoleTokenHex);
  }
  void TearDown() override {
    server->stop();
    ::unlink("/tmp/ibsm-security-test-portguids");
  }
  // Requests that reached the SM's queue (a stand-in SM that answers nothing).
  std::size_t reached_sm() {
    taken += ops.control.take().size();
    return taken;
  }
  std::string log() {
    logger->flush();
    return log_text.str();
  }

  struct Term {
    int fd = -1;
    std::string got;
    ~Term() {
      if (fd >= 0) ::close(fd);
    }
    std::string until_prompt() {
      char buf[4096];
      for (;;) {
        const auto at = got.find("ibsm $ ");
        if (at != std::string::npos) {
          std::string text = got.substr(0, at);
          got.erase(0, at + 7);
          return text;
        }
        const ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n <= 0) return got + "<eof>";
        got.append(buf, static_cast<std::size_t>(n));
      }
    }
    std::string ask(std::string_view line) {
      std::string l(line);
      l += '\n';
      ::send(fd, l.data(), l.size(), MSG_NOSIGNAL);
      return until_prompt();
    }
  };
  std::unique_ptr<Term> term() {
    auto t = std::make_unique<Term>();
    t->fd = connect_loopback(port);
    EXPECT_GE(t->fd, 0);
    t->until_prompt();  // the greeting
    return t;
  }

  testsupport::TempDir dir;
  std::ostringstream log_text;
  Logger logger = testsupport::capture_log(log_text, "ctl", spdlog::level::info);
  ops::Ops ops;
  SharedClock clock;
  std::unique_ptr<ControlServer> server;
  std::uint16_t port = 0;
  std::string token;
  std::size_t taken = 0;
};

TEST_F(HostileConsole, WithoutTheTokenEveryChangingCommandIsRefused) {
  auto t = term();
  EXPECT_EQ(t->ask("version"), "ibsm 9.9\n");  // reading works
  for (const auto& line : changing_commands())
    EXPECT_TRUE(t->ask(line).starts_with("IBSM-8005: ")) << line;
  EXPECT_EQ(reached_sm(), 0u);
  struct stat st {};
  EXPECT_NE(::stat("/tmp/ibsm-security-test-portguids", &st), 0);  // no file written
  // dump_conf shows no key.
  const std::string conf = t->ask("dump_conf");
  EXPECT_EQ(conf.find("1122334455667788"), std::string::npos);
  EXPECT_NE(conf.find("\nm_key <redacted>\n"), std::string::npos);
}

TEST_F(HostileConsole, TheTokenGivesRootsRightsAWrongOneClosesTheConnection) {
  auto bad = term();
  std::string wrong = token;
  wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
  ::send(bad->fd, ("auth " + wrong + "\nresweep heavy\n").data(), 5 + wrong.size() + 15,
         MSG_NOSIGNAL);
  EXPECT_TRUE(bad->until_prompt().starts_with("IBSM-8023: ")) << bad->got;
  EXPECT_EQ(reached_sm(), 0u);
  EXPECT_EQ(log().find(wrong), std::string::npos);  // the token is never logged

  auto good = term();
  EXPECT_EQ(good->ask("auth " + token), "authenticated: this console may change the SM\n");
  EXPECT_NE(good->ask("dump_conf").find("m_key 0x1122334455667788"), std::string::npos);
  const std::string l = "resweep heavy\n";
  ::send(good->fd, l.data(), l.size(), MSG_NOSIGNAL);
  EXPECT_TRUE(within_10s([&] { return reached_sm() == 1; }));
  EXPECT_EQ(log().find(token), std::string::npos);
}

// The old console took the uid of /proc/net/tcp's line for the client's port, which the
// kernel shows as 0 once the client has closed (TIME_WAIT, orphaned): a client that
// connects, sends and closes before the server looks got root's rights.
TEST_F(HostileConsole, ConnectSendCloseRacesChangeNothing) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    const std::string& line =
        changing_commands()[static_cast<std::size_t>(i) % changing_commands().size()];
    const std::string l = line + "\n";
    ::send(fd, l.data(), l.size(), MSG_NOSIGNAL);
    linger lg{1, 0};  // and a reset, for an orphan at once
    if (i % 2 == 0) ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    ::close(fd);
  }
  // Every one of them is served (or gone) before the check.
  ASSERT_TRUE(within_10s([&] { return server->connections() == 0; }, 30s));
  EXPECT_EQ(reached_sm(), 0u);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 30s);
}

TEST_F(HostileConsole, RefusalsAreLoggedAtABoundedRateOnTheInjectedClock) {
  auto t = term();
  for (int i = 0; i < 40; ++i)
    ASSERT_TRUE(t->ask("resweep heavy").starts_with("IBSM-8005: "));
  EXPECT_EQ(occurrences(log(), "IBSM-8005: 127.0.0.1:"), 5u) << log();
  EXPECT_EQ(occurrences(log(), "more control refusal"), 0u);
  clock.advance(11s);
  ASSERT_TRUE(within_10s([&] { return occurrences(log(), "more control refusal") == 1; })) << log();
  EXPECT_NE(log().find("35 more control refusal(s)"), std::string::npos) << log();
  EXPECT_NE(log().find("(the last: 127.0.0.1:"), std::string::npos) << log();
  // A new window: the next ones get their lines again.
  ASSERT_TRUE(t->ask("sweep off").starts_with("IBSM-8005: "));
  EXPECT_EQ(occurrences(log(), "IBSM-8005: 127.0.0.1:"), 6u);
}

TEST(RefusalLimiter, FirstFiveThenOneSummaryPerWindow) {
  RefusalLimiter lim(5, 10s);
  FakeClock c;
  int logged = 0;
  for (int i = 0; i < 100; ++i) {
    const auto d = lim.note(c.now(), "p" + std::to_string(i));
    EXPECT_FALSE(d.summary.has_value());
    logged += d.log_this ? 1 : 0;
    c.advance(50ms);  // 5 s in all: one window
  }
  EXPECT_EQ(logged, 5);
  EXPECT_FALSE(lim.due(c.now()).has_value());
  c.advance(6s);
  const auto s = lim.due(c.now());
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->suppressed, 95u);
  EXPECT_EQ(s->last_peer, "p99");
  EXPECT_FALSE(lim.due(c.now() + 1h).has_value());  // once
  EXPECT_TRUE(lim.note(c.now(), "q").log_this);
}

TEST(WorkerPool, AJobThatThrowsCostsNothingButItself) {
  WorkerPool pool(1);
  ASSERT_EQ(pool.prestart(1), 1u);
  std::atomic<bool> ran{false};
  pool.post([] { throw 42; });  // not even a std::exception
  pool.post([] { throw std::bad_alloc(); });
  pool.post([&] { ran = true; });
  EXPECT_TRUE(within_10s([&] { return ran.load(); }));
  pool.stop();
}

}  // namespace
}  // namespace ibsm::ctl
