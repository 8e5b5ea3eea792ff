#include "ctl/server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <spdlog/fmt/fmt.h>

#include "ctl/errors.hpp"
#include "ctl/json.hpp"

namespace ibsm::ctl {

namespace {

enum Kind : int { kUnix = 0, kTcp = 1, kLocal = 2 };
using SteadyTime = std::chrono::steady_clock::time_point;

// Supplementary groups of a process, from /proc/<pid>/status ("Groups: 0 4 27").
std::vector<std::uint32_t> process_groups(pid_t pid) {
  std::vector<std::uint32_t> out;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("Groups:")) continue;
    std::istringstream ss(line.substr(7));
    std::uint32_t g = 0;
    while (ss >> g)
      out.push_back(g);
  }
  return out;
}

// The uid owning the TCP socket at `peer` talking to `local` (both loopback), from
// /proc/net/tcp: the kernel's answer to "who is connected to the console".
std::optional<std::uint32_t> tcp_peer_uid(const sockaddr_in& peer, const sockaddr_in& local) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // header
  const auto want_local = fmt::format("{:08X}:{:04X}", peer.sin_addr.s_addr, ntohs(peer.sin_port));
  const auto want_remote =
      fmt::format("{:08X}:{:04X}", local.sin_addr.s_addr, ntohs(local.sin_port));
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string sl, loc, rem, st, queues, timer, retr;
    std::uint32_t uid = 0;
    if (!(ss >> sl >> loc >> rem >> st >> queues >> timer >> retr >> uid)) continue;
    if (loc == want_local && rem == want_remote) return uid;
  }
  return std::nullopt;
}

}  // namespace

Peer decide_access(std::uint32_t uid, const std::vector<std::uint32_t>& groups,
                   std::uint32_t own_uid, std::optional<std::uint32_t> ctl_gid) {
  Peer p;
  p.uid = uid;
  p.may_change = uid == 0 || uid == own_uid;
  p.may_read = p.may_change ||
               (ctl_gid && std::find(groups.begin(), groups.end(), *ctl_gid) != groups.end());
  return p;
}

struct ControlServer::Conn {
  std::uint64_t id = 0;
  int fd = -1;
  int kind = kUnix;
  Peer peer;
  std::string in;
  bool discarding = false;  // inside a line longer than kMaxLine
  std::string out;
  SteadyTime last_line;
  int pending = 0;  // changing requests waiting for the SM
  std::shared_ptr<sm::ops::Subscription> follow;
  bool follow_json = false;
  bool loop_json = false;
  std::optional<SteadyTime> next_loop;
  bool closing = false;  // close once `out` is written
  bool framed() const { return kind == kUnix; }
};

ControlServer::ControlServer(sm::ops::Ops& ops, Logger log, ServerSettings settings)
    : ops_(ops), log_(std::move(log)), settings_(std::move(settings)) {}

ControlServer::~ControlServer() {
  stop();
}

