// Connections of the control server: accepting them (and refusing them over the cap
// or without access), reading their request lines, writing their answers and events,
// cutting off those that stop reading, closing them.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/fmt/fmt.h>

#include "ctl/access_policy.hpp"
#include "ctl/answer_wire.hpp"
#include "ctl/errors.hpp"
#include "ctl/server.hpp"
#include "ctl/server_conn.hpp"

namespace ibsm::ctl {

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
    c.out.push_stream((c.follow_json ? ops::encode_json(*e) : ops::encode_text(*e)) + "\n", now);
  flush(c);
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

void ControlServer::close_conn(Conn& c) {
  if (c.kind == kLocal) {
    local_console_ = false;
  } else {
    ::close(c.fd);
  }
}

}  // namespace ibsm::ctl
