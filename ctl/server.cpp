#include "ctl/server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "ctl/answer_wire.hpp"
#include "ctl/console_token.hpp"
#include "ctl/errors.hpp"
#include "ctl/outbox.hpp"
#include "ctl/sm_request.hpp"
#include "ctl/socket_setup.hpp"

namespace ibsm::ctl {

namespace {

enum Kind : int { kUnix = 0, kTcp = 1, kLocal = 2 };

// Lines wait in a connection's buffer while its request is in flight; beyond this much
// the client is not read (the socket's buffers push back on it).
constexpr std::size_t kMaxUnread = kMaxLine + 64 * 1024;

// The most one write to a client's socket is given.
constexpr std::size_t kSendStep = 256 * 1024;

}  // namespace

struct ControlServer::Conn {
  std::uint64_t id = 0;
  int fd = -1;
  int kind = kUnix;
  Peer peer;
  std::string in;  // bytes read; in[0, in_used) are taken
  std::size_t in_used = 0;
  bool discarding = false;  // inside a line longer than kMaxLine
  bool eof = false;         // the peer sent all it will: answer that, then close
  Outbox out;               // what the client has not read yet
  Clock::TimePoint last_line;
  bool in_flight = false;  // a request at a worker or at the SM: later lines wait
  std::shared_ptr<sm::ops::Subscription> follow;
  bool follow_json = false;
  bool loop_json = false;
  std::optional<Clock::TimePoint> next_loop;
  bool closing = false;  // close once `out` is written
  bool framed() const { return kind == kUnix; }
  std::size_t unread() const { return in.size() - in_used; }
};

ControlServer::ControlServer(sm::ops::Ops& ops, Logger log, ServerSettings settings)
    : ControlServer(ops, std::move(log), std::move(settings), steady_) {}

ControlServer::ControlServer(sm::ops::Ops& ops, Logger log, ServerSettings settings,
                             const Clock& clock)
    : ops_(ops),
      log_(std::move(log)),
      settings_(std::move(settings)),
      clock_(clock),
      workers_(settings_.max_workers) {}

ControlServer::~ControlServer() {
  stop();
}

double ControlServer::cpu_seconds() const {
  double sum = workers_.cpu_seconds();
  timespec ts{};
  if (thread_clock_ok_ && !stop_.load() && ::clock_gettime(thread_clock_, &ts) == 0)
    sum += static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
  return sum;
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
    bool replaced = false;
    auto fd = open_unix_listener(settings_.socket_path, 64, &replaced);
    if (!fd) {
      log_->error("{}; no control socket", to_string(fd.error()));
    } else {
      unix_fd_ = *fd;
      log_->info("control socket {} (ibsm-ctl){}", settings_.socket_path,
                 replaced ? "; a stale socket of an earlier run was replaced" : "");
    }
  }
  if (settings_.console == "loopback") {
    auto fd = open_loopback_listener(settings_.console_port, 16);
    if (!fd) {
      log_->error("{}", to_string(fd.error()));
    } else {
      tcp_fd_ = *fd;
      open_console_token();
      log_->info("console on 127.0.0.1:{} (console loopback; {})", settings_.console_port,
                 console_token_.empty() ? "read-only"
                                        : "read-only until a client sends auth with the token in " +
                                              console_token_file_);
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
  const std::size_t workers = workers_.prestart(settings_.workers);
  if (workers < std::min(settings_.workers, settings_.max_workers)) {
    log_->error("{}: the control server started {} of its {} worker threads: {}",
                format_error_id(kErrThreads), workers, settings_.workers,
                workers == 0 ? "answers are computed on the socket thread, one at a time"
                             : "fewer requests are answered at once");
  }
  try {
    thread_ = std::thread([this] { loop(); });
  } catch (const std::system_error& e) {
    log_->error("{}: cannot start the control server's thread: {}; no control socket",
                format_error_id(kErrThreads), e.what());
    workers_.stop();
    if (unix_fd_ >= 0) ::close(unix_fd_), ::unlink(settings_.socket_path.c_str());
    if (tcp_fd_ >= 0) ::close(tcp_fd_);
    if (!console_token_file_.empty()) ::unlink(console_token_file_.c_str());
    unix_fd_ = tcp_fd_ = -1;
    return;
  }
  thread_clock_ok_ = ::pthread_getcpuclockid(thread_.native_handle(), &thread_clock_) == 0;
}

void ControlServer::stop() {
  if (stop_.exchange(true)) return;
  wake();
  if (thread_.joinable()) thread_.join();
  workers_.stop();  // a job running ends first (its result is dropped)
  for (auto& [id, c] : conns_)
    if (c->kind != kLocal) ::close(c->fd);
  conns_.clear();
  if (unix_fd_ >= 0) {
    ::close(unix_fd_);
    ::unlink(settings_.socket_path.c_str());
  }
  if (tcp_fd_ >= 0) ::close(tcp_fd_);
  if (!console_token_file_.empty()) ::unlink(console_token_file_.c_str());
  console_token_file_.clear();
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
  c->last_line = clock_.now();
  Conn& ref = *c;
  conns_[c->id] = std::move(c);
  connection_count_ = conns_.size();
  if (!ref.peer.may_read) {
    log_refusal(ref.peer.describe,
                fmt::format("{}: control connection from {} refused: not root and not in ctl_group",
                            format_error_id(kErrNotAllowed), ref.peer.describe));
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

// Over ctl_max_connections a new connection is told why, in its own protocol, and
// closed at once: an admin's script sees IBSM-8007 instead of a silent hang-up.
bool ControlServer::refuse_over_cap(int fd, int kind) {
  if (conns_.size() < settings_.max_connections) return false;
  ++refused_;
  const auto now = clock_.now();
  if (!refused_logged_ || now - *refused_logged_ >= std::chrono::minutes(1)) {
    log_->warn("{}: refused {} control connection(s): {} are open (ctl_max_connections)",
               format_error_id(kErrTooManyConnections), refused_, conns_.size());
    refused_ = 0;
    refused_logged_ = now;
  }
  const std::string wire = encode_answer(
      kind == kUnix, false, "",
      error_answer(Error{kErrTooManyConnections,
                         fmt::format("too many control connections: ibsm serves {} at once "
                                     "(ctl_max_connections); retry when one has closed",
                                     settings_.max_connections)}));
  // The console gets the message without a prompt: nothing more will be read.
  const std::string_view text =
      kind == kUnix ? std::string_view(wire)
                    : std::string_view(wire).substr(0, wire.size() - kConsolePrompt.size());
  [[maybe_unused]] auto n = ::send(fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  // What the client sent already is read first: closing over unread bytes would reset
  // the connection and could discard the refusal before the client reads it.
  char sink[4096];
  while (::recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0) {
  }
  ::shutdown(fd, SHUT_WR);
  ::close(fd);
  return true;
}

// Out of file descriptors (RLIMIT_NOFILE below ctl_max_connections): the waiting
// connection cannot even be refused. The listeners rest for a second, so the loop does
// not spin on them; the client waits in the backlog.
void ControlServer::accept_failed() {
  if (errno != EMFILE && errno != ENFILE && errno != ENOBUFS && errno != ENOMEM) return;
  const auto now = clock_.now();
  accept_paused_until_ = now + std::chrono::seconds(1);
  if (!accept_failed_logged_ || now - *accept_failed_logged_ >= std::chrono::minutes(1)) {
    accept_failed_logged_ = now;
    log_->warn(
        "{}: cannot accept a control connection with {} open: {} (raise the open files "
        "limit, or lower ctl_max_connections)",
        format_error_id(kErrTooManyConnections), conns_.size(), std::strerror(errno));
  }
}

void ControlServer::accept_unix() {
  for (;;) {
    const int fd = ::accept4(unix_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return accept_failed();
    if (refuse_over_cap(fd, kUnix)) continue;
    Peer p = unix_peer(fd, ::geteuid(), ctl_gid_);
    add_conn(fd, kUnix, std::move(p));
  }
}

void ControlServer::accept_tcp() {
  for (;;) {
    sockaddr_in peer{};
    socklen_t plen = sizeof(peer);
    const int fd =
        ::accept4(tcp_fd_, reinterpret_cast<sockaddr*>(&peer), &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return accept_failed();
    if (refuse_over_cap(fd, kTcp)) continue;
    // TCP carries no credentials: the client is anonymous (read-only) until it sends the
    // console token (on_auth_line).
    Peer p = console_peer(fmt::format("127.0.0.1:{}", ntohs(peer.sin_port)));
    add_conn(fd, kTcp, std::move(p));
  }
}

void ControlServer::send_raw(Conn& c, std::string_view text) {
  c.out.push_stream(text, clock_.now());
  flush(c);
}

void ControlServer::send_answer(Conn& c, const Command* cmd, std::string_view name, Answer a) {
  send_wire(c, encode_answer_parts(c.framed(), cmd != nullptr && cmd->json, name, std::move(a)));
}

void ControlServer::send_wire(Conn& c, AnswerWire wire) {
  c.out.push_answer(std::move(wire.head), std::move(wire.body), std::move(wire.tail), clock_.now());
  flush(c);
}

void ControlServer::flush(Conn& c) {
  while (!c.out.empty()) {
    // At most kSendStep bytes a call: a send() lasts as long as the client keeps taking
    // the bytes, and the time of the progress is the time the call began.
    const std::string_view next = c.out.front().substr(0, kSendStep);
    const auto now = clock_.now();
    // The local console writes to the terminal (blocking: a person reads it).
    const ssize_t n = c.kind == kLocal
                          ? ::write(1, next.data(), next.size())
                          : ::send(c.fd, next.data(), next.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c.out.consumed(static_cast<std::size_t>(n), now);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
    c.closing = true;  // the peer is gone
    c.out.clear();
    break;
  }
  cut_off_if_stuck(c, clock_.now());
}

// A client that takes nothing of what waits for it, for ctl_idle_timeout, or lets more
// than max_output pile up beyond the answer it is being sent, is cut off rather than
// buffered for without bound. One answer of any size is sent whole to a client that
// keeps taking it.
void ControlServer::cut_off_if_stuck(Conn& c, Clock::TimePoint now) {
  const auto verdict = judge_outbox(c.out, now, settings_.idle_timeout, settings_.max_output);
  if (verdict == OutboxVerdict::kKeep) return;
  if (!c.closing) {
    const auto seconds =
        std::chrono::duration_cast<std::chrono::seconds>(settings_.idle_timeout).count();
    log_->warn(
        "{}: control connection {} stopped reading its answers ({} bytes unread, {}); closed",
        format_error_id(kErrStoppedReading), c.peer.describe, c.out.bytes(),
        verdict == OutboxVerdict::kStalled
            ? fmt::format("none taken for {} s, ctl_idle_timeout", seconds)
            : fmt::format("more than {} bytes beyond the answer being sent", settings_.max_output));
  }
  c.out.clear();
  c.closing = true;
}

void ControlServer::pump_events(Conn& c) {
  if (!c.follow) return;
  // Events stay in the subscription (bounded; it drops and counts) while the client
  // has not taken what was already written.
  if (c.out.bytes() > 256 * 1024) return;
  const auto now = clock_.now();
  for (const auto& e : c.follow->take())
    c.out.push_stream((c.follow_json ? sm::ops::encode_json(*e) : sm::ops::encode_text(*e)) + "\n",
                      now);
  flush(c);
}

void ControlServer::submit(Conn& c, const Command& cmd, std::string_view line) {
  if (cmd.changes && !c.peer.may_change) {
    log_refusal(c.peer.describe, fmt::format("{}: {} refused '{}': changing commands are root only",
                                             format_error_id(kErrRootOnly), c.peer.describe,
                                             std::string(line.substr(0, 200))));
    const std::string why = c.kind == kTcp
                                ? fmt::format(
                                      "'{}' changes the SM: on the loopback console only after "
                                      "'auth TOKEN' (TOKEN: the content of console_token_file, "
                                      "readable by root)",
                                      spec_of(cmd.id).name)
                                : fmt::format("'{}' changes the SM: root only ({} may read)",
                                              spec_of(cmd.id).name, c.peer.describe);
    send_answer(c, &cmd, spec_of(cmd.id).name, error_answer(Error{kErrRootOnly, why}));
    return;
  }
  auto request = control_request_for(cmd);
  if (!request) return;
  sm::ops::ControlRequest& r = *request;
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
  c.in_flight = true;
}

namespace {

// IBSM-8020 for a request whose answer could not be computed or encoded; logged.
AnswerWire internal_error_wire(const Logger& log, bool framed, bool json, std::string_view name,
                               std::string_view what) {
  try {
    log->error("{}: control request '{}' failed: {}", format_error_id(kErrInternal), name, what);
  } catch (...) {  // NOLINT(bugprone-empty-catch): the log is best effort here
  }
  return encode_answer_parts(
      framed, json, name,
      error_answer(Error{kErrInternal, fmt::format("'{}' failed inside ibsm ({}); the SM is not "
                                                   "affected",
                                                   name, what)}));
}

// The SM's reply as an answer, in the one form the request asked for: the text moved,
// not copied (a PerfMgr dump can be tens of MiB), or its JSON document.
Answer answer_of_reply(sm::ops::ControlReply reply, bool json) {
  Answer a;
  a.ok = reply.ok;
  if (reply.ok && json) {
    JsonWriter j;
    j.begin_object().field("message", reply.text).end_object();
    a.json = std::move(j).take();
  } else if (reply.ok) {
    a.text = std::move(reply.text);
    a.text += '\n';
  } else {
    a = error_answer(Error{ErrorId{reply.error_id}, reply.text});
  }
  return a;
}

}  // namespace

void ControlServer::take_replies() {
  std::vector<Reply> got;
  {
    std::lock_guard lock(replies_mu_);
    got.swap(replies_);
  }
  for (Reply& r : got) {
    auto it = conns_.find(r.conn);
    const bool framed = it == conns_.end() || it->second->framed();
    if (r.reply.finish) {
      // What the SM left to do from its immutable snapshot (format counters, write
      // dump_counters' file) is done on a worker, even for a client that has left.
      run_on_worker(r.conn, framed, r.json, std::move(r.name),
                    [finish = std::move(r.reply.finish), json = r.json] {
                      return answer_of_reply(finish(), json);
                    });
      continue;
    }
    if (it == conns_.end()) continue;  // the client left; the SM did the work anyway
    Conn& c = *it->second;
    c.in_flight = false;
    Command cmd;
    cmd.json = r.json;
    send_answer(c, &cmd, r.name, answer_of_reply(std::move(r.reply), r.json));
  }
}

void ControlServer::run_on_worker(std::uint64_t conn, bool framed, bool json, std::string name,
                                  std::function<Answer()> compute) {
  if (auto it = conns_.find(conn); it != conns_.end()) it->second->in_flight = true;
  auto job = [this, conn, framed, json, name = std::move(name), compute = std::move(compute)] {
    // A bug or an exhausted allocator must cost this request, not the SM: computing the
    // answer and encoding it (which copies it, and may run out of memory) both happen
    // inside the try; the error answer is small.
    AnswerWire wire;
    try {
      wire = encode_answer_parts(framed, json, name, compute());
    } catch (const std::exception& e) {
      wire = internal_error_wire(log_, framed, json, name, e.what());
    } catch (...) {
      wire = internal_error_wire(log_, framed, json, name, "unknown exception");
    }
    try {
      std::lock_guard lock(results_mu_);
      results_.push_back(Result{conn, std::move(wire)});
    } catch (...) {
      // No memory even to queue the answer: the client's request stays in flight until
      // it leaves or times out; the SM and the other clients go on.
      log_->error("{}: control request '{}': no memory to queue its answer",
                  format_error_id(kErrInternal), name);
    }
    wake();
  };
  const auto posted = workers_.post(job);
  if (posted.grow_failed && !grow_failed_logged_) {
    grow_failed_logged_ = true;
    log_->warn("{}: cannot start another control worker thread ({} run); requests wait for one",
               format_error_id(kErrThreads), workers_.threads());
  }
  if (!posted.queued) job();  // no worker at all: answered here, one at a time
}

void ControlServer::take_results() {
  std::vector<Result> got;
  {
    std::lock_guard lock(results_mu_);
    got.swap(results_);
  }
  for (Result& r : got) {
    auto it = conns_.find(r.conn);
    if (it == conns_.end()) continue;
    Conn& c = *it->second;
    c.in_flight = false;
    send_wire(c, std::move(r.wire));
  }
}

void ControlServer::on_line(Conn& c, std::string_view line) {
  c.last_line = clock_.now();
  if (is_blank(line)) {
    if (!c.framed()) send_raw(c, "ibsm $ ");
    return;
  }
  if (c.kind == kTcp && on_auth_line(c, line)) return;
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
            c.out.push_stream(
                (cmd.json ? sm::ops::encode_json(*e) : sm::ops::encode_text(*e)) + "\n",
                clock_.now());
        }
        flush(c);
        return;
      }
      break;
    case CommandId::kStatus:
      if (cmd.flag) {
        c.loop_json = cmd.json;
        c.next_loop = clock_.now();
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
    log_refusal(c.peer.describe,
                fmt::format("{}: {} refused 'dump_portguid file': writes a file, root only",
                            format_error_id(kErrRootOnly), c.peer.describe));
    send_answer(c, &cmd, name,
                error_answer(Error{kErrRootOnly,
                                   "dump_portguid file writes a file as ibsm's user: root only"}));
    return;
  }
  // Everything else is read from the published snapshot, on a worker: a report over a
  // big fabric takes as long as it takes without holding up anyone else.
  run_on_worker(
      c.id, c.framed(), cmd.json, name,
      [this, cmd, who = c.peer.describe, secrets = c.peer.sees_secrets] {
        auto snap = ops_.snapshot.current();
        if (!snap)
          return error_answer(Error{kErrNoFabric, "the SM has not published its state yet"});
        Answer a = answer_read_only(cmd, *snap, ops_.events, secrets);
        if (a.ok && cmd.id == CommandId::kDumpPortGuid && !cmd.file.empty()) {
          std::ofstream f(cmd.file, std::ios::trunc);
          f << a.text;
          if (!f.flush()) {
            a = error_answer(Error{kErrBadArgument, fmt::format("cannot write {}: {}", cmd.file,
                                                                std::strerror(errno))});
          } else {
            log_->info("control: {} wrote the port GUIDs to {}", who, cmd.file);
            a.text = fmt::format("port GUIDs written to {}\n", cmd.file);
          }
        }
        return a;
      });
}

void ControlServer::read_input(Conn& c) {
  char buf[8192];
  while (c.unread() < kMaxUnread) {
    const int fd = c.kind == kLocal ? 0 : c.fd;
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n == 0) {
      // End of input (`printf 'status\n' | nc -U`): the lines received are answered,
      // then the connection is closed. A local console at EOF stops reading stdin.
      c.eof = true;
      return;
    }
    if (n < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        c.closing = true;  // the peer is gone: nobody reads what is owed
        c.out.clear();
      }
      return;
    }
    c.in.append(buf, static_cast<std::size_t>(n));
    if (c.kind == kLocal) return;  // blocking stdin: one read per readiness
  }
}

// Takes the complete lines received, one request at a time: a line waits while the
// one before it is in flight, and until its answer has left for the client (so that
// one answer at most waits in the connection's outbox).
void ControlServer::parse_input(Conn& c) {
  while (!c.closing && !c.in_flight && !c.out.answer_waiting() &&
         c.out.bytes() <= settings_.max_output / 2) {
    const std::size_t nl = c.in.find('\n', c.in_used);
    if (nl == std::string::npos) {
      if (c.unread() > kMaxLine) {  // the rest of this line is read and dropped
        c.discarding = true;
        c.in.clear();
        c.in_used = 0;
      }
      break;
    }
    const std::string_view line(c.in.data() + c.in_used, nl - c.in_used);
    const bool too_long = c.discarding || line.size() > kMaxLine;
    const std::string taken = too_long ? std::string() : std::string(line);
    c.in_used = nl + 1;
    c.discarding = false;
    if (too_long) {
      Command dummy;
      send_answer(c, &dummy, "",
                  error_answer(Error{
                      kErrLineTooLong,
                      fmt::format("request line longer than {} bytes; discarded", kMaxLine)}));
      continue;
    }
    on_line(c, taken);
  }
  if (c.in_used == c.in.size()) {
    c.in.clear();
    c.in_used = 0;
  } else if (c.in_used > 64 * 1024) {
    c.in.erase(0, c.in_used);
    c.in_used = 0;
  }
}

// The connection's complete lines and its events. An exception (out of memory, a bug)
// costs this connection its request, answered IBSM-8020, never the socket thread: the
// other clients and the SM go on.
void ControlServer::serve_conn_input(Conn& c) {
  try {
    parse_input(c);
    pump_events(c);
    return;
  } catch (const std::exception& e) {
    try {
      log_->error("{}: control connection {} failed: {}", format_error_id(kErrInternal),
                  c.peer.describe, e.what());
    } catch (...) {  // NOLINT(bugprone-empty-catch)
    }
  } catch (...) {
  }
  try {
    c.in_flight = false;
    Command dummy;
    send_answer(c, &dummy, "",
                error_answer(Error{kErrInternal,
                                   "the request failed inside ibsm; the SM is not "
                                   "affected"}));
  } catch (...) {
    c.out.clear();
    c.closing = true;
  }
}

void ControlServer::log_refusal(const std::string& peer, const std::string& line) {
  const auto now = clock_.now();
  const auto d = refusals_.note(now, peer);
  if (d.summary)
    log_->warn("{}: {} more control refusal(s) in 10 s not logged one by one (the last: {})",
               format_error_id(kErrNotAllowed), d.summary->suppressed, d.summary->last_peer);
  if (d.log_this) log_->warn("{}", line);
}

void ControlServer::log_refusal_summary(Clock::TimePoint now) {
  if (const auto s = refusals_.due(now))
    log_->warn("{}: {} more control refusal(s) in 10 s not logged one by one (the last: {})",
               format_error_id(kErrNotAllowed), s->suppressed, s->last_peer);
}

// `auth TOKEN` on the loopback console. True if the line was an auth line (answered).
bool ControlServer::on_auth_line(Conn& c, std::string_view line) {
  const auto token = auth_line_token(line);
  if (!token) return false;
  if (!console_token_.empty() && token_matches(*token, console_token_)) {
    c.peer = console_authenticated(std::move(c.peer));
    log_->info("control: {} authenticated on the loopback console", c.peer.describe);
    send_raw(c, "authenticated: this console may change the SM\n" + std::string(kConsolePrompt));
    return true;
  }
  // The token is never logged, nor echoed. The client is closed: one guess a connection.
  log_refusal(c.peer.describe, fmt::format("{}: console client {} sent a wrong token; closed",
                                           format_error_id(kErrAuth), c.peer.describe));
  send_raw(c, fmt::format("{}: {}\n", format_error_id(kErrAuth),
                          console_token_.empty()
                              ? "this console has no token (IBSM-8024 at start-up): read-only"
                              : "wrong token; closing"));
  c.in.clear();
  c.in_used = 0;
  c.closing = true;
  return true;
}

void ControlServer::open_console_token() {
  const std::string path = settings_.console_token_path.empty() ? console_token_path_for(settings_)
                                                                : settings_.console_token_path;
  auto token = make_console_token();
  if (!token) {
    log_->error("{}; the loopback console is read-only", to_string(token.error()));
    return;
  }
  if (auto st = write_console_token(path, *token); !st.ok()) {
    log_->error("{}; the loopback console is read-only", to_string(st.error()));
    return;
  }
  console_token_ = std::move(*token);
  console_token_file_ = path;
}

std::string console_token_path_for(const ServerSettings& s) {
  if (!s.socket_path.empty()) {
    std::string base = s.socket_path;
    if (base.ends_with(".sock")) base.resize(base.size() - 5);
    return base + ".console-token";
  }
  return fmt::format("/run/ibsm/console-{}.token", s.console_port);
}

void ControlServer::close_conn(Conn& c) {
  if (c.kind == kLocal) {
    local_console_ = false;
  } else {
    ::close(c.fd);
  }
}

void ControlServer::housekeep(Clock::TimePoint now) {
  std::size_t waiting = 0;
  for (auto it = conns_.begin(); it != conns_.end();) {
    Conn& c = *it->second;
    serve_conn_input(c);
    if (c.next_loop && now >= *c.next_loop && !c.in_flight && c.out.bytes() < 64 * 1024 &&
        ops_.snapshot.current()) {
      Command cmd;
      cmd.id = CommandId::kStatus;
      cmd.json = c.loop_json;
      run_on_worker(c.id, c.framed(), cmd.json, "status", [this, cmd]() -> Answer {
        auto snap = ops_.snapshot.current();
        if (!snap)
          return error_answer(Error{kErrNoFabric, "the SM has not published its state yet"});
        return answer_read_only(cmd, *snap, ops_.events);
      });
      c.next_loop = now + settings_.status_loop;
    }
    // The peer sent all it will and everything it asked is answered. A follower or a
    // status loop ends with its input too (an ibsm-ctl that was killed), so that a
    // dead reader of a quiet fabric does not hold a place until the next event.
    if (c.eof && !c.in_flight && c.in.find('\n', c.in_used) == std::string::npos) c.closing = true;
    // A client that stopped taking its output is cut off (its progress is judged, not
    // the size of the answer it is taking).
    cut_off_if_stuck(c, now);
    // Half-open and silent connections: no complete line for idle_timeout and nothing
    // in flight, being written, followed or looping. The time counts from the request,
    // or from the last byte of its answer taken.
    const bool busy = c.in_flight || !c.out.empty() || c.follow || c.next_loop || c.kind == kLocal;
    const auto quiet_since = std::max(c.last_line, c.out.last_progress());
    if (!busy && !c.closing && now - quiet_since > settings_.idle_timeout) {
      Command dummy;
      send_answer(
          c, &dummy, "",
          error_answer(Error{
              kErrIdleTimeout,
              fmt::format("no request for {} s (ctl_idle_timeout); closing",
                          std::chrono::duration_cast<std::chrono::seconds>(settings_.idle_timeout)
                              .count())}));
      c.closing = true;
    }
    // Closing: once the last words are written, or when they are not taken.
    if (c.closing && (c.out.empty() || now - c.out.last_progress() > settings_.idle_timeout)) {
      close_conn(c);
      it = conns_.erase(it);
      continue;
    }
    waiting += c.out.bytes();
    ++it;
  }
  connection_count_ = conns_.size();
  output_waiting_ = waiting;
}

void ControlServer::loop() {
  if (local_console_) {
    Peer p;
    p.uid = ::geteuid();
    p.known = true;
    p.may_read = p.may_change = p.sees_secrets = true;
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
    const bool accepting = clock_.now() >= accept_paused_until_;
    if (unix_fd_ >= 0) {
      fds.push_back({accepting ? unix_fd_ : -1, POLLIN, 0});
      ids.push_back(0);
    }
    if (tcp_fd_ >= 0) {
      fds.push_back({accepting ? tcp_fd_ : -1, POLLIN, 0});
      ids.push_back(0);
    }
    for (auto& [id, c] : conns_) {
      short ev = 0;
      if (!c->eof && !c->closing && c->unread() < kMaxUnread &&
          c->out.bytes() <= settings_.max_output / 2)
        ev |= POLLIN;
      if (!c->out.empty() && c->kind != kLocal) ev |= POLLOUT;  // stdout is written directly
      // Nothing wanted: left out of the poll (-1), so that a peer that hung up does not
      // wake the loop over and over; its end shows when its answer is written.
      const int fd = ev == 0 ? -1 : (c->kind == kLocal ? 0 : c->fd);
      fds.push_back({fd, ev, 0});
      ids.push_back(id);
    }
    const int n = ::poll(fds.data(), fds.size(), 250);
    if (n < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      std::uint64_t v = 0;
      [[maybe_unused]] auto r = ::read(wake_fd_, &v, sizeof(v));
    }
    wake_pending_ = false;
    // Whatever throws here (out of memory) costs a turn of the loop, not the server.
    try {
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
        if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) read_input(c);
        if (fds[k].revents & POLLOUT) flush(c);
      }
      take_replies();
      take_results();
      housekeep(clock_.now());
      log_refusal_summary(clock_.now());
    } catch (...) {
      try {
        log_->error("{}: the control server's loop failed a turn (out of memory?); it goes on",
                    format_error_id(kErrInternal));
      } catch (...) {  // NOLINT(bugprone-empty-catch)
      }
    }
  }
}

}  // namespace ibsm::ctl