void ControlServer::start() {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (!settings_.group.empty()) {
    if (const group* g = ::getgrnam(settings_.group.c_str())) {
      ctl_gid_ = g->gr_gid;
    } else {
      log_->warn("{}: ctl_group '{}' does not exist; only root may use the control socket",
                 format_error_id(kErrSocketSetup), settings_.group);
    }
  }
  if (!settings_.socket_path.empty()) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (settings_.socket_path.size() >= sizeof(addr.sun_path)) {
      log_->error("{}: control socket path {} is longer than {} bytes; no control socket",
                  format_error_id(kErrSocketSetup), settings_.socket_path,
                  sizeof(addr.sun_path) - 1);
    } else {
      std::memcpy(addr.sun_path, settings_.socket_path.c_str(), settings_.socket_path.size() + 1);
      unix_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      // A socket file left by a crashed run is replaced; a live ibsm on it is not
      // (connect succeeds: the path is in use).
      if (::connect(unix_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
        log_->error(
            "{}: another ibsm answers on {}; no control socket for this one (set ctl_socket)",
            format_error_id(kErrSocketSetup), settings_.socket_path);
        ::close(unix_fd_);
        unix_fd_ = -1;
      } else {
        ::close(unix_fd_);
        ::unlink(settings_.socket_path.c_str());
        unix_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        // Everyone may connect; the peer's uid decides what it may do (SO_PEERCRED), so a
        // refused user gets an answer saying why rather than EACCES.
        const mode_t old = ::umask(0);
        const bool ok = ::bind(unix_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
                        ::chmod(settings_.socket_path.c_str(), 0666) == 0 &&
                        ::listen(unix_fd_, 64) == 0;
        ::umask(old);
        if (!ok) {
          log_->error("{}: cannot open control socket {}: {}", format_error_id(kErrSocketSetup),
                      settings_.socket_path, std::strerror(errno));
          ::close(unix_fd_);
          unix_fd_ = -1;
        } else {
          log_->info("control socket {} (ibsm-ctl)", settings_.socket_path);
        }
      }
    }
  }
  if (settings_.console == "loopback") {
    tcp_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(tcp_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(settings_.console_port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(tcp_fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
        ::listen(tcp_fd_, 16) != 0) {
      log_->error("{}: cannot open the loopback console on 127.0.0.1:{}: {}",
                  format_error_id(kErrSocketSetup), settings_.console_port, std::strerror(errno));
      ::close(tcp_fd_);
      tcp_fd_ = -1;
    } else {
      log_->info("console on 127.0.0.1:{} (console loopback)", settings_.console_port);
    }
  }
  if (settings_.console == "local") {
    if (::isatty(0)) {
      local_console_ = true;
    } else {
      log_->warn("{}: console local needs a terminal on standard input; not started",
                 format_error_id(kErrConsoleSetup));
    }
  }
  if (unix_fd_ < 0 && tcp_fd_ < 0 && !local_console_) return;
  thread_ = std::thread([this] { loop(); });
}

void ControlServer::stop() {
  if (stop_.exchange(true)) return;
  wake();
  if (thread_.joinable()) thread_.join();
  for (auto& [id, c] : conns_)
    if (c->kind != kLocal) ::close(c->fd);
  conns_.clear();
  if (unix_fd_ >= 0) {
    ::close(unix_fd_);
    ::unlink(settings_.socket_path.c_str());
  }
  if (tcp_fd_ >= 0) ::close(tcp_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  unix_fd_ = tcp_fd_ = wake_fd_ = -1;
}

void ControlServer::wake() {
  if (wake_fd_ < 0) return;
  if (wake_pending_.exchange(true)) return;  // one write per turn of the loop is enough
  const std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof(one));
}

void ControlServer::add_conn(int fd, int kind, Peer peer) {
  auto c = std::make_unique<Conn>();
  c->id = next_id_++;
  c->fd = fd;
  c->kind = kind;
  c->peer = std::move(peer);
  c->last_line = std::chrono::steady_clock::now();
  Conn& ref = *c;
  conns_[c->id] = std::move(c);
  connection_count_ = conns_.size();
  if (!ref.peer.may_read) {
    log_->warn("{}: control connection from {} refused: not root and not in ctl_group",
               format_error_id(kErrNotAllowed), ref.peer.describe);
    send_answer(
        ref, nullptr, "",
        error_answer(Error{
            kErrNotAllowed,
            fmt::format("{} may not use ibsm's control socket (root{} only)", ref.peer.describe,
                        settings_.group.empty() ? "" : " and group " + settings_.group)}));
    ref.closing = true;
    return;
  }
  if (kind != kUnix) send_raw(ref, "ibsm console: type 'help' for the commands\nibsm $ ");
}

void ControlServer::accept_unix() {
  for (;;) {
    const int fd = ::accept4(unix_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    if (conns_.size() >= settings_.max_connections) {
      const std::string msg =
          format_error_id(kErrTooManyConnections) + ": too many control connections\n.err\n";
      [[maybe_unused]] auto n = ::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      ::close(fd);
      continue;
    }
    ucred cred{};
    socklen_t len = sizeof(cred);
    Peer p;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
      auto groups = process_groups(cred.pid);
      groups.push_back(cred.gid);
      p = decide_access(cred.uid, groups, ::geteuid(), ctl_gid_);
      p.describe = fmt::format("uid {} (pid {})", cred.uid, cred.pid);
    } else {
      p.describe = "unknown peer";
    }
    add_conn(fd, kUnix, std::move(p));
  }
}

void ControlServer::accept_tcp() {
  for (;;) {
    sockaddr_in peer{};
    socklen_t plen = sizeof(peer);
    const int fd =
        ::accept4(tcp_fd_, reinterpret_cast<sockaddr*>(&peer), &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    if (conns_.size() >= settings_.max_connections) {
      ::close(fd);
      continue;
    }
    sockaddr_in local{};
    socklen_t llen = sizeof(local);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &llen);
    Peer p;
    if (auto uid = tcp_peer_uid(peer, local)) {
      // TCP carries no credentials: the uid is the socket's owner (the kernel's
      // /proc/net/tcp), its groups those of the user database.
      std::vector<std::uint32_t> groups;
      if (const passwd* pw = ::getpwuid(*uid)) {
        int count = 64;
        std::vector<gid_t> list(64);
        if (::getgrouplist(pw->pw_name, pw->pw_gid, list.data(), &count) >= 0)
          for (int g = 0; g < count; ++g)
            groups.push_back(list[static_cast<std::size_t>(g)]);
      }
      p = decide_access(*uid, groups, ::geteuid(), ctl_gid_);
      p.describe = fmt::format("uid {} (127.0.0.1:{})", *uid, ntohs(peer.sin_port));
    } else {
      p.describe = fmt::format("unknown user at 127.0.0.1:{}", ntohs(peer.sin_port));
    }
    add_conn(fd, kTcp, std::move(p));
  }
}

void ControlServer::send_raw(Conn& c, std::string_view text) {
  c.out.append(text);
  flush(c);
}

void ControlServer::send_answer(Conn& c, const Command* cmd, std::string_view name,
                                const Answer& a) {
  const bool json = cmd != nullptr ? cmd->json : false;
  std::string body;
  if (json) {
    JsonWriter j;
    j.begin_object().field("command", name).field("ok", a.ok);
    if (a.ok) {
      j.key("result").raw(a.json.empty() ? "{}" : a.json);
      if (!a.text.empty() && a.json.empty()) j.field("text", a.text);
    } else {
      std::string msg = a.text;
      const std::string prefix = format_error_id(a.error) + ": ";
      if (msg.starts_with(prefix)) msg.erase(0, prefix.size());
      while (!msg.empty() && msg.back() == '\n')
        msg.pop_back();
      j.key("error")
          .begin_object()
          .field("id", format_error_id(a.error))
          .field("message", msg)
          .end_object();
    }
    j.end_object();
    body = j.text() + "\n";
  } else {
    body = a.text;
    if (!body.empty() && body.back() != '\n') body += '\n';
  }
  if (c.framed()) {
    // Lines that begin with '.' get one more; a line of '.' and a word ends the answer.
    std::string stuffed;
    stuffed.reserve(body.size() + 16);
    std::size_t pos = 0;
    while (pos < body.size()) {
      const std::size_t nl = body.find('\n', pos);
      const std::size_t end = nl == std::string::npos ? body.size() : nl;
      if (body[pos] == '.') stuffed += '.';
      stuffed.append(body, pos, end - pos);
      stuffed += '\n';
      pos = end + 1;
    }
    stuffed += a.ok ? ".ok\n" : ".err\n";
    c.out += stuffed;
  } else {
    c.out += body;
    c.out += "ibsm $ ";
  }
  flush(c);
}

void ControlServer::flush(Conn& c) {
  while (!c.out.empty()) {
    // The local console writes to the terminal (blocking: a person reads it).
    const ssize_t n = c.kind == kLocal
                          ? ::write(1, c.out.data(), c.out.size())
                          : ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c.out.erase(0, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
    c.closing = true;  // the peer is gone
    c.out.clear();
    break;
  }
  // A reader that takes nothing: cut off rather than buffer without bound (followers
  // stop taking events long before, see pump_events).
  if (c.out.size() > settings_.max_output) {
    log_->warn("control connection {} does not read its answers; closed", c.peer.describe);
    c.out.clear();
    c.closing = true;
  }
}

void ControlServer::pump_events(Conn& c) {
  if (!c.follow) return;
  // Events stay in the subscription (bounded; it drops and counts) while the client
  // has not taken what was already written.
  if (c.out.size() > 256 * 1024) return;
  for (const auto& e : c.follow->take()) {
    c.out += c.follow_json ? sm::ops::encode_json(*e) : sm::ops::encode_text(*e);
    c.out += '\n';
  }
  flush(c);
}

void ControlServer::submit(Conn& c, const Command& cmd, std::string_view line) {
  if (cmd.changes && !c.peer.may_change) {
    log_->warn("{}: {} refused '{}': changing commands are root only",
               format_error_id(kErrRootOnly), c.peer.describe, std::string(line.substr(0, 200)));
    send_answer(
        c, &cmd, spec_of(cmd.id).name,
        error_answer(Error{kErrRootOnly, fmt::format("'{}' changes the SM: root only ({} may read)",
                                                     spec_of(cmd.id).name, c.peer.describe)}));
    return;
  }
  sm::ops::ControlRequest r;
  switch (cmd.id) {
    case CommandId::kLogLevel:
      r.action = sm::ops::ControlAction::kLogLevel;
      r.arg = std::to_string(*cmd.number);
      break;
    case CommandId::kPriority:
      r.action = sm::ops::ControlAction::kPriority;
      r.arg = std::to_string(*cmd.number);
      break;
    case CommandId::kResweep:
      r.action = cmd.word == "heavy" ? sm::ops::ControlAction::kResweepHeavy
                                     : sm::ops::ControlAction::kResweepLight;
      break;
    case CommandId::kReroute:
      r.action = sm::ops::ControlAction::kReroute;
      break;
    case CommandId::kSweep:
      r.action =
          cmd.word == "on" ? sm::ops::ControlAction::kSweepOn : sm::ops::ControlAction::kSweepOff;
      break;
    case CommandId::kLogFlush:
      r.action = sm::ops::ControlAction::kLogFlush;
      r.arg = cmd.word;
      break;
    case CommandId::kUpdateDesc:
      r.action = sm::ops::ControlAction::kUpdateDesc;
      break;
    case CommandId::kHandover:
      r.action = sm::ops::ControlAction::kHandover;
      break;
    case CommandId::kNodeNames:
      r.action = sm::ops::ControlAction::kReloadNodeNames;
      break;
    case CommandId::kPermodlog:  // the module loggers are the SM's: shown and set there
      r.action = sm::ops::ControlAction::kPermodlog;
      r.words = cmd.args;
      if (cmd.number) r.arg = std::to_string(*cmd.number);  // the flags, as checked
      break;
    case CommandId::kPerfmgr:  // the PerfMgr lives on the SM's thread, even to read it
      r.action = sm::ops::ControlAction::kPerfmgr;
      r.words = cmd.args;
      break;
    default:
      return;
  }
  r.changes = cmd.changes;
  r.uid = c.peer.uid;
  r.command = std::string(line.substr(0, 200));
  if (r.changes) log_->info("control: {} sent '{}'", c.peer.describe, r.command);
  const std::uint64_t id = c.id;
  const bool json = cmd.json;
  std::string name(spec_of(cmd.id).name);
  r.reply = [this, id, json, name](sm::ops::ControlReply reply) {
    {
      std::lock_guard lock(replies_mu_);
      replies_.push_back(Reply{id, json, name, std::move(reply)});
    }
    wake();
  };
  if (!ops_.control.push(std::move(r))) {
    send_answer(
        c, &cmd, name,
        error_answer(Error{kErrBusy, "64 changing requests already wait for the SM; retry"}));
    return;
  }
  ++c.pending;
}

void ControlServer::take_replies() {
  std::vector<Reply> got;
  {
    std::lock_guard lock(replies_mu_);
    got.swap(replies_);
  }
  for (Reply& r : got) {
    // What the SM left to do from its immutable snapshot (format counters, write
    // dump_counters' file) is done here, even for a client that has left.
    if (r.reply.finish) r.reply = r.reply.finish();
    auto it = conns_.find(r.conn);
    if (it == conns_.end()) continue;  // the client left; the SM did the work anyway
    Conn& c = *it->second;
    --c.pending;
    Answer a;
    a.ok = r.reply.ok;
    if (r.reply.ok) {
      a.text = r.reply.text + "\n";
      JsonWriter j;
      j.begin_object().field("message", r.reply.text).end_object();
      a.json = j.text();
    } else {
      a = error_answer(Error{ErrorId{r.reply.error_id}, r.reply.text});
    }
    Command cmd;
    cmd.json = r.json;
    send_answer(c, &cmd, r.name, a);
  }
}

void ControlServer::on_line(Conn& c, std::string_view line) {
  c.last_line = std::chrono::steady_clock::now();
  if (is_blank(line)) {
    if (!c.framed()) send_raw(c, "ibsm $ ");
    return;
  }
  auto parsed = parse_command(line);
  if (!parsed) {
    Command dummy;
    dummy.json = line.starts_with("--json");
    send_answer(c, &dummy, "", error_answer(parsed.error()));
    return;
  }
  const Command& cmd = *parsed;
  const std::string name(spec_of(cmd.id).name);
  switch (cmd.id) {
    case CommandId::kQuit:
      if (c.kind == kLocal) {
        send_answer(c, &cmd, name,
                    error_answer(Error{kErrBadArgument,
                                       "quit is not valid on the local console; use ctrl-c"}));
        return;
      }
      // The Unix socket answers .ok; the console closes without a last prompt.
      if (c.framed()) send_answer(c, &cmd, name, Answer{});
      c.closing = true;
      return;
    case CommandId::kEvents:
      if (cmd.flag) {
        c.follow_json = cmd.json;
        c.follow = ops_.events.subscribe(settings_.follow_queue, [this] { wake(); });
        if (cmd.number) {  // history first, then live
          for (const auto& e : ops_.events.history(*cmd.number))
            c.out += (cmd.json ? sm::ops::encode_json(*e) : sm::ops::encode_text(*e)) + "\n";
        }
        flush(c);
        return;
      }
      break;
    case CommandId::kStatus:
      if (cmd.flag) {
        c.loop_json = cmd.json;
        c.next_loop = std::chrono::steady_clock::now();
        return;
      }
      break;
    default:
      break;
  }
  if ((cmd.changes && cmd.id != CommandId::kDumpPortGuid) || cmd.id == CommandId::kPerfmgr ||
      cmd.id == CommandId::kPermodlog) {
    submit(c, cmd, line);
    return;
  }
  if (cmd.id == CommandId::kDumpPortGuid && !cmd.file.empty() && !c.peer.may_change) {
    send_answer(c, &cmd, name,
                error_answer(Error{kErrRootOnly,
                                   "dump_portguid file writes a file as ibsm's user: root only"}));
    return;
  }
  auto snap = ops_.snapshot.current();
  if (!snap) {
    send_answer(c, &cmd, name,
                error_answer(Error{kErrNoFabric, "the SM has not published its state yet"}));
    return;
  }
  Answer a = answer_read_only(cmd, *snap, ops_.events);
  if (a.ok && cmd.id == CommandId::kDumpPortGuid && !cmd.file.empty()) {
    std::ofstream f(cmd.file, std::ios::trunc);
    f << a.text;
    if (!f.flush()) {
      a = error_answer(Error{kErrBadArgument,
                             fmt::format("cannot write {}: {}", cmd.file, std::strerror(errno))});
    } else {
      log_->info("control: {} wrote the port GUIDs to {}", c.peer.describe, cmd.file);
      a.text = fmt::format("port GUIDs written to {}\n", cmd.file);
    }
  }
  send_answer(c, &cmd, name, a);
}

void ControlServer::on_readable(Conn& c) {
  char buf[8192];
  for (;;) {
    const int fd = c.kind == kLocal ? 0 : c.fd;
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n == 0) {
      // End of input: answers still owed are dropped with the connection. A local
      // console at EOF stops reading stdin.
      c.closing = true;
      return;
    }
    if (n < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) c.closing = true;
      return;
    }
    for (ssize_t i = 0; i < n; ++i) {
      const char ch = buf[i];
      if (ch == '\n') {
        if (c.discarding) {
          c.discarding = false;
          Command dummy;
          send_answer(c, &dummy, "",
                      error_answer(Error{
                          kErrLineTooLong,
                          fmt::format("request line longer than {} bytes; discarded", kMaxLine)}));
        } else {
          std::string line = std::move(c.in);
          c.in.clear();
          on_line(c, line);
          if (c.closing) return;
        }
        continue;
      }
      if (c.discarding) continue;
      c.in += ch;
      if (c.in.size() > kMaxLine) {
        c.in.clear();
        c.in.shrink_to_fit();
        c.discarding = true;
      }
    }
    // A reader that never reads its answers gets no more of them parsed either.
    if (c.out.size() > settings_.max_output / 2) return;
    if (c.kind == kLocal) return;  // blocking stdin: one read per readiness
  }
}

void ControlServer::close_conn(Conn& c) {
  if (c.kind == kLocal) {
    local_console_ = false;
  } else {
    ::close(c.fd);
  }
}

void ControlServer::loop() {
  if (local_console_) {
    Peer p;
    p.uid = ::geteuid();
    p.may_read = p.may_change = true;
    p.describe = fmt::format("uid {} (local console)", p.uid);
    add_conn(0, kLocal, std::move(p));
  }
  std::vector<pollfd> fds;
  std::vector<std::uint64_t> ids;
  while (!stop_.load()) {
    fds.clear();
    ids.clear();
    fds.push_back({wake_fd_, POLLIN, 0});
    ids.push_back(0);
    if (unix_fd_ >= 0) {
      fds.push_back({unix_fd_, POLLIN, 0});
      ids.push_back(0);
    }
    if (tcp_fd_ >= 0) {
      fds.push_back({tcp_fd_, POLLIN, 0});
      ids.push_back(0);
    }
    for (auto& [id, c] : conns_) {
      short ev = 0;
      if (c->out.size() <= settings_.max_output / 2) ev |= POLLIN;
      if (!c->out.empty()) ev |= POLLOUT;
      if (c->kind == kLocal) ev = POLLIN;  // stdin; stdout is written directly
      fds.push_back({c->kind == kLocal ? 0 : c->fd, ev, 0});
      ids.push_back(id);
    }
    const int n = ::poll(fds.data(), fds.size(), 250);
    if (n < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      std::uint64_t v = 0;
      [[maybe_unused]] auto r = ::read(wake_fd_, &v, sizeof(v));
    }
    wake_pending_ = false;
    std::size_t k = 1;
    if (unix_fd_ >= 0) {
      if (fds[k].revents & POLLIN) accept_unix();
      ++k;
    }
    if (tcp_fd_ >= 0) {
      if (fds[k].revents & POLLIN) accept_tcp();
      ++k;
    }
    for (; k < fds.size(); ++k) {
      auto it = conns_.find(ids[k]);
      if (it == conns_.end()) continue;
      Conn& c = *it->second;
      if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) on_readable(c);
      if (fds[k].revents & POLLOUT) flush(c);
    }
    take_replies();
    const auto now = std::chrono::steady_clock::now();
    for (auto it = conns_.begin(); it != conns_.end();) {
      Conn& c = *it->second;
      pump_events(c);
      if (c.next_loop && now >= *c.next_loop && c.out.size() < 64 * 1024) {
        Command cmd;
        cmd.id = CommandId::kStatus;
        cmd.json = c.loop_json;
        if (auto snap = ops_.snapshot.current())
          send_answer(c, &cmd, "status", answer_read_only(cmd, *snap, ops_.events));
        c.next_loop = now + settings_.status_loop;
      }
      // Half-open and silent connections: no complete line for idle_timeout and nothing
      // pending, followed or looping.
      const bool busy = c.pending > 0 || c.follow || c.next_loop || c.kind == kLocal;
      if (!busy && !c.closing && now - c.last_line > settings_.idle_timeout) {
        Command dummy;
        send_answer(c, &dummy, "",
                    error_answer(Error{kErrIdleTimeout, "no request for 30 seconds; closing"}));
        c.closing = true;
      }
      if (c.closing && (c.out.empty() || now - c.last_line > settings_.idle_timeout)) {
        close_conn(c);
        it = conns_.erase(it);
        continue;
      }
      ++it;
    }
    connection_count_ = conns_.size();
  }
}

}  // namespace ibsm::ctl
